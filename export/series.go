package export

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/klauspost/compress/flate"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/csvfile"
	"github.com/hensachi/hensachi/parquetfile"
	"github.com/hensachi/hensachi/town"
)

// The indicators' long table (Series) is built once per dataset version and format, for the
// whole country with every indicator, one build at a time, into an unlinked temporary file; a
// call's choice of indicators and prefecture is cut from it, so no call rebuilds it:
//
//   - Parquet has a row group per indicator: the file of some indicators is their row groups'
//     bytes copied and a footer made for them (parquetfile.Groups). A prefecture's rows are spread
//     over every row group, so its file is written for the call, from its 1/47 of the rows.
//   - CSV is on disk three times: as it is, with the byte ranges of each indicator and, inside it,
//     of each run of one prefecture's rows (a prefecture's file is those ranges read in order, a
//     streamed filter of the national file); deflated an indicator at a time, each part on its own
//     and flushed to a byte boundary, so that a gzip stream of any indicators in any order is their
//     parts one after another between a header and a trailer made for the call; and deflated an
//     indicator's rows of one prefecture at a time, the same way, for a prefecture's gzip stream.
//     No call compresses: a prefecture's CSV compressed for its call cost a core tens of
//     milliseconds, beside the other calls.

// Series returns the indicators' long table of a prefecture ("" for the whole country) in a
// format that writes in parts (CSV, Parquet; SeriesFormat): one row per municipality, indicator
// (of indicators, catalogue positions) and survey year with a value, ordered by indicator, year
// (oldest first) and code, with the columns code, name, prefecture_code, indicator, year, value,
// rank (national) and hensachi. A call that needs the national table while it is being built
// waits for that build up to buildWait, and one that finds another being built waits for it as
// long: past that it is overloaded (503, Retry-After). A failed build is an error for the calls
// that waited for it and is not kept: the next call builds again. An unknown prefecture is
// not_found.
func Series(ctx context.Context, c *town.Catalog, f *Format, pref string, indicators []int) (*File, error) {
	list, ok := c.List(pref)
	if !ok {
		return nil, unknownPrefecture(pref)
	}
	name := SeriesFilename(&c.Meta, pref, f.Name)
	if f == Parquet && pref != "" {
		var b bytes.Buffer
		if err := writeSeries(&b, c, f, list.Items, indicators); err != nil {
			return nil, err
		}
		return &File{Format: f, Body: b.Bytes(), Filename: name}, nil
	}
	t, err := nationalTable(ctx, c, f)
	if err != nil {
		return nil, err
	}
	switch {
	case f == Parquet:
		return t.parquet(indicators, name)
	case pref != "":
		return t.csvPrefecture(pref, indicators, name), nil
	default:
		return t.csvNational(indicators, name), nil
	}
}

// TownSeries returns one municipality's rows of the long table of indicator i, in a format that
// writes in parts: its every survey year with a value, as Series writes them, for the page of the
// municipality's indicator. A few rows, written for the call; named
// hensachi-{code}-{key}-{data date}.{format}.
func TownSeries(c *town.Catalog, f *Format, m *hensachi.Municipality, i int) (*File, error) {
	var b bytes.Buffer
	if err := writeSeries(&b, c, f, []*hensachi.Municipality{m}, []int{i}); err != nil {
		return nil, err
	}
	name := "hensachi-" + m.Code + "-" + c.Indicator(i).Key + "-" + c.Meta.DataUpdated + "." + f.Name
	return &File{Format: f, Body: b.Bytes(), Filename: name}, nil
}

// SeriesFormat tells whether the long table is written in a format.
func SeriesFormat(f *Format) bool { return f != nil && f.stream != nil }

// SeriesFilename names the long table of a prefecture ("" for the whole country):
// hensachi-indicators[-{pref}]-{data date}.{format}.
func SeriesFilename(meta *hensachi.Meta, pref, format string) string {
	return strings.Replace(Filename(meta, pref, format), "-municipalities", "-indicators", 1)
}

// Scratch is a temporary file the national long tables are written to and read back from.
type Scratch interface {
	io.Writer
	io.ReaderAt
}

