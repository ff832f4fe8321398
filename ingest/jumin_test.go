package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hensachi/hensachi/internal/testrig/fixtures"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

// TestParseJumin reads a fixture release of each format: every municipality with its stocks of
// the release's year and its flows of the year before, the national, prefecture and district
// totals, the wards and the note left out.
func TestParseJumin(t *testing.T) {
	ms := fixtures.Default()
	cl := fixtureCodeList(t, ms)
	for _, year := range []int{2017, 2023} { // an .xls and an .xlsx release
		t.Run(fixtures.PathJumin(year), func(t *testing.T) {
			data := render(t, fixtures.Files[fixtures.PathJumin(year)], ms)
			tb, err := ParseJumin(fixtures.PathJumin(year), bytes.NewReader(data), cl, year)
			if err != nil {
				t.Fatal(err)
			}
			if tb.Len() != len(cl.Entries) {
				t.Errorf("%d municipalities, want the code list's %d", tb.Len(), len(cl.Entries))
			}
			if got, want := tb.Years[JuminPopulation], fmt.Sprint(year); got != want {
				t.Errorf("population of %s, want %s", got, want)
			}
			if got, want := tb.Years[JuminBirths], fmt.Sprint(year-1); got != want {
				t.Errorf("births of %s, want %s", got, want)
			}
			want := fixtures.JuminFigures(48000, year, 1) // 青葉市
			for item, v := range map[string]float64{JuminPopulation: want.Population, JuminHouseholds: want.Households, JuminBirths: want.Births,
				JuminDeaths: want.Deaths, JuminMovesIn: want.MovesIn, JuminMovesOut: want.MovesOut} {
				if c := tb.Get("01202", item); c.Missing != "" || c.V != v {
					t.Errorf("01202 %s = %+v, want %v", item, c, v)
				}
			}
		})
	}
}

// TestParseJuminErrors: a release whose date, header or figures are not as expected is an error
// naming the file, and the row and column where there is one.
func TestParseJuminErrors(t *testing.T) {
	ms := fixtures.Default()
	cl := fixtureCodeList(t, ms)
	tests := []struct {
		name   string
		year   int // the release written; the parser is told 2023
		mutate func(rows [][]any) [][]any
		fault  *fixtures.Fault
		want   string
	}{
		{name: "another year", year: 2022, want: "does not name 1 January 2023"},
		{name: "no code header", year: 2023, mutate: func(rows [][]any) [][]any { rows[5][0] = "コード"; return rows }, want: `no header cell "団体コード"`},
		{name: "no births column", year: 2023, mutate: func(rows [][]any) [][]any { rows[4][10] = "出生数"; return rows }, want: `"出生者数"`},
		{name: "population under another group", year: 2023, mutate: func(rows [][]any) [][]any { rows[3][5] = "人員"; return rows }, want: `no column headed "計" under 人口`},
		{name: "births twice", year: 2023, mutate: func(rows [][]any) [][]any { rows[4][16] = "出生者数"; return rows }, want: "two columns are headed 出生者数"},
		{name: "not a count", year: 2023, mutate: func(rows [][]any) [][]any { rows[len(rows)-2][5] = 12.5; return rows }, want: "12.5 is not a count"},
		{name: "bad check digit", year: 2023, fault: &fixtures.Fault{Kind: fixtures.BadCheckDigit, Code: "13101"}, want: "check digit"},
		{name: "unknown municipality", year: 2023, fault: &fixtures.Fault{Kind: fixtures.UnknownCode, Code: "13999"}, want: "13999"},
		{name: "duplicate", year: 2023, fault: &fixtures.Fault{Kind: fixtures.DuplicateCode, Code: "01202"}, want: "duplicate municipality code 01202"},
		{name: "text for a figure", year: 2023, fault: &fixtures.Fault{Kind: fixtures.NonNumeric, Code: "01202", Column: "出生者数"}, want: "not a number"},
		{name: "no workbook", year: 0, want: "neither a readable xls nor xlsx workbook"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte("not a workbook")
			if tt.year != 0 {
				path := fixtures.PathJumin(tt.year)
				var opts []fixtures.Option
				if tt.mutate != nil {
					opts = append(opts, fixtures.WithMutate(func(_, _ string, rows [][]any) [][]any { return tt.mutate(rows) }))
				}
				if tt.fault != nil {
					f := *tt.fault
					f.File = path
					opts = append(opts, fixtures.WithFault(f))
				}
				data = render(t, fixtures.Files[path], ms, opts...)
			}
			_, err := ParseJumin("jumin/x.xlsx", bytes.NewReader(data), cl, 2023)
			var se *SourceError
			if !errors.As(err, &se) || se.File != "jumin/x.xlsx" || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want a SourceError naming the file and saying %q", err, tt.want)
			}
		})
	}
}

