package town

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/binary"
	"encoding/csv"
	"hash/crc32"
	"strconv"
	"strings"
	"sync"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/parquetfile"
)

// The bulk export (GET /town/v1/export): every municipality, or one prefecture's, in code order, as
// CSV, JSON or Parquet. The three formats carry the same columns (ExportColumns); each body is
// built on its first request and kept with the catalog, so a call only writes bytes.

// Format is the file format of an export, as the API's format parameter names it.
type Format string

const (
	CSV     Format = "csv"
	JSON    Format = "json"
	Parquet Format = "parquet"
)

// Formats are the export formats, in the order the API documents them.
var Formats = []Format{CSV, JSON, Parquet}

// Export is one prebuilt export of a dataset version.
type Export struct {
	Format Format
	// Body is the file for CSV and Parquet; for JSON it is the "data":… member of the API's
	// envelope, like the other bodies of this package.
	Body []byte
	// Gzip is Body gzipped for CSV; nil for Parquet, whose pages are compressed inside the file,
	// and for JSON, whose envelope carries the call's usage (see GzipEnvelope).
	Gzip        []byte
	ContentType string
	// Filename names the download: hensachi-municipalities[-pref]-{data date}.{format}.
	Filename string
	// gzipStart is a gzip header and the deflate blocks of EnvelopeHead and Body, flushed to a byte
	// boundary and not final, with the CRC-32 and size of what they hold (JSON only).
	gzipStart []byte
	gzipCRC   uint32
	gzipSize  uint32
}

// EnvelopeHead is how the API's success envelope starts, before the data member.
const EnvelopeHead = `{"success":true,`

// GzipEnvelope returns the gzip stream of EnvelopeHead, the body and tail (the rest of the envelope:
// the call's usage and the closing brace) of a JSON export, in two parts to write one after the
// other: the body's compressed part, made once, and the end made for tail, which goes in a stored
// block, so a call compresses nothing.
func (e *Export) GzipEnvelope(tail []byte) (start, end []byte) {
	end = make([]byte, 0, len(tail)+13)
	end = append(end, 1) // BFINAL, stored; the start ends on a byte boundary (RFC 1951 §3.2.4)
	end = binary.LittleEndian.AppendUint16(end, uint16(len(tail)))
	end = binary.LittleEndian.AppendUint16(end, ^uint16(len(tail)))
	end = append(end, tail...)
	end = binary.LittleEndian.AppendUint32(end, crc32.Update(e.gzipCRC, crc32.IEEETable, tail))
	end = binary.LittleEndian.AppendUint32(end, e.gzipSize+uint32(len(tail)))
	return e.gzipStart, end
}

// exportKey names one export: a format and a prefecture ("" for all).
type exportKey struct {
	format Format
	pref   string
}

// lazyExport is built on first request.
type lazyExport struct {
	once   sync.Once
	export *Export
}

// Export returns the export of a prefecture ("" for the whole country) in a format, building it
// on first request; ok is false for an unknown format or prefecture.
func (c *Catalog) Export(format Format, pref string) (e *Export, ok bool) {
	l, ok := c.exports[exportKey{format, pref}]
	if !ok {
		return nil, false
	}
	l.once.Do(func() { l.export = c.buildExport(format, pref) })
	return l.export, true
}

func (c *Catalog) buildExport(format Format, pref string) *Export {
	rows := c.byPref[pref]
	name := "hensachi-municipalities-"
	var prefecture *hensachi.Prefecture
	if pref == "" {
		rows = make([]int, len(c.towns))
		for i := range rows {
			rows[i] = i
		}
	} else {
		p := c.prefs[pref]
		prefecture = &p
		name += pref + "-"
	}
	e := &Export{Format: format, Filename: name + c.Meta.DataUpdated + "." + string(format)}
	switch format {
	case CSV:
		e.Body, e.ContentType = c.csv(rows), "text/csv; charset=utf-8"
		e.Gzip = gzipped(e.Body)
	case Parquet:
		var b bytes.Buffer
		if err := parquetfile.Write(&b, c.ExportColumns(rows)); err != nil {
			panic(err) // the columns are made to the writer's rules, in memory
		}
		e.Body, e.ContentType = b.Bytes(), "application/vnd.apache.parquet"
	case JSON:
		e.Body, e.ContentType = c.itemsData(prefecture, rows), "application/json"
		e.gzipStart, e.gzipCRC, e.gzipSize = gzipUnfinished(EnvelopeHead, e.Body)
	}
	return e
}