// NewScratch makes the temporary file of a national long table: unlinked at once, it stays
// readable while it is open, and the os.File's finalizer closes it once the table's catalog is
// gone. Tests replace it to make the disk fail.
var NewScratch = func() (Scratch, error) {
	f, err := os.CreateTemp("", "hensachi-series-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	return f, nil
}

const (
	// buildWait is how long a call waits for the national long table being built (the CSV of the
	// real dataset takes 6 s of a core, half of it deflating, and 10 s at a load average of 10;
	// the Parquet 3 s) or for its turn to build it.
	buildWait = 20 * time.Second
	// busyRetry is the Retry-After of a call that waited that long.
	busyRetry = 10 * time.Second
	// diskRetry is the Retry-After of a call whose table the disk had no room for.
	diskRetry = time.Minute
)

// buildSlot lets one national long table be built at a time: a build keeps a core busy for
// seconds, and the other calls must keep theirs.
var buildSlot = make(chan struct{}, 1)

// longTables are the national long tables of a catalog, by format.
var longTables = town.NewMemo(func(*town.Catalog) map[*Format]*town.Once[*longTable] {
	m := map[*Format]*town.Once[*longTable]{}
	for _, f := range every {
		if SeriesFormat(f) {
			m[f] = new(town.Once[*longTable])
		}
	}
	return m
})

// nationalTable returns the national long table of c in f, building it if no build has succeeded.
func nationalTable(ctx context.Context, c *town.Catalog, f *Format) (*longTable, error) {
	ctx, cancel := context.WithTimeout(ctx, buildWait)
	defer cancel()
	t, err := longTables.Of(c)[f].Get(ctx, func() (*longTable, error) {
		select {
		case buildSlot <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		defer func() { <-buildSlot }()
		return buildTable(c, f)
	})
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return nil, (&hensachi.Error{Code: hensachi.EOverloaded, Cause: err,
			Message: "the indicators' long table of this dataset version is being built; retry in a few seconds"}).RetryIn(busyRetry)
	}
	return t, err
}

// longTable is the national long table of every indicator in one format, on disk.
type longTable struct {
	format *Format
	disk   Scratch
	// CSV: the byte-order mark and header, the part of each indicator by catalogue position, and
	// the credit's row, which only a Japanese CSV has (plain.N 0 else)
	head, tail csvPart
	parts      []csvPart
	// Parquet: its row groups, one per indicator by catalogue position
	groups *parquetfile.Groups
}

// csvPart is the CSV of the header or of one indicator's rows, on disk as it is and deflated.
type csvPart struct {
	plain, deflated parquetfile.Span
	crc             uint32 // of the plain bytes
	// runs are the plain bytes by consecutive rows of one prefecture, in order
	runs []run
	// prefs are the rows of each prefecture deflated on their own, in the order of their first run
	prefs []prefPart
}

// prefPart is the rows of one prefecture in a part, deflated.
type prefPart struct {
	pref     string
	deflated parquetfile.Span
	crc      uint32 // of the plain bytes
	n        int64  // plain bytes
}

// run is the bytes of consecutive rows of one prefecture.
type run struct {
	pref string
	parquetfile.Span
}

// buildTable writes the national long table of c in f to a new scratch file.
func buildTable(c *town.Catalog, f *Format) (*longTable, error) {
	disk, err := NewScratch()
	if err != nil {
		return nil, diskFailed(err)
	}
	t := &longTable{format: f, disk: disk}
	w := &offsetWriter{w: bufio.NewWriterSize(disk, 256<<10)}
	list, _ := c.List("")
	if f == Parquet {
		if err := writeSeries(w, c, f, list.Items, c.IndicatorGroupIndexes("")); err != nil {
			return nil, err
		}
		if err := w.w.Flush(); err != nil {
			return nil, diskFailed(err)
		}
		if t.groups, err = parquetfile.ReadGroups(disk, w.n); err != nil {
			return nil, fmt.Errorf("export: the long table's Parquet: %w", err)
		}
		return t, nil
	}
	n := names{f.Japanese}
	head := seriesHeader(n)
	if t.head, err = w.csvPart(head, nil); err != nil {
		return nil, err
	}
	index := rowIndexes(c, list.Items)
	var b bytes.Buffer
	for _, i := range c.IndicatorGroupIndexes("") {
		cols := seriesPart(c, list.Items, index, i, n)
		b.Reset()
		if err := csvfile.Write(&b, cols); err != nil {
			return nil, fmt.Errorf("export: the long table's CSV: %w", err)
		}
		p, err := w.csvPart(bytes.TrimPrefix(b.Bytes(), head), cols[2].Strings)
		if err != nil {
			return nil, err
		}
		t.parts = append(t.parts, p)
	}
	if credits := f.credits(c); credits != nil {
		b.Reset()
		tw := f.stream(&b, credits)
		if err := tw.Write(seriesPart(nil, nil, nil, -1, n)); err != nil {
			return nil, fmt.Errorf("export: the long table's CSV: %w", err)
		}
		if err := tw.Close(); err != nil {
			return nil, fmt.Errorf("export: the long table's CSV: %w", err)
		}
		if t.tail, err = w.csvPart(bytes.TrimPrefix(b.Bytes(), head), nil); err != nil {
			return nil, err
		}
	}
	if err := w.w.Flush(); err != nil {
		return nil, diskFailed(err)
	}
	return t, nil
}

// seriesHeader is the long table's CSV without rows: the byte-order mark and the header.
func seriesHeader(n names) []byte {
	var b bytes.Buffer
	if err := csvfile.Write(&b, seriesPart(nil, nil, nil, -1, n)); err != nil {
		panic(err) // fixed columns
	}
	return b.Bytes()
}

// offsetWriter writes the long table's file, knowing where it is.
type offsetWriter struct {
	w     *bufio.Writer
	n     int64
	flate *flate.Writer
}

func (o *offsetWriter) Write(p []byte) (int, error) {
	n, err := o.w.Write(p)
	o.n += int64(n)
	if err != nil {
		return n, diskFailed(err)
	}
	return n, nil
}

// csvPart writes a part of the CSV as it is and deflated on its own; prefs are its rows'
// prefectures, one a line, for its runs (nil for the header).
func (o *offsetWriter) csvPart(plain []byte, prefs []string) (csvPart, error) {
	p := csvPart{plain: parquetfile.Span{Off: o.n, N: int64(len(plain))}, crc: crc32.ChecksumIEEE(plain)}
	if _, err := o.Write(plain); err != nil {
		return p, err
	}
	at := p.plain.Off
	for k, line := 0, plain; prefs != nil && len(line) > 0; k++ {
		// a row is a line: no value of the table holds a line break
		end := bytes.IndexByte(line, '\n') + 1
		if end == 0 || k >= len(prefs) {
			return p, fmt.Errorf("export: the long table's CSV: %d lines for %d rows", k+1, len(prefs))
		}
		if n := len(p.runs); n > 0 && p.runs[n-1].pref == prefs[k] {
			p.runs[n-1].N += int64(end)
		} else {
			p.runs = append(p.runs, run{prefs[k], parquetfile.Span{Off: at, N: int64(end)}})
		}
		at += int64(end)
		line = line[end:]
	}
	var err error
	if p.deflated, err = o.deflate(plain); err != nil {
		return p, err
	}
	var order []string // the prefectures by their first run
	byPref := map[string][]run{}
	for _, r := range p.runs {
		if byPref[r.pref] == nil {
			order = append(order, r.pref)
		}
		byPref[r.pref] = append(byPref[r.pref], r)
	}
	var rows []byte
	for _, pref := range order {
		rows = rows[:0]
		for _, r := range byPref[pref] {
			rows = append(rows, plain[r.Off-p.plain.Off:][:r.N]...)
		}
		d, err := o.deflate(rows)
		if err != nil {
			return p, err
		}
		p.prefs = append(p.prefs, prefPart{pref: pref, deflated: d, crc: crc32.ChecksumIEEE(rows), n: int64(len(rows))})
	}
	return p, nil
}

// deflate writes b deflated on its own: a part refers to no bytes of another, and it ends flushed
// to a byte boundary with the stream left open, so that parts can follow one another in a stream.
func (o *offsetWriter) deflate(b []byte) (parquetfile.Span, error) {
	start := o.n
	if o.flate == nil {
		o.flate, _ = flate.NewWriter(o, flate.DefaultCompression)
	} else {
		o.flate.Reset(o)
	}
	o.flate.Write(b)
	if err := o.flate.Flush(); err != nil {
		return parquetfile.Span{}, err
	}
	return parquetfile.Span{Off: start, N: o.n - start}, nil
}

// csvNational is the CSV of indicators for the whole country: the header and their parts, as
// they are, or deflated in a gzip stream.
func (t *longTable) csvNational(indicators []int, filename string) *File {
	plain := sections{{disk: t.disk, off: t.head.plain.Off, n: t.head.plain.N}}
	zipped := sections{{bytes: gzipHeader}, {disk: t.disk, off: t.head.deflated.Off, n: t.head.deflated.N}}
	crc, size := t.head.crc, t.head.plain.N
	for _, i := range indicators {
		p := &t.parts[i]
		plain = append(plain, section{disk: t.disk, off: p.plain.Off, n: p.plain.N})
		zipped = append(zipped, section{disk: t.disk, off: p.deflated.Off, n: p.deflated.N})
		crc, size = crc32Combine(crc, p.crc, p.plain.N), size+p.plain.N
	}
	plain, zipped, crc, size = t.withTail(plain, zipped, crc, size)
	return &File{Format: t.format, Filename: filename, plain: plain, zipped: append(zipped, gzipEnd(crc, size))}
}

// withTail appends the credit's row, when the table has one, to a file's plain and zipped
// sections of size bytes whose CRC-32 is crc.
func (t *longTable) withTail(plain, zipped sections, crc uint32, size int64) (sections, sections, uint32, int64) {
	if t.tail.plain.N == 0 {
		return plain, zipped, crc, size
	}
	plain = append(plain, section{disk: t.disk, off: t.tail.plain.Off, n: t.tail.plain.N})
	zipped = append(zipped, section{disk: t.disk, off: t.tail.deflated.Off, n: t.tail.deflated.N})
	return plain, zipped, crc32Combine(crc, t.tail.crc, t.tail.plain.N), size + t.tail.plain.N
}

// gzipEnd ends a gzip stream of size bytes whose CRC-32 is crc: the final block, empty and stored
// (RFC 1951 §3.2.4), then the gzip trailer (RFC 1952).
func gzipEnd(crc uint32, size int64) section {
	end := []byte{1, 0, 0, 0xff, 0xff}
	end = binary.LittleEndian.AppendUint32(end, crc)
	return section{bytes: binary.LittleEndian.AppendUint32(end, uint32(size))}
}

// gzipHeader starts a gzip stream (RFC 1952): magic, deflate, no flags, no time, no extra flags,
// unknown OS.
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}

