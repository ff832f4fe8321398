package export_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/export"
	"github.com/hensachi/hensachi/internal/testrig/realdata"
	"github.com/hensachi/hensachi/internal/testrig/towntest"
)

// readCSV parses an export's CSV, checking the byte-order mark and CRLF line ends.
func readCSV(t *testing.T, body []byte) [][]string {
	t.Helper()
	rest, ok := bytes.CutPrefix(body, []byte("\uFEFF"))
	if !ok {
		t.Fatal("no byte-order mark")
	}
	if !bytes.HasSuffix(rest, []byte("\r\n")) {
		t.Error("lines do not end in CRLF")
	}
	records, err := csv.NewReader(bytes.NewReader(rest)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return records
}

// TestExportCSV: the national CSV export has every column and every municipality in code order,
// its gzip is the same bytes, and it is built once. That every cell is what the JSON API gives is
// serve's TestExportCSVAgreesWithJSON.
func TestExportCSV(t *testing.T) {
	c := realdata.Catalog(t, towntest.PublicURL)
	f, err := export.Of(c, export.CSV, "")
	if err != nil || f.Format.ContentType != "text/csv; charset=utf-8" || !strings.HasSuffix(f.Filename, ".csv") {
		t.Fatalf("export %v %+v", err, f)
	}
	records := readCSV(t, f.Body)
	header := records[0]
	if want := 4 + 4*len(hensachi.Axes) + len(hensachi.Stats) + 7 + len(c.Meta.Furusato.History.FiscalYears); len(header) != want {
		t.Errorf("%d columns, want %d: %v", len(header), want, header)
	}
	if len(records)-1 != c.Len() || c.Len() != 1741 {
		t.Fatalf("%d rows for %d municipalities", len(records)-1, c.Len())
	}
	years := c.Meta.Furusato.History.FiscalYears
	if first := header[len(header)-len(years)]; first != "furusato_history_fy2015_thousand_yen" || years[0] != "平成27年度" {
		t.Errorf("the first year's column is %s, for %s", first, years[0])
	}
	for r, row := range records[1:] {
		if row[0] != c.Row(r).Code {
			t.Errorf("row %d is %s, not %s: not in code order", r, row[0], c.Row(r).Code)
		}
	}
	if unzipped := gunzip(t, f.Gzipped()); !bytes.Equal(unzipped, f.Body) {
		t.Errorf("gzip: %d bytes of %d", len(unzipped), len(f.Body))
	}
	if again, _ := export.Of(c, export.CSV, ""); again != f || &again.Gzipped()[0] != &f.Gzipped()[0] {
		t.Error("the export is built twice")
	}
}

// TestExportParquetRoundTrip reads the Parquet export back with arrow-go: its types, nulls and
// values are those of the columns the CSV is written from.
func TestExportParquetRoundTrip(t *testing.T) {
	c := realdata.Catalog(t, towntest.PublicURL)
	f, err := export.Of(c, export.Parquet, "07")
	if err != nil || f.Format.ContentType != "application/vnd.apache.parquet" || f.Gzipped() != nil || f.Filename != export.Filename(&c.Meta, "07", "parquet") {
		t.Fatalf("export %v %+v", err, f)
	}
	tbl, err := pqarrow.ReadTable(context.Background(), bytes.NewReader(f.Body), nil, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	rows := c.InPrefecture("07")
	want := export.Columns(&c.Meta, rows)
	if int(tbl.NumCols()) != len(want) || int(tbl.NumRows()) != len(rows) {
		t.Fatalf("%d×%d, want %d×%d", tbl.NumRows(), tbl.NumCols(), len(rows), len(want))
	}
	nulls := 0
	for k, col := range want {
		field := tbl.Schema().Field(k)
		if field.Name != col.Name {
			t.Errorf("column %d: %s, want %s", k, field.Name, col.Name)
		}
		chunk := tbl.Column(k).Data().Chunk(0)
		for r := range len(rows) {
			var got, exp string
			switch a := chunk.(type) {
			case *array.String:
				got, exp = a.Value(r), col.Strings[r]
			case *array.Int64:
				if col.Ints == nil {
					t.Fatalf("%s is int64 in the file", col.Name)
				}
				got, exp = optional(a.IsValid(r), strconv.FormatInt(a.Value(r), 10)), optional(col.Ints[r].Valid, strconv.FormatInt(col.Ints[r].V, 10))
			case *array.Float64:
				if col.Floats == nil {
					t.Fatalf("%s is float64 in the file", col.Name)
				}
				got, exp = optional(a.IsValid(r), strconv.FormatFloat(a.Value(r), 'g', -1, 64)), optional(col.Floats[r].Valid, strconv.FormatFloat(col.Floats[r].V, 'g', -1, 64))
			default:
				t.Fatalf("%s: type %s", col.Name, field.Type)
			}
			if got != exp {
				t.Errorf("%s row %d: %q, want %q", col.Name, r, got, exp)
			}
			if chunk.IsNull(r) {
				nulls++
			}
		}
	}
	if tbl.Schema().Field(0).Type.ID() != arrow.STRING || nulls == 0 {
		t.Errorf("code is %s; %d nulls in Fukushima's export (双葉町 has some)", tbl.Schema().Field(0).Type, nulls)
	}
	// the statistics that are counts are integers, as the ranks are, not doubles
	for _, name := range []string{"pop", "nursery", "library", "hospital", "young_rank"} {
		if f, ok := tbl.Schema().FieldsByName(name); !ok || f[0].Type.ID() != arrow.INT64 {
			t.Errorf("%s is %v in the file, want int64", name, f)
		}
	}
}

func optional(valid bool, s string) string {
	if !valid {
		return "null"
	}
	return s
}

// TestExportFiles: a file per format and prefecture, named after the data's date, none of an
// unknown prefecture.
func TestExportFiles(t *testing.T) {
	c := towntest.Catalog()
	f, err := export.Of(c, export.CSV, "01")
	if err != nil || f.Filename != "hensachi-municipalities-01-2026-01-01.csv" || len(readCSV(t, f.Body)) != 4 {
		t.Fatalf("export of 01: %v %+v", err, f)
	}
	if f, _ := export.Of(c, export.Parquet, ""); f.Filename != "hensachi-municipalities-2026-01-01.parquet" || !bytes.HasPrefix(f.Body, []byte("PAR1")) {
		t.Errorf("national Parquet export: %s", f.Filename)
	}
	for _, pref := range []string{"47", "1"} {
		if _, err := export.Of(c, export.CSV, pref); err == nil {
			t.Errorf("export of %q", pref)
		}
	}
	if export.FormatNamed("csv") != export.CSV || export.FormatNamed("parquet") != export.Parquet || export.FormatNamed("xml") != nil {
		t.Error("formats by name")
	}
}

func TestExportCompared(t *testing.T) {
	c := towntest.Catalog()
	rows, err := c.Lookup([]string{"13102", "01100"})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := export.Compared(c, export.CSV, rows)
	records := readCSV(t, f.Body)
	if len(records) != 3 || records[1][0] != "13102" || records[2][0] != "01100" || records[0][0] != "code" || f.Filename != "hensachi-compare-2026-01-01.csv" {
		t.Errorf("records %v, %s", records, f.Filename)
	}
	// 札内町 has no value on the first axis: empty cells, rank_total still given
	f, _ = export.Compared(c, export.CSV, []*hensachi.Municipality{c.Row(c.Index("01345"))})
	if records = readCSV(t, f.Body); records[1][4] != "" || records[1][6] != "" || records[1][7] != "0" {
		t.Errorf("札内町's first axis: %v", records[1][4:8])
	}
}