// itemsData is `"data":{"prefecture":…,"total":n,"items":[…]}` with the municipality objects of
// the rows, as GET /town/v1/municipalities/{code} gives them.
func (c *Catalog) itemsData(prefecture *hensachi.Prefecture, rows []int) []byte {
	var b bytes.Buffer
	b.WriteString(`"data":{"prefecture":`)
	if prefecture == nil {
		b.WriteString("null")
	} else {
		b.Write(bytes.TrimPrefix(dataMember(prefecture), []byte(`"data":`)))
	}
	b.WriteString(`,"total":` + strconv.Itoa(len(rows)) + `,"items":[`)
	for k, i := range rows {
		if k > 0 {
			b.WriteByte(',')
		}
		b.Write(c.municipalityObject(i))
	}
	b.WriteString("]}")
	return b.Bytes()
}

// municipalityObject is the municipality of row i as a JSON object.
func (c *Catalog) municipalityObject(i int) []byte {
	return c.MunicipalityData(i)[len(`"data":`):]
}

// ExportCSV is the CSV export of the given municipalities in the order given (for a comparison);
// it fails with not_found naming the first unknown code.
func (c *Catalog) ExportCSV(codes []string) ([]byte, error) {
	rows, err := c.rows(codes)
	if err != nil {
		return nil, err
	}
	return c.csv(rows), nil
}

// rows returns the rows of codes, in their order.
func (c *Catalog) rows(codes []string) ([]int, error) {
	rows := make([]int, len(codes))
	for k, code := range codes {
		i, ok := c.byCode[code]
		if !ok {
			return nil, notFound(code)
		}
		rows[k] = i
	}
	return rows, nil
}

// csv writes the export columns of rows as CSV for spreadsheets: UTF-8 with a byte-order mark (so
// Excel reads the names as UTF-8), a header row, CRLF line ends (RFC 4180), an empty cell for null.
func (c *Catalog) csv(rows []int) []byte {
	cols := c.ExportColumns(rows)
	var b bytes.Buffer
	b.WriteString("\uFEFF")
	w := csv.NewWriter(&b)
	w.UseCRLF = true
	record := make([]string, len(cols))
	for k, col := range cols {
		record[k] = col.Name
	}
	w.Write(record)
	for r := range rows {
		for k, col := range cols {
			record[k] = cell(col, r)
		}
		w.Write(record)
	}
	w.Flush()
	return b.Bytes()
}

// cell is value r of a column as the JSON API writes it (encoding/json's form for the numbers of
// this dataset), empty for null.
func cell(col parquetfile.Column, r int) string {
	switch {
	case col.Strings != nil:
		return col.Strings[r]
	case col.Ints != nil:
		if v := col.Ints[r]; v.Valid {
			return strconv.FormatInt(v.V, 10)
		}
	default:
		if v := col.Floats[r]; v.Valid {
			return strconv.FormatFloat(v.V, 'f', -1, 64)
		}
	}
	return ""
}