// csvPrefecture is the CSV of indicators for one prefecture: the header and the prefecture's runs
// of their parts, and its gzip stream of their prefecture parts.
func (t *longTable) csvPrefecture(pref string, indicators []int, filename string) *File {
	plain := sections{{disk: t.disk, off: t.head.plain.Off, n: t.head.plain.N}}
	zipped := sections{{bytes: gzipHeader}, {disk: t.disk, off: t.head.deflated.Off, n: t.head.deflated.N}}
	crc, size := t.head.crc, t.head.plain.N
	for _, i := range indicators {
		for _, r := range t.parts[i].runs {
			if r.pref == pref {
				plain = append(plain, section{disk: t.disk, off: r.Off, n: r.N})
			}
		}
		for _, q := range t.parts[i].prefs {
			if q.pref == pref {
				zipped = append(zipped, section{disk: t.disk, off: q.deflated.Off, n: q.deflated.N})
				crc, size = crc32Combine(crc, q.crc, q.n), size+q.n
			}
		}
	}
	plain, zipped, crc, size = t.withTail(plain, zipped, crc, size)
	return &File{Format: t.format, Filename: filename, plain: plain, zipped: append(zipped, gzipEnd(crc, size))}
}

// parquet is the Parquet file of indicators for the whole country: their row groups.
func (t *longTable) parquet(indicators []int, filename string) (*File, error) {
	tail, err := t.groups.Subset(indicators)
	if err != nil {
		return nil, fmt.Errorf("export: the long table's Parquet: %w", err)
	}
	plain := sections{{bytes: []byte(parquetfile.Magic)}}
	for _, i := range indicators {
		g := t.groups.Spans[i]
		plain = append(plain, section{disk: t.disk, off: g.Off, n: g.N})
	}
	return &File{Format: t.format, Filename: filename, plain: append(plain, section{bytes: tail})}, nil
}

