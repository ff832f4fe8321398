package export_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/hensachi/hensachi/export"
	"github.com/hensachi/hensachi/internal/testrig/towntest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// TestCSVGolden compares the CSV files of the test catalog with testdata/golden: the English ones
// were written before the Japanese header came and must not change by a byte; the Japanese ones
// show its names, units and credit row. go test -update rewrites them.
func TestCSVGolden(t *testing.T) {
	c := towntest.Catalog()
	ctx := context.Background()
	change := [2]int{2020, 2023}
	cases := map[string]func(f *export.Format) (*export.File, error){
		"municipalities": func(f *export.Format) (*export.File, error) { return export.Of(c, f, "") },
		"municipalities-13": func(f *export.Format) (*export.File, error) {
			return export.Of(c, f, "13")
		},
		"indicators-change": func(f *export.Format) (*export.File, error) {
			return export.WithIndicators(c, f, "", export.Selection{Indicators: []int{0, 1}, Change: change})
		},
		"series":    func(f *export.Format) (*export.File, error) { return export.Series(ctx, c, f, "", []int{0, 1}) },
		"series-13": func(f *export.Format) (*export.File, error) { return export.Series(ctx, c, f, "13", []int{0, 1}) },
		"series-change": func(f *export.Format) (*export.File, error) {
			return export.SeriesChange(ctx, c, f, "", []int{0}, change)
		},
	}
	for name, file := range cases {
		for _, f := range goldenFormats {
			t.Run(name+f.suffix, func(t *testing.T) {
				got, err := file(f.format)
				if err != nil {
					t.Fatal(err)
				}
				var body bytes.Buffer
				if err := got.WriteBody(&body); err != nil {
					t.Fatal(err)
				}
				golden(t, name+f.suffix+".csv", body.Bytes())
			})
		}
	}
}

// golden compares body with testdata/golden/name, which -update rewrites.
func golden(t *testing.T, name string, body []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if !bytes.Equal(body, want) {
		t.Errorf("%s differs (go test -update rewrites it):\n%s", path, body)
	}
}

// goldenFormats are the CSVs of each golden file: the API's and the Japanese one for spreadsheets.
var goldenFormats = []struct {
	suffix string
	format *export.Format
}{{"", export.CSV}, {"-ja", export.JapaneseCSV}}