// ExportColumns are the columns of the export of rows, one value per row, the values of
// MunicipalityData: code, name, prefecture_code, prefecture_name; per axis {axis}_hensachi,
// {axis}_value, {axis}_rank, {axis}_rank_total; each statistic by its key; the hometown-tax
// figures as furusato_{receipts,deductions,balance}_… and furusato_history_fy{year}_thousand_yen
// for each fiscal year of the history.
func (c *Catalog) ExportColumns(rows []int) []parquetfile.Column {
	n := len(rows)
	str := func(name string, v func(m *hensachi.Municipality) string) parquetfile.Column {
		col := parquetfile.Column{Name: name, Strings: make([]string, n)}
		for k, i := range rows {
			col.Strings[k] = v(&c.towns[i])
		}
		return col
	}
	ints := func(name string, v func(m *hensachi.Municipality) hensachi.Optional[int64]) parquetfile.Column {
		col := parquetfile.Column{Name: name, Ints: make([]hensachi.Optional[int64], n)}
		for k, i := range rows {
			col.Ints[k] = v(&c.towns[i])
		}
		return col
	}
	floats := func(name string, v func(m *hensachi.Municipality) hensachi.Optional[float64]) parquetfile.Column {
		col := parquetfile.Column{Name: name, Floats: make([]hensachi.Optional[float64], n)}
		for k, i := range rows {
			col.Floats[k] = v(&c.towns[i])
		}
		return col
	}
	rank := func(r int, valid bool) hensachi.Optional[int64] {
		return hensachi.Optional[int64]{V: int64(r), Valid: valid}
	}
	cols := []parquetfile.Column{
		str("code", func(m *hensachi.Municipality) string { return m.Code }),
		str("name", func(m *hensachi.Municipality) string { return m.Name }),
		str("prefecture_code", func(m *hensachi.Municipality) string { return m.Prefecture.Code }),
		str("prefecture_name", func(m *hensachi.Municipality) string { return m.Prefecture.Name }),
	}
	for a, ax := range hensachi.Axes {
		total := int64(c.Meta.Axes[a].Count)
		cols = append(cols,
			floats(ax.Key+"_hensachi", func(m *hensachi.Municipality) hensachi.Optional[float64] {
				s := m.Scores[a]
				return hensachi.Optional[float64]{V: s.Hensachi, Valid: s.Value.Valid}
			}),
			floats(ax.Key+"_value", func(m *hensachi.Municipality) hensachi.Optional[float64] { return m.Scores[a].Value }),
			ints(ax.Key+"_rank", func(m *hensachi.Municipality) hensachi.Optional[int64] {
				return rank(m.Scores[a].Rank, m.Scores[a].Value.Valid)
			}),
			ints(ax.Key+"_rank_total", func(*hensachi.Municipality) hensachi.Optional[int64] { return hensachi.Some(total) }))
	}
	for s, st := range hensachi.Stats {
		cols = append(cols, floats(st.Key, func(m *hensachi.Municipality) hensachi.Optional[float64] { return m.Stats[s] }))
	}
	cols = append(cols,
		ints("furusato_receipts_amount_yen", func(m *hensachi.Municipality) hensachi.Optional[int64] { return m.Furusato.ReceiptsYen }),
		ints("furusato_receipts_count", func(m *hensachi.Municipality) hensachi.Optional[int64] { return m.Furusato.ReceiptsCount }),
		ints("furusato_receipts_rank", func(m *hensachi.Municipality) hensachi.Optional[int64] {
			return rank(m.Furusato.ReceiptsRank, m.Furusato.ReceiptsYen.Valid)
		}),
		ints("furusato_deductions_amount_yen", func(m *hensachi.Municipality) hensachi.Optional[int64] { return m.Furusato.DeductionsYen }),
		ints("furusato_deductions_donors", func(m *hensachi.Municipality) hensachi.Optional[int64] { return m.Furusato.DeductionDonors }),
		ints("furusato_balance_amount_yen", func(m *hensachi.Municipality) hensachi.Optional[int64] { return m.Furusato.BalanceYen }),
		ints("furusato_balance_rank", func(m *hensachi.Municipality) hensachi.Optional[int64] {
			return rank(m.Furusato.BalanceRank, m.Furusato.BalanceYen.Valid)
		}))
	for y, label := range c.Meta.Furusato.History.FiscalYears {
		cols = append(cols, ints("furusato_history_"+fiscalYearKey(label)+"_thousand_yen", func(m *hensachi.Municipality) hensachi.Optional[int64] {
			return m.Furusato.HistoryThousandYen[y]
		}))
	}
	return cols
}

// fiscalYearKey names a fiscal year such as 令和6年度 in a column name: fy2024. A label in no era
// this knows is kept as it is.
func fiscalYearKey(label string) string {
	for _, era := range []struct {
		name string
		base int // the Western year of the era's year 0
	}{{"令和", 2018}, {"平成", 1988}} {
		n, ok := strings.CutPrefix(label, era.name)
		if !ok {
			continue
		}
		n = strings.TrimSuffix(strings.TrimSuffix(n, "年度"), "年")
		if n == "元" {
			n = "1"
		}
		if y, err := strconv.Atoi(n); err == nil {
			return "fy" + strconv.Itoa(era.base+y)
		}
	}
	return label
}

// gzipped compresses a body once per dataset version, at gzip's default level.
func gzipped(body []byte) []byte {
	var b bytes.Buffer
	z, _ := gzip.NewWriterLevel(&b, gzip.DefaultCompression)
	z.Write(body)
	z.Close()
	return b.Bytes()
}

// gzipUnfinished starts a gzip stream of head and body: the header and their deflate blocks,
// flushed to a byte boundary with none final, and the CRC-32 and size of the two, for
// Export.GzipEnvelope to finish.
func gzipUnfinished(head string, body []byte) (start []byte, crc, size uint32) {
	var b bytes.Buffer
	// RFC 1952 header: magic, deflate, no flags, no time, no extra flags, unknown OS
	b.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255})
	f, _ := flate.NewWriter(&b, flate.DefaultCompression)
	f.Write([]byte(head))
	f.Write(body)
	f.Flush()
	crc = crc32.Update(crc32.ChecksumIEEE([]byte(head)), crc32.IEEETable, body)
	return b.Bytes(), crc, uint32(len(head) + len(body))
}
