package export_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/hensachi/hensachi/export"
	"github.com/hensachi/hensachi/internal/testrig/towntest"
)

// TestExportWithIndicators: three columns per indicator after today's, in the year asked or the
// latest, null where a municipality has no value.
func TestExportWithIndicators(t *testing.T) {
	c := towntest.Catalog()
	f, err := export.WithIndicators(c, export.CSV, "", export.Selection{Indicators: []int{1, 0}})
	if err != nil || !strings.HasSuffix(f.Filename, "-indicators.csv") {
		t.Fatalf("export %v %+v", err, f)
	}
	rows := readCSV(t, f.Body)
	header := rows[0][len(rows[0])-6:]
	want := []string{"fiscal_strength_2022", "fiscal_strength_2022_rank", "fiscal_strength_2022_hensachi",
		"births_per_1000_2023", "births_per_1000_2023_rank", "births_per_1000_2023_hensachi"}
	if !slices.Equal(header, want) || len(rows) != 6 {
		t.Fatalf("columns %v, %d rows", header, len(rows))
	}
	in2020, _ := export.WithIndicators(c, export.CSV, "", export.Selection{Indicators: []int{0}, Year: 2020})
	rows = readCSV(t, in2020.Body)
	last := len(rows[0]) - 3
	// 札内町 (the third row) has no value in 2020; 千代田区 (the fourth) is first
	if rows[0][last] != "births_per_1000_2020" || strings.Join(rows[3][last:], ",") != ",," || strings.Join(rows[4][last:last+2], ",") != "7.1,1" {
		t.Errorf("2020: %v, %v, %v", rows[0][last:], rows[3][last:], rows[4][last:])
	}
	if _, err := export.WithIndicators(c, export.CSV, "99", export.Selection{Indicators: []int{0}}); err == nil {
		t.Error("an unknown prefecture has a file")
	}

	// the special wards only, each with its rank among them after the national one: 中央区 is
	// 3rd in the country and 2nd of the two in 2023 (web/site's ranking among them shows the same)
	peers, err := export.WithIndicators(c, export.CSV, "", export.Selection{Indicators: []int{0}, Year: 2023, Only: true, Peers: "special_ward"})
	if err != nil || !strings.Contains(peers.Filename, "-peers-special_ward-") {
		t.Fatalf("peers: %v %+v", err, peers)
	}
	rows = readCSV(t, peers.Body)
	if got := strings.Join(rows[0][4:], ","); got != "births_per_1000_2023,births_per_1000_2023_rank,births_per_1000_2023_rank_in_peers,births_per_1000_2023_hensachi" || len(rows) != 3 {
		t.Fatalf("peers: columns %s, %d rows", got, len(rows))
	}
	if got := strings.Join([]string{rows[2][0], rows[2][5], rows[2][6]}, ","); got != "13102,3,2" {
		t.Errorf("peers: 中央区 %s, want 13102,3,2", got)
	}
	if _, err := export.WithIndicators(c, export.CSV, "", export.Selection{Indicators: []int{0}, Peers: "nope"}); err == nil {
		t.Error("an unknown group has a file")
	}
}

// TestSeries: the long table has a row per municipality, indicator and year with a value, in
// indicator, year and code order, the same in CSV (kept gzipped, unzipped as written) and in
// Parquet (a row group per indicator).
func TestSeries(t *testing.T) {
	c := towntest.Catalog()
	f, err := export.Series(context.Background(), c, export.CSV, "", []int{0, 1})
	if err != nil || f.Body != nil || f.GzipLen() == 0 {
		t.Fatalf("series %v %+v", err, f)
	}
	var body, gz bytes.Buffer
	if err := f.WriteBody(&body); err != nil || int64(body.Len()) != f.Len() {
		t.Fatalf("body: %v, %d bytes of %d", err, body.Len(), f.Len())
	}
	if err := f.WriteGzipped(&gz); err != nil || !bytes.Equal(gunzip(t, gz.Bytes()), body.Bytes()) {
		t.Fatalf("gzipped: %v", err)
	}
	rows := readCSV(t, body.Bytes())
	if !slices.Equal(rows[0], []string{"code", "name", "prefecture_code", "indicator", "year", "value", "rank", "hensachi"}) || len(rows) != 1+4+5+5 {
		t.Fatalf("header %v, %d rows", rows[0], len(rows))
	}
	if got := strings.Join(rows[1], ","); !strings.HasPrefix(got, "01100,札幌市,01,births_per_1000,2020,6.5,") {
		t.Errorf("first row %s", got)
	}
	if got := strings.Join(rows[5][3:6], ","); got != "births_per_1000,2023,6.1" {
		t.Errorf("row 5 %s, want the first of 2023", got)
	}

	p, _ := export.Series(context.Background(), c, export.Parquet, "", []int{0, 1})
	var b bytes.Buffer
	if err := p.WriteBody(&b); err != nil {
		t.Fatal(err)
	}
	r, err := file.NewParquetReader(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if r.NumRowGroups() != 2 || r.NumRows() != 14 {
		t.Errorf("%d row groups, %d rows", r.NumRowGroups(), r.NumRows())
	}
	tbl, err := pqarrow.ReadTable(context.Background(), bytes.NewReader(b.Bytes()), nil, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	if tbl.NumRows() != 14 || tbl.Schema().Field(4).Name != "year" {
		t.Errorf("%d rows, %v", tbl.NumRows(), tbl.Schema())
	}

	empty, _ := export.Series(context.Background(), c, export.CSV, "", nil)
	body.Reset()
	empty.WriteBody(&body)
	if rows := readCSV(t, body.Bytes()); len(rows) != 1 {
		t.Errorf("no indicators: %d rows", len(rows))
	}
}