// diskFailed is the error of a long table the disk failed to take: unavailable for now when the
// disk is full (503, the operator's to fix, the client's to retry), else internal.
func diskFailed(err error) error {
	var e *hensachi.Error
	if errors.As(err, &e) {
		return err // already said
	}
	if errors.Is(err, syscall.ENOSPC) {
		return (&hensachi.Error{Code: hensachi.EUnavailable, Cause: err,
			Message: "the server's disk is full, so the indicators' long table cannot be written; retry later"}).RetryIn(diskRetry)
	}
	return fmt.Errorf("export: writing the long table: %w", err)
}

// writeSeries writes the long table of rows and indicators to w.
func writeSeries(w io.Writer, c *town.Catalog, f *Format, rows []*hensachi.Municipality, indicators []int) error {
	tw := f.stream(w, f.credits(c))
	n := names{f.Japanese}
	index := rowIndexes(c, rows)
	for _, i := range indicators {
		if err := tw.Write(seriesPart(c, rows, index, i, n)); err != nil {
			return diskFailed(err)
		}
	}
	if len(indicators) == 0 { // the header, or the schema, of an empty table
		if err := tw.Write(seriesPart(c, nil, nil, -1, n)); err != nil {
			return diskFailed(err)
		}
	}
	if err := tw.Close(); err != nil {
		return diskFailed(err)
	}
	return nil
}

