// Package export is the bulk export of the statistics: every municipality, or one prefecture's,
// as a file (GET /town/v1/export and the pages' downloads). Every file format writes the same
// table (Columns); a format is a package of its own (csvfile, parquetfile, geojsonfile), named here
// with its content type, whether it is worth gzipping and whether it writes the boundaries too
// (GeoJSON: each row's shape and the credits the boundaries must carry, beside the same columns). A file is built once per dataset version, on its
// first request from the API or the pages, and gzipped once; it is kept with the catalog it was
// made from (town.Memo). A new format is one more Format, a new column one more line of Columns.
// The JSON export is the API's envelope of its municipality objects, so package serve makes it.
package export

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"

	"github.com/klauspost/compress/gzip"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/csvfile"
	"github.com/hensachi/hensachi/geo"
	"github.com/hensachi/hensachi/geojsonfile"
	"github.com/hensachi/hensachi/parquetfile"
	"github.com/hensachi/hensachi/town"
)

// Format is a file format of the export.
type Format struct {
	// Name is the format as the API's format parameter and the file name's extension give it.
	Name        string
	ContentType string
	// Gzip tells whether a file is gzipped for a client that accepts it; not a format that
	// compresses inside the file, such as Parquet.
	Gzip bool
	// Boundaries tells whether the format writes each municipality's boundary, which a dataset
	// built without them cannot fill (Available).
	Boundaries bool
	// Japanese tells whether the file is for a spreadsheet's reader: the columns named in Japanese
	// with their units (header.go) and the statistics' credit as the last row, 出典：… (header=ja).
	Japanese bool
	write    func(io.Writer, table) error
	// stream starts a table written in parts, for a format that can (the indicators' long table),
	// ending with the credits in a format that writes them.
	stream func(w io.Writer, credits []string) tableWriter
	// japanese is the format's variant for a spreadsheet's reader (WithHeader); nil for none.
	japanese *Format
}

// table is what a format writes: the export's columns and, for a format that writes the
// boundaries, each row's shape and the credits the file must carry.
type table struct {
	columns []hensachi.Column
	shape   func(r int) geo.Shape
	credits []string
}

// tableWriter writes a table a part at a time (csvfile.Writer, parquetfile.Writer).
type tableWriter interface {
	Write([]hensachi.Column) error
	Close() error
}

// The formats of the export's table.
var (
	CSV = &Format{Name: "csv", ContentType: "text/csv; charset=utf-8", Gzip: true,
		write:    func(w io.Writer, t table) error { return csvfile.Write(w, t.columns) },
		stream:   func(w io.Writer, _ []string) tableWriter { return csvfile.NewWriter(w) },
		japanese: JapaneseCSV}
	// JapaneseCSV is the CSV for spreadsheets (header=ja): the same rows, the columns named in
	// Japanese with their units, and the credit as the last row, which a spreadsheet keeps with
	// the table and a program skips as the one row whose first cell starts with 出典：. The API's
	// format csv is CSV; this is its variant, no format of its own.
	JapaneseCSV = &Format{Name: "csv", ContentType: "text/csv; charset=utf-8", Gzip: true, Japanese: true,
		write: func(w io.Writer, t table) error {
			tw := creditedCSV{csvfile.NewWriter(w), t.credits}
			if err := tw.Write(t.columns); err != nil {
				return err
			}
			return tw.Close()
		},
		stream: func(w io.Writer, credits []string) tableWriter { return creditedCSV{csvfile.NewWriter(w), credits} }}
	Parquet = &Format{Name: "parquet", ContentType: "application/vnd.apache.parquet",
		write:  func(w io.Writer, t table) error { return parquetfile.Write(w, t.columns) },
		stream: func(w io.Writer, _ []string) tableWriter { return parquetfile.NewWriter(w) }}
	// GeoJSON is for GIS: a FeatureCollection of one feature per municipality, its id the code,
	// its properties the table's columns. It has no stream: the long table has no shapes.
	GeoJSON = &Format{Name: "geojson", ContentType: "application/geo+json", Gzip: true, Boundaries: true,
		write: func(w io.Writer, t table) error {
			return geojsonfile.Write(w, geojsonfile.Collection{Columns: t.columns, ID: "code", Shape: t.shape, Attribution: t.credits})
		}}
	// Formats are the formats of the table, in the order the API documents them.
	Formats = []*Format{CSV, Parquet, GeoJSON}
	// every are the formats and their variants, each of which has files of its own.
	every = []*Format{CSV, JapaneseCSV, Parquet, GeoJSON}
)

