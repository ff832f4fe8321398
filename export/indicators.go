package export

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/town"
)

// The indicators in the export: their columns beside the axes' in the table every format writes
// (Table), and their long table, one row per municipality, indicator and survey year (Series).
// Which indicators, which year and which prefecture are the call's to pick, so these files are
// kept in caches of a byte budget each (town.Cache) instead of one per version.

// Budgets of the files picked by their parameters: an export with every indicator's columns
// is about 10 MB of CSV for the whole country and 3 MB gzipped, kept in memory; the long table of
// every indicator about 31 MB of gzipped CSV and 24 MB of Parquet, kept on disk, so that both fit.
const (
	exportBudget = 32 << 20
	seriesBudget = 64 << 20
)

// Selection picks the indicator columns of an export.
type Selection struct {
	// Indicators are positions in the catalogue (town.Catalog.Indicator), in column order.
	Indicators []int
	// Year is a survey year every one of them has; 0 takes each in its latest.
	Year int
}

// key names the selection in a cache.
func (s Selection) key() string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(s.Year))
	for _, i := range s.Indicators {
		b.WriteByte(',')
		b.WriteString(strconv.Itoa(i))
	}
	return b.String()
}

// Table is the table every format writes for rows: Columns, then for each indicator of sel, in
// its survey year, {key}_{year} (the value; an integer for an indicator of no decimals, a count),
// {key}_{year}_rank (national) and {key}_{year}_hensachi, null where the municipality has no value.
func Table(c *town.Catalog, rows []*hensachi.Municipality, sel Selection) []hensachi.Column {
	cols := Columns(&c.Meta, rows)
	if len(sel.Indicators) == 0 {
		return cols
	}
	index := make([]int, len(rows))
	for k, m := range rows {
		index[k] = c.Index(m.Code)
	}
	for _, i := range sel.Indicators {
		ind := c.Indicator(i)
		y := len(ind.Years) - 1
		if sel.Year != 0 {
			y = ind.YearIndex(sel.Year)
		}
		col := c.IndicatorColumn(i, y)
		name := ind.Key + "_" + strconv.Itoa(col.Year)
		value := hensachi.Column{Name: name}
		if ind.Decimals == 0 { // a count, an integer as the statistics of no decimals are
			value.Ints = make([]hensachi.Optional[int64], len(rows))
		} else {
			value.Floats = make([]hensachi.Optional[float64], len(rows))
		}
		rank := hensachi.Column{Name: name + "_rank", Ints: make([]hensachi.Optional[int64], len(rows))}
		score := hensachi.Column{Name: name + "_hensachi", Floats: make([]hensachi.Optional[float64], len(rows))}
		for k, m := range index {
			if value.Ints != nil {
				value.Ints[k] = Whole(col.Values[m])
			} else {
				value.Floats[k] = col.Values[m]
			}
			rank.Ints[k], score.Floats[k] = col.Ranks[m], col.Hensachi[m]
		}
		cols = append(cols, value, rank, score)
	}
	return cols
}

// selectionKey names an export with indicators in its cache.
type selectionKey struct {
	format    *Format
	pref      string
	selection string
}

var withIndicators = town.NewCache[selectionKey, *File](exportBudget, (*File).held)

// WithIndicators returns the file of a prefecture ("" for the whole country) with the indicator
// columns of sel, built on its first request and kept while the budget allows; ok is false for an
// unknown prefecture. The file is named as Of's with "-indicators" before the extension.
func WithIndicators(c *town.Catalog, f *Format, pref string, sel Selection) (file *File, ok bool) {
	if _, ok := c.List(pref); !ok {
		return nil, false
	}
	if len(sel.Indicators) == 0 {
		return Of(c, f, pref)
	}
	return withIndicators.Get(c, selectionKey{f, pref, sel.key()}, func() *File {
		list, _ := c.List(pref)
		name := strings.TrimSuffix(Filename(&c.Meta, pref, f.Name), "."+f.Name) + "-indicators." + f.Name
		file := build(f, c, list.Items, sel, name)
		file.Gzipped()
		return file
	}), true
}

var series = town.NewCache[selectionKey, *File](seriesBudget, (*File).held)

// Series returns the indicators' long table of a prefecture ("" for the whole country) in a
// format that writes in parts (CSV, Parquet; SeriesFormat): one row per municipality, indicator
// (of indicators, catalogue positions) and survey year with a value, ordered by indicator, year
// (oldest first) and code, with the columns code, name, prefecture_code, indicator, year, value,
// rank (national) and hensachi. It is built on its first request and kept while the budget allows:
// on disk, a CSV only gzipped (File.WriteBody gunzips it as it writes). ok is false for an unknown
// prefecture.
func Series(c *town.Catalog, f *Format, pref string, indicators []int) (file *File, ok bool) {
	list, ok := c.List(pref)
	if !ok {
		return nil, false
	}
	return series.Get(c, selectionKey{f, pref, Selection{Indicators: indicators}.key()}, func() *File {
		return buildSeries(c, f, list.Items, indicators, SeriesFilename(&c.Meta, pref, f.Name))
	}), true
}