// TestParseJuminRealFiles pins figures read by hand from the releases: one .xls and one .xlsx, the
// evacuated 飯舘村, 那珂川 under its present code before and after it became a city, and 栃木市,
// whose territory a merger of 2014-04-05 changed.
func TestParseJuminRealFiles(t *testing.T) {
	raw := testenv.Shared(t, "data/raw")
	f, err := os.Open(filepath.Join(raw, "codes", "000925835.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cl, err := ParseCodeList("codes/000925835.xlsx", f)
	if err != nil {
		t.Fatal(err)
	}
	read := func(year int) *Table {
		t.Helper()
		path := "jumin/" + filepath.Base(fixtures.PathJumin(year))
		f, err := os.Open(filepath.Join(raw, path))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		tb, err := ParseJumin(path, f, cl, year)
		if err != nil {
			t.Fatal(err)
		}
		if tb.Len() != len(cl.Entries) {
			t.Errorf("%s: %d municipalities, want %d", path, tb.Len(), len(cl.Entries))
		}
		return tb
	}
	tests := []struct {
		release    int
		code, item string
		want       float64
	}{
		{2017, "07564", JuminPopulation, 6128}, // jumin-2017.xls row 494: 飯舘村 on 1 January 2017
		{2017, "07564", JuminBirths, 57},       // its births of 2016
		{2017, "07564", JuminHouseholds, 1832},
		{2017, "07564", JuminDeaths, 89},
		{2017, "07564", JuminMovesIn, 45},
		{2017, "07564", JuminMovesOut, 135},
		{2021, "07564", JuminPopulation, 5246},    // jumin-2021.xlsx row 496
		{2021, "07564", JuminBirths, 16},          // its births of 2020
		{2018, "40231", JuminPopulation, 50341},   // written 403059 筑紫郡那珂川町
		{2019, "40231", JuminPopulation, 50420},   // written 402311 那珂川市
		{2025, "01100", JuminPopulation, 1955678}, // 札幌市, not its wards added again
	}
	tables := map[int]*Table{}
	for _, tt := range tests {
		if tables[tt.release] == nil {
			tables[tt.release] = read(tt.release)
		}
		if c := tables[tt.release].Get(tt.code, tt.item); c.Missing != "" || c.V != tt.want {
			t.Errorf("%d %s %s = %+v, want %v", tt.release, tt.code, tt.item, c, tt.want)
		}
	}
	tb := read(2014)
	if c := tb.Get("09203", JuminPopulation); !strings.Contains(c.Missing, "岩舟町 on 2014-04-05") {
		t.Errorf("栃木市 on 1 January 2014 = %+v, want missing: its territory changed since", c)
	}
	tb = read(2015)
	if c := tb.Get("09203", JuminPopulation); c.Missing != "" {
		t.Errorf("栃木市 on 1 January 2015 = %+v, want its figure", c)
	}
	if c := tb.Get("09203", JuminBirths); c.Missing == "" {
		t.Errorf("栃木市's births of 2014 = %+v, want missing: the merger fell within the year", c)
	}
}

// FuzzParseJumin and FuzzParseJuminXLS start from the fixture releases of 2025 (.xlsx) and 2020
// (.xls), each parsed as of its own year so that the seeds pass the title's check.
func FuzzParseJumin(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	fuzzTable(f, xlsxSeeds(f, fixtures.PathJumin(2025)), func(r io.Reader, cl *CodeList) (*Table, error) {
		return ParseJumin(fuzzFile, r, cl, 2025)
	})
}

func FuzzParseJuminXLS(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	fuzzTable(f, fixtureSeeds(f, fixtures.PathJumin(fixtures.JuminXLSTo)), func(r io.Reader, cl *CodeList) (*Table, error) {
		return ParseJumin(fuzzFile, r, cl, fixtures.JuminXLSTo)
	})
}