// creditedCSV is a CSV whose credits follow the table as its last rows.
type creditedCSV struct {
	*csvfile.Writer
	credits []string
}

func (c creditedCSV) Close() error {
	if err := c.Trailer(c.credits...); err != nil {
		return err
	}
	return c.Writer.Close()
}

// WithHeader returns the format with its columns named in lang: "en" (the API's names) the format
// itself, "ja" its variant for spreadsheets, which only CSV has; "ja" of another format is an
// invalid header parameter.
func (f *Format) WithHeader(lang string) (*Format, error) {
	if lang != "ja" {
		return f, nil
	}
	if f.japanese == nil {
		return nil, &hensachi.Error{Code: hensachi.EInvalidParameter, Param: "header",
			Message:  "header=ja names the columns of format csv, for spreadsheets; format " + f.Name + " keeps its English names",
			Japanese: "header=ja は CSV（format=csv）の列名を日本語にします。" + f.Name + " の列名は英語のままです。"}
	}
	return f.japanese, nil
}

// credits are the credits a file of f ends with: the statistics' for a Japanese CSV, none in
// another format.
func (f *Format) credits(c *town.Catalog) []string {
	if !f.Japanese {
		return nil
	}
	return []string{statisticsCredit(c)}
}

// statisticsCredit is the credit of the dataset's statistics, as the terms of use ask and as the
// site's footer gives it.
func statisticsCredit(c *town.Catalog) string {
	return "出典：" + c.Meta.Source.Name + "（" + c.Meta.Source.URL + "）を加工して作成"
}

// Available returns nil when the dataset of c fills the format, else the error unavailable with
// the reason: a format of the boundaries needs a dataset built with them.
func (f *Format) Available(c *town.Catalog) error {
	if !f.Boundaries {
		return nil
	}
	_, err := c.Boundaries()
	if err == nil {
		return nil
	}
	reason := "it was built without them"
	if m := c.Meta.Boundaries; m != nil && m.Unavailable != "" {
		reason = m.Unavailable
	}
	return &hensachi.Error{Code: hensachi.EUnavailable,
		Message:  "format " + f.Name + " needs the municipalities' boundaries, which this server's dataset lacks: " + reason,
		Japanese: "このサーバーのデータには市区町村の境界がないため、" + f.Name + " の形式では出力できません（" + reason + "）。",
		Cause:    err}
}