// SeriesFormat tells whether the long table is written in a format.
func SeriesFormat(f *Format) bool { return f != nil && f.stream != nil }

// SeriesFilename names the long table of a prefecture ("" for the whole country):
// hensachi-indicators[-{pref}]-{data date}.{format}.
func SeriesFilename(meta *hensachi.Meta, pref, format string) string {
	return strings.Replace(Filename(meta, pref, format), "-municipalities", "-indicators", 1)
}

// buildSeries writes the long table one indicator at a time (a part, a Parquet row group) into
// a temporary file, gzipped for a gzipped format, so that it is never whole in memory; without a
// temporary directory it is kept in memory.
func buildSeries(c *town.Catalog, f *Format, rows []*hensachi.Municipality, indicators []int, filename string) *File {
	tmp, err := os.CreateTemp("", "hensachi-series-*")
	if err != nil {
		slog.Warn("export: no temporary file for the long table, kept in memory", "err", err)
		var b bytes.Buffer
		writeSeries(&b, c, f, rows, indicators)
		return &File{Format: f, Body: b.Bytes(), Filename: filename}
	}
	os.Remove(tmp.Name()) // the open file stays readable until it is closed
	bw := bufio.NewWriterSize(tmp, 256<<10)
	var w io.Writer = bw
	var zw *gzip.Writer
	if f.Gzip {
		zw, _ = gzip.NewWriterLevel(bw, gzip.DefaultCompression)
		w = zw
	}
	size := writeSeries(w, c, f, rows, indicators)
	if zw != nil {
		zw.Close()
	}
	if err := bw.Flush(); err != nil {
		panic(fmt.Errorf("export: writing the long table: %w", err)) // a full disk
	}
	info, err := tmp.Stat()
	if err != nil {
		panic(fmt.Errorf("export: the long table's file: %w", err))
	}
	return &File{Format: f, Filename: filename, disk: tmp, size: size, diskSize: info.Size()}
}

// writeSeries writes the long table to w and returns its length.
func writeSeries(w io.Writer, c *town.Catalog, f *Format, rows []*hensachi.Municipality, indicators []int) int64 {
	var n countingWriter
	tw := f.stream(io.MultiWriter(w, &n))
	index := make([]int, len(rows))
	for k, m := range rows {
		index[k] = c.Index(m.Code)
	}
	for _, i := range indicators {
		if err := tw.Write(seriesPart(c, rows, index, i)); err != nil {
			panic(err) // the columns are made to the writers' rules
		}
	}
	if len(indicators) == 0 { // the header, or the schema, of an empty table
		if err := tw.Write(seriesPart(c, nil, nil, -1)); err != nil {
			panic(err)
		}
	}
	if err := tw.Close(); err != nil {
		panic(fmt.Errorf("export: writing the long table: %w", err))
	}
	return int64(n)
}

// seriesPart is indicator i's rows of the long table: every year, oldest first, each in rows'
// order (index: their rows in the catalog), those with a value. i < 0 gives the columns empty.
func seriesPart(c *town.Catalog, rows []*hensachi.Municipality, index []int, i int) []hensachi.Column {
	cols := []hensachi.Column{
		{Name: "code", Strings: []string{}}, {Name: "name", Strings: []string{}}, {Name: "prefecture_code", Strings: []string{}},
		{Name: "indicator", Strings: []string{}}, {Name: "year", Ints: []hensachi.Optional[int64]{}},
		{Name: "value", Floats: []hensachi.Optional[float64]{}}, {Name: "rank", Ints: []hensachi.Optional[int64]{}},
		{Name: "hensachi", Floats: []hensachi.Optional[float64]{}},
	}
	if i < 0 {
		return cols
	}
	ind := c.Indicator(i)
	for y := range ind.Years {
		for k, m := range index {
			p := c.IndicatorPoint(i, y, m)
			if !p.Value.Valid {
				continue
			}
			r := rows[k]
			cols[0].Strings = append(cols[0].Strings, r.Code)
			cols[1].Strings = append(cols[1].Strings, r.Name)
			cols[2].Strings = append(cols[2].Strings, r.Prefecture.Code)
			cols[3].Strings = append(cols[3].Strings, ind.Key)
			cols[4].Ints = append(cols[4].Ints, hensachi.Some(int64(p.Year)))
			cols[5].Floats = append(cols[5].Floats, p.Value)
			cols[6].Ints = append(cols[6].Ints, hensachi.Some(int64(p.Rank)))
			cols[7].Floats = append(cols[7].Floats, hensachi.Some(p.Hensachi))
		}
	}
	return cols
}

// countingWriter counts what is written through it.
type countingWriter int

func (n *countingWriter) Write(p []byte) (int, error) {
	*n += countingWriter(len(p))
	return len(p), nil
}
