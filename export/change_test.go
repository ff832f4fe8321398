package export_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/hensachi/hensachi/export"
	"github.com/hensachi/hensachi/internal/testrig/towntest"
)

// births_per_1000 2020 → 2023 (a difference in ‰), by row: 札幌市 6.5 → 6.1 (-0.4, rank 4),
// 函館市 5.25 → 5.0 (-0.25, 2), 札内町 none in 2020, 千代田区 7.1 → 6.8 (-0.3, 3), 中央区 5.25 → 5.6
// (+0.35, 1).
var birthsChange = [][]string{{"-0.4", "4"}, {"-0.25", "2"}, {"", ""}, {"-0.3", "3"}, {"0.35", "1"}}

// TestExportChangeColumns: with a change, each indicator's three change columns follow its own,
// the measure in their name, null where a municipality has no change; the file says the years.
func TestExportChangeColumns(t *testing.T) {
	c := towntest.Catalog()
	f, err := export.WithIndicators(c, export.CSV, "", export.Selection{Indicators: []int{0}, Change: [2]int{2020, 2023}})
	if err != nil || !strings.HasSuffix(f.Filename, "-indicators-change-2020-2023.csv") {
		t.Fatalf("export %v %+v", err, f)
	}
	rows := readCSV(t, f.Body)
	n := len(rows[0])
	want := []string{"births_per_1000_2023", "births_per_1000_2023_rank", "births_per_1000_2023_hensachi",
		"births_per_1000_2020_2023_diff", "births_per_1000_2020_2023_diff_rank", "births_per_1000_2020_2023_diff_hensachi"}
	if !slices.Equal(rows[0][n-6:], want) || len(rows) != 6 {
		t.Fatalf("columns %v, %d rows", rows[0][n-6:], len(rows))
	}
	for m, w := range birthsChange {
		if got := rows[1+m][n-3 : n-1]; !slices.Equal(got, w) {
			t.Errorf("row %d (%s): change %v, want %v", m, rows[1+m][0], got, w)
		}
	}
	if rows[3][n-1] != "" || rows[5][n-1] == "" {
		t.Errorf("deviation scores: 札内町 %q, 中央区 %q", rows[3][n-1], rows[5][n-1])
	}
	// the same selection without the change is another file
	plain, _ := export.WithIndicators(c, export.CSV, "", export.Selection{Indicators: []int{0}})
	if bytes.Equal(plain.Body, f.Body) {
		t.Error("the change columns are cached as the file without them")
	}
}

// TestSeriesChange: the long table with a change is the later year's rows with the change beside
// them, the same in CSV and Parquet; a prefecture's is its rows.
func TestSeriesChange(t *testing.T) {
	c := towntest.Catalog()
	f, err := export.SeriesChange(context.Background(), c, export.CSV, "", []int{0}, [2]int{2020, 2023})
	if err != nil || !strings.HasSuffix(f.Filename, "-change-2020-2023.csv") || !strings.Contains(f.Filename, "-indicators") {
		t.Fatalf("series %v %+v", err, f)
	}
	var body, gz bytes.Buffer
	if err := f.WriteBody(&body); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteGzipped(&gz); err != nil || !bytes.Equal(gunzip(t, gz.Bytes()), body.Bytes()) {
		t.Fatalf("gzipped: %v", err)
	}
	rows := readCSV(t, body.Bytes())
	header := []string{"code", "name", "prefecture_code", "indicator", "year", "value", "rank", "hensachi",
		"change_from_year", "change_from_value", "change_measure", "change", "change_rank", "change_hensachi"}
	if !slices.Equal(rows[0], header) || len(rows) != 1+5 {
		t.Fatalf("header %v, %d rows", rows[0], len(rows))
	}
	if got := strings.Join(rows[1][:11], ","); !strings.HasPrefix(got, "01100,札幌市,01,births_per_1000,2023,6.1,2,") || !strings.HasSuffix(got, ",2020,6.5,difference") {
		t.Errorf("first row %s", got)
	}
	if got := strings.Join(rows[3][9:], ","); got != ",difference,,," { // 札内町: no 2020
		t.Errorf("札内町 %s", got)
	}
	for m, w := range birthsChange {
		if got := rows[1+m][11:13]; !slices.Equal(got, w) {
			t.Errorf("row %d (%s): change %v, want %v", m, rows[1+m][0], got, w)
		}
	}
	tokyo, err := export.SeriesChange(context.Background(), c, export.CSV, "13", []int{0}, [2]int{2020, 2023})
	if err != nil {
		t.Fatal(err)
	}
	if rows := readCSV(t, tokyo.Body); len(rows) != 3 || rows[1][0] != "13101" {
		t.Errorf("東京都: %v", rows)
	}

	p, err := export.SeriesChange(context.Background(), c, export.Parquet, "", []int{0}, [2]int{2020, 2023})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := pqarrow.ReadTable(context.Background(), bytes.NewReader(p.Body), nil, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	if tbl.NumRows() != 5 || tbl.Schema().Field(11).Name != "change" || tbl.NumCols() != int64(len(header)) {
		t.Errorf("%d rows, %v", tbl.NumRows(), tbl.Schema())
	}
	if _, err := export.SeriesChange(context.Background(), c, export.CSV, "99", []int{0}, [2]int{2020, 2023}); err == nil {
		t.Error("an unknown prefecture has a file")
	}
}