// rowIndexes are the rows' positions in the catalog.
func rowIndexes(c *town.Catalog, rows []*hensachi.Municipality) []int {
	index := make([]int, len(rows))
	for k, m := range rows {
		index[k] = c.Index(m.Code)
	}
	return index
}

// seriesPart is indicator i's rows of the long table: every year, oldest first, each in rows'
// order (index: their rows in the catalog), those with a value. i < 0 gives the columns empty.
// In Japanese, the indicator is named by its label and unit (総人口（人）), the rows' units
// differing as they do.
func seriesPart(c *town.Catalog, rows []*hensachi.Municipality, index []int, i int, n names) []hensachi.Column {
	cols := []hensachi.Column{
		{Name: n.of("code", "", "市区町村コード"), Strings: []string{}}, {Name: n.of("name", "", "市区町村名"), Strings: []string{}},
		{Name: n.of("prefecture_code", "", "都道府県コード"), Strings: []string{}},
		{Name: n.of("indicator", "", "指標"), Strings: []string{}}, {Name: n.of("year", "", "年"), Ints: []hensachi.Optional[int64]{}},
		{Name: n.of("value", "", "値"), Floats: []hensachi.Optional[float64]{}}, {Name: n.of("rank", "", jaRank), Ints: []hensachi.Optional[int64]{}},
		{Name: n.of("hensachi", "", jaHensachi), Floats: []hensachi.Optional[float64]{}},
	}
	if i < 0 {
		return cols
	}
	ind := c.Indicator(i)
	indicator := n.of(ind.Key, ind.Unit, ind.Label)
	for y := range ind.Years {
		for k, m := range index {
			p := c.IndicatorPoint(i, y, m)
			if !p.Value.Valid {
				continue
			}
			appendSeriesRow(cols, rows[k], indicator, p)
		}
	}
	return cols
}

// appendSeriesRow appends to the long table's first eight columns the row of municipality r on
// an indicator (its key, or its Japanese name) at point p.
func appendSeriesRow(cols []hensachi.Column, r *hensachi.Municipality, indicator string, p town.IndicatorPoint) {
	cols[0].Strings = append(cols[0].Strings, r.Code)
	cols[1].Strings = append(cols[1].Strings, r.Name)
	cols[2].Strings = append(cols[2].Strings, r.Prefecture.Code)
	cols[3].Strings = append(cols[3].Strings, indicator)
	cols[4].Ints = append(cols[4].Ints, hensachi.Some(int64(p.Year)))
	cols[5].Floats = append(cols[5].Floats, p.Value)
	cols[6].Ints = append(cols[6].Ints, hensachi.Some(int64(p.Rank)))
	cols[7].Floats = append(cols[7].Floats, hensachi.Some(p.Hensachi))
}

// crc32Combine returns the CRC-32 (IEEE) of a then b from a's, b's and b's length, as zlib's
// crc32_combine: a's CRC multiplied by x^(8·lenB) modulo the polynomial, plus b's.
func crc32Combine(crcA, crcB uint32, lenB int64) uint32 {
	return multModP(x2nModP(lenB, 3), crcA) ^ crcB
}

// multModP multiplies a and b modulo the CRC-32 polynomial, in its reflected form.
func multModP(a, b uint32) uint32 {
	var p uint32
	for m := uint32(1) << 31; ; m >>= 1 {
		if a&m != 0 {
			p ^= b
			if a&(m-1) == 0 {
				return p
			}
		}
		if b&1 != 0 {
			b = b>>1 ^ crc32.IEEE
		} else {
			b >>= 1
		}
	}
}

// x2nModP returns x^(n·2^k) modulo the polynomial.
func x2nModP(n int64, k uint) uint32 {
	p := uint32(1) << 31 // x^0
	for ; n != 0; n >>= 1 {
		if n&1 != 0 {
			p = multModP(x2nTable[k&31], p)
		}
		k++
	}
	return p
}

// x2nTable[k] is x^(2^k) modulo the polynomial.
var x2nTable = func() (t [32]uint32) {
	p := uint32(1) << 30 // x^1
	for k := range t {
		t[k] = p
		p = multModP(p, p)
	}
	return t
}()