// FormatNamed returns the format of a name, or nil.
func FormatNamed(name string) *Format {
	for _, f := range Formats {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// File is one file of the export.
type File struct {
	Format *Format
	// Body is the file held in memory; nil for a file of the national long table, whose sections
	// are read from disk as it is written (plain), tens of MB that the garbage collector would
	// otherwise count as live heap and let the heap grow by several times that.
	Body []byte
	// Filename names the download, e.g. hensachi-municipalities-13-2026-01-01.csv.
	Filename string
	gzipOnce sync.Once
	gzip     []byte
	// plain and zipped are the file and its gzip stream as sections of the long table's disk file
	// and bytes made for the call, for a file of the national long table (zipped nil for a format
	// that is not gzipped).
	plain, zipped sections
}

// Gzipped returns the body gzipped, compressed on the first call and kept; nil for a format that
// is not gzipped, and for a file of the national long table (WriteGzipped writes it).
func (f *File) Gzipped() []byte {
	if !f.Format.Gzip || f.Body == nil {
		return nil
	}
	f.gzipOnce.Do(func() { f.gzip = gzipped(f.Body) })
	return f.gzip
}

// Len is the body's length.
func (f *File) Len() int64 {
	if f.plain != nil {
		return f.plain.len()
	}
	return int64(len(f.Body))
}

// GzipLen is the gzipped body's length, for a format that is gzipped.
func (f *File) GzipLen() int64 {
	if f.zipped != nil {
		return f.zipped.len()
	}
	return int64(len(f.Gzipped()))
}

// WriteBody writes the body to w.
func (f *File) WriteBody(w io.Writer) error {
	if f.plain != nil {
		return f.plain.writeTo(w)
	}
	_, err := w.Write(f.Body)
	return err
}

// WriteGzipped writes the gzipped body to w, for a format that is gzipped.
func (f *File) WriteGzipped(w io.Writer) error {
	if f.zipped != nil {
		return f.zipped.writeTo(w)
	}
	_, err := w.Write(f.Gzipped())
	return err
}

// held is the bytes the file holds in memory.
func (f *File) held() int64 { return int64(len(f.Body) + len(f.gzip)) }

// section is a part of a file: bytes, or n bytes at off in a file on disk.
type section struct {
	bytes  []byte
	disk   io.ReaderAt
	off, n int64
}

// sections are a file's parts in order.
type sections []section

func (s sections) len() int64 {
	var n int64
	for _, p := range s {
		n += int64(len(p.bytes)) + p.n
	}
	return n
}

// writeTo writes the sections to w. A section of the file on disk of gather bytes or more goes by
// io.Copy from a reader of its own over that file: a w that leads to a socket (net/http's
// ResponseWriter, whose ReadFrom reaches the TCP connection's) then sends it with sendfile, the
// kernel moving the bytes from the page cache, and nothing is copied through the process. Smaller
// sections (a prefecture's runs, headers and trailers) are gathered into writes of up to gather
// bytes: a socket with Nagle's algorithm off (Go's default) would otherwise send a packet per part.
func (s sections) writeTo(w io.Writer) error {
	var own *os.File
	defer func() {
		if own != nil {
			own.Close()
		}
	}()
	buf := make([]byte, 0, gather)
	flush := func() error {
		_, err := w.Write(buf)
		buf = buf[:0]
		return err
	}
	for _, p := range s {
		n := int64(len(p.bytes)) + p.n
		if int64(len(buf))+n > gather && len(buf) > 0 {
			if err := flush(); err != nil {
				return err
			}
		}
		switch {
		case n < gather && p.disk != nil:
			at := len(buf)
			buf = buf[:at+int(n)]
			if _, err := p.disk.ReadAt(buf[at:], p.off); err != nil {
				return fmt.Errorf("export: reading the long table: %w", err)
			}
		case n < gather:
			buf = append(buf, p.bytes...)
		case p.disk != nil:
			if own == nil {
				own = reopen(p.disk)
			}
			if err := copySection(w, own, p); err != nil {
				return err
			}
		default:
			if _, err := w.Write(p.bytes); err != nil {
				return err
			}
		}
	}
	if len(buf) > 0 {
		return flush()
	}
	return nil
}

// gather is the size below which sections are gathered into one write, and at which a file's
// section is worth a sendfile of its own.
const gather = 64 << 10

// copySection copies a section of the file on disk to w: from own, the file opened again with an
// offset of its own (reopen), or through a SectionReader when it could not be opened.
func copySection(w io.Writer, own *os.File, p section) error {
	var src io.Reader = io.NewSectionReader(p.disk, p.off, p.n)
	if own != nil {
		if _, err := own.Seek(p.off, io.SeekStart); err != nil {
			return fmt.Errorf("export: reading the long table: %w", err)
		}
		// a LimitedReader of an *os.File, which sendfile takes as it is
		src = &io.LimitedReader{R: own, N: p.n}
	}
	n, err := io.Copy(w, src)
	if err == nil && n < p.n {
		err = fmt.Errorf("export: reading the long table: %w", io.ErrUnexpectedEOF)
	}
	return err
}

// reopen opens the file disk again, read-only with an offset of its own that no other call moves,
// through /proc/self/fd (which reaches an unlinked file too); nil where that fails: disk is not an
// *os.File, the system is not Linux.
func reopen(disk io.ReaderAt) *os.File {
	f, ok := disk.(*os.File)
	if !ok {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	var own *os.File
	rc.Control(func(fd uintptr) { own, _ = os.Open("/proc/self/fd/" + strconv.Itoa(int(fd))) })
	return own
}

// Of returns the file of a prefecture ("" for the whole country) in a format Available for c,
// built on its first request and kept for the catalog's version, and gzipped alike; an unknown
// prefecture is not_found.
func Of(c *town.Catalog, f *Format, pref string) (*File, error) {
	l, ok := files.Of(c)[fileKey{f, pref}]
	if !ok {
		return nil, unknownPrefecture(pref)
	}
	return l.Get(context.Background(), func() (*File, error) {
		list, _ := c.List(pref)
		file, err := build(f, c, list.Items, Selection{}, Filename(&c.Meta, pref, f.Name))
		if err != nil {
			return nil, err
		}
		file.Gzipped() // the file is kept: compress it now, once
		return file, nil
	})
}

// unknownPrefecture is the error of a prefecture code the dataset does not have.
func unknownPrefecture(pref string) error {
	return &hensachi.Error{Code: hensachi.ENotFound, Message: "no prefecture " + pref, Japanese: "この都道府県コードはありません。"}
}

// Compared returns the file of municipalities of c in the order given (a comparison's, see
// town.Catalog.Lookup) in a format Available for c, made for the call.
func Compared(c *town.Catalog, f *Format, rows []*hensachi.Municipality) (*File, error) {
	return build(f, c, rows, Selection{}, "hensachi-compare-"+c.Meta.DataUpdated+"."+f.Name)
}

// Filename names the export of a prefecture ("" for the whole country) in a format:
// hensachi-municipalities[-{pref}]-{data date}.{format}.
func Filename(meta *hensachi.Meta, pref, format string) string {
	name := "hensachi-municipalities-"
	if pref != "" {
		name += pref + "-"
	}
	return name + meta.DataUpdated + "." + format
}

// build makes the file of rows with the indicator columns of sel: the one path from the table to
// a file of any format.
func build(f *Format, c *town.Catalog, rows []*hensachi.Municipality, sel Selection, filename string) (*File, error) {
	t := table{columns: tableOf(c, rows, sel, names{f.Japanese}), credits: f.credits(c)}
	if f.Boundaries {
		var err error
		if t.shape, t.credits, err = boundaries(c, rows); err != nil {
			return nil, err
		}
	}
	var b bytes.Buffer
	if err := f.write(&b, t); err != nil {
		return nil, fmt.Errorf("export: writing %s: %w", filename, err)
	}
	return &File{Format: f, Body: b.Bytes(), Filename: filename}, nil
}

// boundaries returns the boundaries of rows in degrees, one at a time, and the credits the file
// must carry: the boundaries' (MLIT's wording) and the statistics'. It uses the finer level of
// the dataset's, where every municipality has its shape, however small its island.
func boundaries(c *town.Catalog, rows []*hensachi.Municipality) (shape func(r int) geo.Shape, credits []string, err error) {
	b, err := c.Boundaries()
	if err != nil {
		return nil, nil, fmt.Errorf("export: a format of the boundaries without them: %w", err) // the callers check Available
	}
	fine := &b.Fine
	shape = func(r int) geo.Shape { return fine.Transform.Shape(fine.Shapes[c.Index(rows[r].Code)]) }
	return shape, []string{b.Meta.Credit, statisticsCredit(c)}, nil
}

// fileKey names one file of a version: a format and a prefecture ("" for all).
type fileKey struct {
	format *Format
	pref   string
}

// files are the files of a catalog, each built on first request.
var files = town.NewMemo(func(c *town.Catalog) map[fileKey]*town.Once[*File] {
	m := map[fileKey]*town.Once[*File]{}
	for _, f := range every {
		m[fileKey{f, ""}] = new(town.Once[*File])
		for _, p := range c.Meta.Prefectures {
			m[fileKey{f, p.Code}] = new(town.Once[*File])
		}
	}
	return m
})

// gzipped compresses a body at gzip's default level.
func gzipped(body []byte) []byte {
	var b bytes.Buffer
	z, _ := gzip.NewWriterLevel(&b, gzip.DefaultCompression)
	z.Write(body)
	z.Close()
	return b.Bytes()
}
