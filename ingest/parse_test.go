package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/fixtures"
)

// Rows of the Default fixture, which lists municipalities in code order:
// 01100 白鷺市 (designated, wards 01101 01102), 01202 青葉市, 01345 霧野町, 13101 桜田区 (special ward),
// 13201 八王子市, 13307 星見村, and 01695 仮島村 (Northern Territories, code list only).

// render runs a fixture writer; a failure is a bug in the fixture, not in the parser under test.
func render(t testing.TB, write fixtures.Writer, ms []fixtures.Municipality, opts ...fixtures.Option) []byte {
	t.Helper()
	b, err := fixtures.Bytes(write, ms, opts...)
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	return b
}

// fixtureCodeList parses the fixture code list of ms.
func fixtureCodeList(t testing.TB, ms []fixtures.Municipality) *CodeList {
	t.Helper()
	cl, err := ParseCodeList(fixtures.PathCodes, bytes.NewReader(render(t, fixtures.WriteCodeList, ms)))
	if err != nil {
		t.Fatalf("parse fixture code list: %v", err)
	}
	return cl
}

// edit changes one fixture municipality in place.
func edit(t testing.TB, ms []fixtures.Municipality, code string, fn func(*fixtures.Municipality)) {
	t.Helper()
	i := slices.IndexFunc(ms, func(m fixtures.Municipality) bool { return m.Code == code })
	if i < 0 {
		t.Fatalf("fixture has no municipality %s", code)
	}
	fn(&ms[i])
}

// members are the fixture municipalities the dataset covers.
func members(ms []fixtures.Municipality) []fixtures.Municipality {
	return slices.DeleteFunc(slices.Clone(ms), func(m fixtures.Municipality) bool { return m.Kind == fixtures.NorthernTerritory })
}

// wantSourceError checks that err locates the problem: errors.As finds a *SourceError with the
// file, row and column, the message names them, and it says why.
func wantSourceError(t *testing.T, err error, file string, row int, column, reason string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one at %s row %d column %q", file, row, column)
	}
	var se *SourceError
	if !errors.As(err, &se) {
		t.Fatalf("error %q (%T) is not a *SourceError", err, err)
	}
	if se.File != file || se.Row != row || se.Column != column {
		t.Errorf("error at file %q row %d column %q; want file %q row %d column %q (%v)", se.File, se.Row, se.Column, file, row, column, err)
	}
	msg := err.Error()
	if !strings.Contains(msg, file) {
		t.Errorf("message %q does not name the file %q", msg, file)
	}
	if row > 0 && !strings.Contains(msg, fmt.Sprintf("row %d", row)) {
		t.Errorf("message %q does not name row %d", msg, row)
	}
	if column != "" && !strings.Contains(msg, fmt.Sprintf("column %q", column)) {
		t.Errorf("message %q does not name column %q", msg, column)
	}
	if !strings.Contains(msg, reason) {
		t.Errorf("message %q does not say %q", msg, reason)
	}
}

func wantCell(t *testing.T, tb *Table, code, column string, want float64) {
	t.Helper()
	c := tb.Get(code, column)
	if c.Missing != "" {
		t.Errorf("%s %s: missing (%s), want %v", code, column, c.Missing, want)
		return
	}
	if c.V != want {
		t.Errorf("%s %s = %v, want %v", code, column, c.V, want)
	}
}

func wantMissing(t *testing.T, tb *Table, code, column, why string) {
	t.Helper()
	if c := tb.Get(code, column); c.Missing != why {
		t.Errorf("%s %s = %+v, want missing %q", code, column, c, why)
	}
}

func wantCodes(t *testing.T, tb *Table, ms []fixtures.Municipality) {
	t.Helper()
	var got, want []string
	for code := range tb.rows {
		got = append(got, code)
	}
	for _, m := range members(ms) {
		want = append(want, m.Code)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("table lists %v, want %v", got, want)
	}
}

// malformed is a corrupted fixture file and where the parser must say the problem is.
type malformed struct {
	name   string
	opts   []fixtures.Option
	data   []byte // used instead of the fixture when set
	row    int
	column string
	reason string
	file   string // the file the error names, when not the parsed file
}

func fault(kind fixtures.FaultKind, code, column string) []fixtures.Option {
	return []fixtures.Option{fixtures.WithFault(fixtures.Fault{Kind: kind, Code: code, Column: column})}
}

func faultValue(kind fixtures.FaultKind, code, column, value string, year int) []fixtures.Option {
	return []fixtures.Option{fixtures.WithFault(fixtures.Fault{Kind: kind, Code: code, Column: column, Value: value, Year: year})}
}

func mutate(fn func(sheet string, rows [][]any) [][]any) []fixtures.Option {
	return []fixtures.Option{fixtures.WithMutate(func(_, sheet string, rows [][]any) [][]any { return fn(sheet, rows) })}
}

// runMalformed parses each corrupted file and checks the error.
func runMalformed(t *testing.T, file string, write fixtures.Writer, cases []malformed, parse func(r io.Reader) error) {
	t.Helper()
	ms := fixtures.Default()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.data
			if data == nil {
				data = render(t, write, ms, tc.opts...)
			}
			errFile := file
			if tc.file != "" {
				errFile = tc.file
			}
			wantSourceError(t, parse(bytes.NewReader(data)), errFile, tc.row, tc.column, tc.reason)
		})
	}
}

func TestParseCodeList(t *testing.T) {
	ms := fixtures.Default()
	tests := []struct {
		name string
		opts []fixtures.Option
	}{
		{"as published", nil},
		// A code cell stored as a number loses its leading zero; the designated city must still count.
		{"designated city code as a number", mutate(func(sheet string, rows [][]any) [][]any {
			if sheet == fixtures.SheetDesignated {
				rows[1][0] = 11002.0
			}
			return rows
		})},
		{"blank rows between prefectures", mutate(func(sheet string, rows [][]any) [][]any {
			if sheet == fixtures.SheetCodes {
				rows = slices.Insert(rows, 6, []any{nil, "", nil})
			}
			return rows
		})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cl, err := ParseCodeList(fixtures.PathCodes, bytes.NewReader(render(t, fixtures.WriteCodeList, ms, tc.opts...)))
			if err != nil {
				t.Fatal(err)
			}
			var want []Entry
			for _, m := range members(ms) {
				want = append(want, Entry{Code: m.Code, Name: m.Name, Kana: hensachi.Hiragana(m.Kana), Prefecture: hensachi.Prefecture{Code: m.Code[:2], Name: m.Pref}})
			}
			if !slices.Equal(cl.Entries, want) {
				t.Errorf("entries\n got %v\nwant %v", cl.Entries, want)
			}
			wantPrefs := []hensachi.Prefecture{{Code: "01", Name: "北辺道"}, {Code: "13", Name: "東央都"}}
			if !slices.Equal(cl.Prefectures, wantPrefs) {
				t.Errorf("prefectures %v, want %v", cl.Prefectures, wantPrefs)
			}
			for _, code := range []string{"01695", "01101", "01102", "01000", "13100"} {
				if cl.Has(code) {
					t.Errorf("Has(%s) = true; wards, totals and Northern Territories villages are not municipalities", code)
				}
			}
			if name := cl.designated["01100"]; name != "白鷺市" {
				t.Errorf("designated[01100] = %q, want 白鷺市", name)
			}
			wantWards := []hensachi.Ward{{Code: "01101", Name: "東区", Kana: "ひがしく", City: "01100"}, {Code: "01102", Name: "西区", Kana: "にしく", City: "01100"}}
			if !slices.Equal(cl.Wards, wantWards) {
				t.Errorf("wards %v, want %v", cl.Wards, wantWards)
			}
			for _, o := range []struct{ code, area, want string }{
				{"01101", "北辺道 白鷺市 東区", "ward of a designated city"},
				{"01102", "北辺道 白鷺市 西区", "ward of a designated city"},
				{"01203", "北辺道 青葉市 北区", ""}, // 青葉市 is not designated
				{"13100", "東央都 特別区部", "total of Tokyo's 23 special wards"},
				{"13000", "", "prefecture total"},
				{"01695", "", "Northern Territories village"},
				{"01999", "", ""},
			} {
				if got := cl.outside(o.code, o.area); got != o.want {
					t.Errorf("outside(%s, %q) = %q, want %q", o.code, o.area, got, o.want)
				}
			}
		})
	}
}

func TestParseCodeListMalformed(t *testing.T) {
	const colCode, colPref, colName = "団体コード", "都道府県名（漢字）", "市区町村名（漢字）"
	designated := fixtures.PathCodes + " sheet " + fixtures.SheetDesignated
	runMalformed(t, fixtures.PathCodes, fixtures.WriteCodeList, []malformed{
		{name: "bad check digit", opts: fault(fixtures.BadCheckDigit, "01202", ""), row: 4, column: colCode, reason: "check digit"},
		{name: "bad check digit of a ward", opts: fault(fixtures.BadCheckDigit, "01101", ""), file: designated, row: 3, column: "A", reason: "check digit"},
		{name: "malformed code", opts: fault(fixtures.MalformedCode, "13201", ""), row: 9, column: colCode, reason: "check digit"},
		{name: "duplicate code", opts: fault(fixtures.DuplicateCode, "01202", ""), row: 5, column: colCode, reason: "duplicate municipality code 01202"},
		{name: "missing column", opts: fault(fixtures.MissingColumn, "", colName), row: 1, column: colName, reason: "missing from the header"},
		{name: "short row", opts: fault(fixtures.ShortRow, "01345", colPref), row: 5, column: colPref, reason: "empty prefecture name"},
		{name: "municipality without name", opts: mutate(func(sheet string, rows [][]any) [][]any {
			if sheet == fixtures.SheetCodes {
				rows[8][2] = nil // 13201
			}
			return rows
		}), row: 9, column: colName, reason: "empty municipality name"},
		{name: "prefecture named two ways", opts: mutate(func(sheet string, rows [][]any) [][]any {
			if sheet == fixtures.SheetCodes {
				rows[7][1] = "西央都" // 13101
			}
			return rows
		}), column: colPref, reason: `names prefecture "西央都"`},
		{name: "no designated city", opts: mutate(func(sheet string, rows [][]any) [][]any {
			if sheet == fixtures.SheetDesignated {
				return rows[:1]
			}
			return rows
		}), reason: "lists no designated city"},
		{name: "ward named without its city", opts: mutate(func(sheet string, rows [][]any) [][]any {
			if sheet == fixtures.SheetDesignated {
				rows[2][2] = "東区" // 01101, without 白鷺市
			}
			return rows
		}), file: designated, row: 3, reason: `ward 01101: name "東区" is not the name of a ward of 白鷺市`},
		{name: "ward read without its city", opts: mutate(func(sheet string, rows [][]any) [][]any {
			if sheet == fixtures.SheetDesignated {
				rows[3][4] = "ﾆｼｸ" // 01102, without the city's reading
			}
			return rows
		}), file: designated, row: 4, reason: "ward 01102: reading"},
		{name: "ward without its reading", opts: mutate(func(sheet string, rows [][]any) [][]any {
			if sheet == fixtures.SheetDesignated {
				rows[2] = rows[2][:3]
			}
			return rows
		}), file: designated, row: 3, reason: "has 3 columns"},
		{name: "ward before any city", opts: mutate(func(sheet string, rows [][]any) [][]any {
			if sheet == fixtures.SheetDesignated {
				rows[1], rows[2] = rows[2], rows[1]
			}
			return rows
		}), file: designated, row: 2, reason: "comes before any designated city"},
		{name: "not a workbook", data: []byte("団体コード,都道府県名\n"), reason: "not a readable xlsx workbook"},
	}, func(r io.Reader) error {
		_, err := ParseCodeList(fixtures.PathCodes, r)
		return err
	})
}

// ssdseColumns are the SSDSE-A items the fixture has.
func ssdseColumns() []string {
	var cols []string
	for _, c := range fixtures.SSDSEColumns {
		cols = append(cols, c.Code)
	}
	return cols
}

func TestParseSSDSE(t *testing.T) {
	ms := fixtures.Default()
	cl := fixtureCodeList(t, ms)
	tb, err := ParseSSDSE(fixtures.PathSSDSE, bytes.NewReader(render(t, fixtures.WriteSSDSE, ms)), cl, ssdseColumns()...)
	if err != nil {
		t.Fatal(err)
	}
	wantCodes(t, tb, ms)
	for _, c := range fixtures.SSDSEColumns {
		if tb.Years[c.Code] != c.Year {
			t.Errorf("Years[%s] = %q, want %q", c.Code, tb.Years[c.Code], c.Year)
		}
	}
	for _, m := range members(ms) {
		for _, c := range fixtures.SSDSEColumns {
			wantCell(t, tb, m.Code, c.Code, m.SSDSE[c.Code])
		}
	}
	wantCell(t, tb, "01202", "A1301", 5280) // written by hand into the fixture
	wantCell(t, tb, "01100", "D2203", 88)   // the file writes "88.0"
}

func TestParseSSDSEMalformed(t *testing.T) {
	cl := fixtureCodeList(t, fixtures.Default())
	const codeCol = "SSDSE-A-2026" // the item-code header of the code column
	// The writer escapes quotes, so the broken quoting is spliced into its output.
	unterminated := bytes.Replace(render(t, fixtures.WriteSSDSE, fixtures.Default()), []byte("R01345,"), []byte(`R01345,"x`), 1)
	runMalformed(t, fixtures.PathSSDSE, fixtures.WriteSSDSE, []malformed{
		{name: "non-numeric", opts: fault(fixtures.NonNumeric, "01202", "A1301"), row: 5, column: "A1301", reason: `not a number: "12a"`},
		{name: "blank figure", opts: faultValue(fixtures.NonNumeric, "13307", "I6100", " ", 0), row: 9, column: "I6100", reason: `not a number: ""`},
		{name: "duplicate code", opts: fault(fixtures.DuplicateCode, "01202", ""), row: 6, column: codeCol, reason: "duplicate municipality code 01202"},
		{name: "unknown code", opts: fault(fixtures.UnknownCode, "01999", ""), row: 10, column: codeCol, reason: "unknown municipality code 01999"},
		{name: "malformed code", opts: fault(fixtures.MalformedCode, "13101", ""), row: 7, column: codeCol, reason: "R + 5 digits"},
		{name: "missing column", opts: fault(fixtures.MissingColumn, "", "A1303"), row: 1, column: "A1303", reason: "missing from the header"},
		{name: "short row", opts: fault(fixtures.ShortRow, "13201", "B1101"), row: 8, column: "B1101", reason: "row has 15 fields"},
		{name: "unterminated quote", data: unterminated, row: 6, reason: "malformed CSV"},
		{name: "header rows only", opts: mutate(func(_ string, rows [][]any) [][]any { return rows[:2] }), reason: "expected 3 header rows"},
	}, func(r io.Reader) error {
		_, err := ParseSSDSE(fixtures.PathSSDSE, r, cl, ssdseColumns()...)
		return err
	})
}

func TestParseFinance(t *testing.T) {
	tests := []struct {
		name string
		year int
		edit func(ms []fixtures.Municipality)
		opts []fixtures.Option
	}{
		{name: "FY2022 edition", year: 2022},
		{name: "sheet name with trailing space", year: 2022, opts: []fixtures.Option{fixtures.WithFinanceSheet(fixtures.SheetFinance + " ")}},
		{name: "index not computed", year: 2022, edit: func(ms []fixtures.Municipality) {
			edit(t, ms, "13307", func(m *fixtures.Municipality) { m.Fiscal = math.NaN() })
		}},
		{name: "FY2016: the title names no year", year: 2016},
		{name: "FY2018: the title adds 決算", year: 2018},
		{name: "FY2019: 令和元年度", year: 2019},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ms := fixtures.Default()
			if tc.edit != nil {
				tc.edit(ms)
			}
			path := fixtures.PathFinanceYear(tc.year)
			tb, err := ParseFinance(path, bytes.NewReader(render(t, fixtures.Files[path], ms, tc.opts...)), fixtureCodeList(t, ms), tc.year)
			if err != nil {
				t.Fatal(err)
			}
			wantCodes(t, tb, ms)
			if got, want := tb.Years[financeFiscal], EraFiscalYear(tc.year); got != want {
				t.Errorf("year %q, want %q", got, want)
			}
			wantFinanceFigures(t, tb, ms, tc.year, path)
		})
	}
}

// wantFinanceFigures checks a finance table against the fixture's figures of the year: every
// figure as written, a blank cell as a missing one, the dash of no future burden as 0.
func wantFinanceFigures(t *testing.T, tb *Table, ms []fixtures.Municipality, year int, path string) {
	t.Helper()
	figures := fixtures.FinanceFigures(ms, year)
	for _, m := range members(ms) {
		for _, col := range financeColumns {
			if want := figures[m.Code][col]; math.IsNaN(want) {
				wantMissing(t, tb, m.Code, col, `"" in `+path)
			} else {
				wantCell(t, tb, m.Code, col, want)
			}
		}
	}
}

func TestParseFinanceMalformed(t *testing.T) {
	cl := fixtureCodeList(t, fixtures.Default())
	runMalformed(t, fixtures.PathFinance, fixtures.WriteFinance, []malformed{
		{name: "non-numeric", opts: fault(fixtures.NonNumeric, "01202", financeFiscal), row: 4, column: financeFiscal, reason: `not a number: "12a"`},
		{name: "non-numeric later column", opts: fault(fixtures.NonNumeric, "01202", "ラスパイレス指数"), row: 4, column: "ラスパイレス指数", reason: `not a number: "12a"`},
		{name: "a dash of no declared meaning", opts: faultValue(fixtures.NonNumeric, "01202", financeFiscal, "－", 0), row: 4, column: financeFiscal, reason: "a dash whose meaning for this figure is not declared"},
		{name: "duplicate code", opts: fault(fixtures.DuplicateCode, "01202", ""), row: 5, column: financeCode, reason: "duplicate municipality code 01202"},
		{name: "unknown code", opts: fault(fixtures.UnknownCode, "01999", ""), row: 9, column: financeCode, reason: "unknown municipality code 01999"},
		{name: "bad check digit", opts: fault(fixtures.BadCheckDigit, "13101", ""), row: 6, column: financeCode, reason: "check digit"},
		{name: "missing column", opts: fault(fixtures.MissingColumn, "", financeFiscal), row: 2, column: financeFiscal, reason: "missing from the header"},
		{name: "missing later column", opts: fault(fixtures.MissingColumn, "", "将来負担比率"), row: 2, column: "将来負担比率", reason: "missing from the header"},
		{name: "short row", opts: fault(fixtures.ShortRow, "13201", financeFiscal), row: 7, column: financeFiscal, reason: "row has 3 fields"},
		{name: "title of another year", opts: mutate(func(_ string, rows [][]any) [][]any {
			rows[0][0] = "全市町村の主要財政指標（令和３年度）"
			return rows
		}), row: 1, column: "A", reason: "title names 令和3年度 (FY2021), the manifest says FY2022"},
		{name: "wrong sheet", opts: []fixtures.Option{fixtures.WithFinanceSheet("Sheet1")}, reason: `no sheet "全市町村の主要財政指標"`},
	}, func(r io.Reader) error {
		_, err := ParseFinance(fixtures.PathFinance, r, cl, fixtures.FinanceYear)
		return err
	})
}

func TestParsePortal(t *testing.T) {
	ms := fixtures.Default()
	last := len(fixtures.IncomeYears) - 1
	edit(t, ms, "13201", func(m *fixtures.Municipality) { m.TaxableIncome[last] = math.NaN() }) // no figure for the newest year
	tb, err := ParsePortal(fixtures.PathPortal, bytes.NewReader(render(t, fixtures.WritePortal, ms)), fixtureCodeList(t, ms))
	if err != nil {
		t.Fatal(err)
	}
	wantCodes(t, tb, ms)
	for col, want := range map[string]string{PortalDaytimeRatio: "2020", PortalTaxableIncome: "2023", PortalTaxpayers: "2023"} {
		if tb.Years[col] != want {
			t.Errorf("Years[%s] = %q, want %q", col, tb.Years[col], want)
		}
	}
	for _, m := range members(ms) {
		wantCell(t, tb, m.Code, PortalDaytimeRatio, m.Daytime)
		wantCell(t, tb, m.Code, PortalTaxpayers, m.Taxpayers[last])
		if m.Code == "13201" {
			wantMissing(t, tb, m.Code, PortalTaxableIncome, "null for 2023 in "+fixtures.PathPortal)
			continue
		}
		wantCell(t, tb, m.Code, PortalTaxableIncome, m.TaxableIncome[last])
	}
	wantCell(t, tb, "01100", PortalDaytimeRatio, 100) // written "100", without ".0"
	wantCell(t, tb, "01202", PortalTaxableIncome, 64800000)
}

func TestParsePortalMalformed(t *testing.T) {
	cl := fixtureCodeList(t, fixtures.Default())
	runMalformed(t, fixtures.PathPortal, fixtures.WritePortal, []malformed{
		{name: "non-numeric ratio", opts: fault(fixtures.NonNumeric, "01202", ""), column: "ROWS[01202].A:昼夜間人口比率", reason: "not a number: 12a"},
		{name: "non-numeric income", opts: fault(fixtures.NonNumeric, "01202", PortalTaxableIncome), column: "TSDATA[01202].C120110[13]", reason: "not a number: 12a"},
		{name: "unknown code", opts: fault(fixtures.UnknownCode, "01999", ""), column: "ROWS[01999]", reason: "unknown municipality code 01999"},
		{name: "malformed code", opts: fault(fixtures.MalformedCode, "13101", ""), column: "ROWS[1310]", reason: "not a 5-digit municipality code"},
		{name: "missing column", opts: fault(fixtures.MissingColumn, "", portalDaytimeCol), column: "COLS", reason: `no column "A:昼夜間人口比率"`},
		{name: "missing series", opts: fault(fixtures.MissingColumn, "", PortalTaxpayers), column: "TSMETA.axis", reason: "same, non-empty list of years"},
		{name: "short row", opts: fault(fixtures.ShortRow, "13201", ""), column: "ROWS[13201]", reason: "has 13 values for 14 columns"},
		{name: "not JSON", data: []byte(`{"COLS": [`), reason: "not the expected JSON document"},
	}, func(r io.Reader) error {
		_, err := ParsePortal(fixtures.PathPortal, r, cl)
		return err
	})
}

func TestParseSSDS(t *testing.T) {
	ms := fixtures.Default()
	tb, err := ParseSSDS(fixtures.PathSSDS, bytes.NewReader(render(t, fixtures.WriteSSDS, ms)), fixtureCodeList(t, ms))
	if err != nil {
		t.Fatal(err)
	}
	wantCodes(t, tb, ms) // the wards and the 13100 total are left out
	for col, want := range map[string]string{SSDSWorkers: "2020", SSDSCommutersOut: "2020", SSDSRecyclingRate: "2019"} {
		if tb.Years[col] != want {
			t.Errorf("Years[%s] = %q, want %q", col, tb.Years[col], want)
		}
	}
	for _, m := range members(ms) {
		wantCell(t, tb, m.Code, SSDSWorkers, m.SSDSE["F1102"])
		wantCell(t, tb, m.Code, SSDSCommutersOut, m.CommutersOut)
		if math.IsNaN(m.Recycle) {
			wantMissing(t, tb, m.Code, SSDSRecyclingRate, `"NA" in `+fixtures.PathSSDS)
			continue
		}
		wantCell(t, tb, m.Code, SSDSRecyclingRate, m.Recycle)
	}
}

func TestParseSSDSMalformed(t *testing.T) {
	cl := fixtureCodeList(t, fixtures.Default())
	const colCode = "area_code"
	runMalformed(t, fixtures.PathSSDS, fixtures.WriteSSDS, []malformed{
		{name: "non-numeric", opts: fault(fixtures.NonNumeric, "01202", SSDSCommutersOut), row: 5, column: SSDSCommutersOut, reason: `not a number: "12a"`},
		{name: "missing marker other than NA", opts: faultValue(fixtures.NonNumeric, "13307", SSDSWorkers, "N/A", 0), row: 10, column: SSDSWorkers, reason: `not a number: "N/A"`},
		{name: "duplicate code", opts: fault(fixtures.DuplicateCode, "01202", ""), row: 6, column: colCode, reason: "duplicate municipality code 01202"},
		{name: "unknown code", opts: fault(fixtures.UnknownCode, "01999", ""), row: 11, column: colCode, reason: "unknown municipality code 01999"},
		{name: "malformed code", opts: fault(fixtures.MalformedCode, "01345", ""), row: 6, column: colCode, reason: "not a 5-digit municipality code"},
		{name: "missing column", opts: fault(fixtures.MissingColumn, "", SSDSRecyclingRate), row: 1, column: SSDSRecyclingRate, reason: "missing from the header"},
		{name: "short row", opts: fault(fixtures.ShortRow, "13201", SSDSWorkers), row: 9, column: SSDSWorkers, reason: "row has 4 fields"},
		// A ward of a city that is not designated is not a known kind of row.
		{name: "ward of an ordinary city", opts: mutate(func(_ string, rows [][]any) [][]any {
			return append(rows, []any{"01203", "北辺道 青葉市 北区", "100", "NA", "50", "25", "10", "5", "NA"})
		}), row: 11, column: colCode, reason: "unknown municipality code 01203"},
		{name: "empty file", data: []byte{}, reason: "empty file"},
	}, func(r io.Reader) error {
		_, err := ParseSSDS(fixtures.PathSSDS, r, cl)
		return err
	})
}

func TestParseFurusatoDetail(t *testing.T) {
	ms := fixtures.Default()
	tb, err := ParseFurusatoDetail(fixtures.PathFurusatoDetail, bytes.NewReader(render(t, fixtures.WriteFurusatoDetail, ms)), fixtureCodeList(t, ms))
	if err != nil {
		t.Fatal(err)
	}
	wantCodes(t, tb, ms) // prefecture rows are left out
	if got := tb.FiscalYears(ReceiptsYen); !slices.Equal(got, fixtures.DetailYears) {
		t.Errorf("fiscal years %v, want %v", got, fixtures.DetailYears)
	}
	for _, m := range members(ms) {
		for _, y := range fixtures.DetailYears {
			wantCell(t, tb, m.Code, YearColumn(ReceiptsYen, y), float64(m.Receipts[y].Yen))
			wantCell(t, tb, m.Code, YearColumn(ReceiptsCount, y), float64(m.Receipts[y].Count))
		}
	}
	wantCell(t, tb, "01202", YearColumn(ReceiptsYen, 2024), 1234567890)
	wantCell(t, tb, "01202", YearColumn(ReceiptsCount, 2024), 45678)
}

func TestParseFurusatoDetailMalformed(t *testing.T) {
	cl := fixtureCodeList(t, fixtures.Default())
	const colCode = "団体コード"
	// Each fiscal year has 8 rows (6 municipalities, 2 prefecture totals); FY2024 starts at row 42.
	runMalformed(t, fixtures.PathFurusatoDetail, fixtures.WriteFurusatoDetail, []malformed{
		{name: "non-numeric amount", opts: fault(fixtures.NonNumeric, "01202", ReceiptsYen), row: 43, column: ReceiptsYen, reason: `not a number: "12a"`},
		{name: "non-numeric amount FY2019", opts: faultValue(fixtures.NonNumeric, "01202", ReceiptsYen, "1,2a", 2019), row: 3, column: ReceiptsYen, reason: `not a number: "1,2a"`},
		{name: "fractional count", opts: faultValue(fixtures.NonNumeric, "01202", ReceiptsCount, "12.5", 0), row: 43, column: ReceiptsCount, reason: "not a whole non-negative number"},
		{name: "negative amount", opts: faultValue(fixtures.NonNumeric, "13307", ReceiptsYen, "-5", 0), row: 48, column: ReceiptsYen, reason: "not a whole non-negative number"},
		{name: "not a year", opts: faultValue(fixtures.NonNumeric, "01202", "年度", "FY2024", 0), row: 43, column: "年度", reason: "not a fiscal year"},
		{name: "duplicate code", opts: fault(fixtures.DuplicateCode, "01202", ""), row: 44, column: YearColumn(ReceiptsYen, 2024), reason: "duplicate row for municipality 01202"},
		{name: "unknown code", opts: fault(fixtures.UnknownCode, "01999", ""), row: 50, column: colCode, reason: "unknown municipality code 01999"},
		{name: "bad check digit", opts: fault(fixtures.BadCheckDigit, "13101", ""), row: 46, column: colCode, reason: "check digit"},
		{name: "missing column", opts: fault(fixtures.MissingColumn, "", ReceiptsCount), row: 1, column: ReceiptsCount, reason: "missing from the header"},
		// The year comes after the amounts, so a row cut short first lacks its year.
		{name: "short row", opts: fault(fixtures.ShortRow, "13201", ReceiptsYen), row: 47, column: "年度", reason: "not a fiscal year"},
	}, func(r io.Reader) error {
		_, err := ParseFurusatoDetail(fixtures.PathFurusatoDetail, r, cl)
		return err
	})
}

func TestParseFurusatoHistory(t *testing.T) {
	ms := fixtures.Default()
	tb, err := ParseFurusatoHistory(fixtures.PathFurusatoHistory, bytes.NewReader(render(t, fixtures.WriteFurusatoHistory, ms)), fixtureCodeList(t, ms))
	if err != nil {
		t.Fatal(err)
	}
	wantCodes(t, tb, ms)
	if got := tb.FiscalYears(ReceiptsThousandYen); !slices.Equal(got, fixtures.HistoryYears) {
		t.Errorf("fiscal years %v, want %v", got, fixtures.HistoryYears)
	}
	for _, m := range members(ms) {
		for _, y := range fixtures.HistoryYears {
			wantCell(t, tb, m.Code, YearColumn(ReceiptsThousandYen, y), math.Round(float64(m.Receipts[y].Yen)/1000))
		}
	}
	wantCell(t, tb, "01202", YearColumn(ReceiptsThousandYen, 2015), 98765)
}

func TestParseFurusatoHistoryMalformed(t *testing.T) {
	cl := fixtureCodeList(t, fixtures.Default())
	runMalformed(t, fixtures.PathFurusatoHistory, fixtures.WriteFurusatoHistory, []malformed{
		{name: "non-numeric", opts: fault(fixtures.NonNumeric, "01202", "2016"), column: "[01202][16]", reason: "not a number: 12a"},
		{name: "fractional amount", data: []byte(`{"01202":[1.5,1,3]}`), column: "[01202][0]", reason: "not a whole non-negative number"},
		{name: "null amount", data: []byte(`{"01202":[1,1,null,2,3]}`), column: "[01202][2]", reason: "not a number"},
		{name: "unknown code", opts: fault(fixtures.UnknownCode, "01999", ""), column: "[01999]", reason: "unknown municipality code 01999"},
		{name: "malformed code", opts: fault(fixtures.MalformedCode, "13101", ""), column: "[1310]", reason: "not a 5-digit municipality code"},
		{name: "short row", opts: fault(fixtures.ShortRow, "13201", ""), column: "[13201]", reason: "got 26 numbers"},
		{name: "not an object", data: []byte(`[1, 2]`), reason: "not a JSON object"},
	}, func(r io.Reader) error {
		_, err := ParseFurusatoHistory(fixtures.PathFurusatoHistory, r, cl)
		return err
	})
}

func TestParseFurusatoDeductions(t *testing.T) {
	ms := fixtures.Default()
	tb, src, err := ParseFurusatoDeductions(fixtures.PathFurusatoDeductions, bytes.NewReader(render(t, fixtures.WriteFurusatoDeductions, ms)), fixtureCodeList(t, ms))
	if err != nil {
		t.Fatal(err)
	}
	wantCodes(t, tb, ms)
	want := DeductionSource{FiscalYear: 2024,
		TaxURL:     "https://example.invalid/furusato/deductions-2024.xlsx",
		ReceiptURL: "https://example.invalid/furusato/receipts-2024.xlsx"}
	if src != want {
		t.Errorf("source %+v, want %+v", src, want)
	}
	col := YearColumn(DeductionsYen, 2024)
	if tb.Years[col] != "2024" {
		t.Errorf("Years[%s] = %q, want 2024", col, tb.Years[col])
	}
	for _, m := range members(ms) {
		wantCell(t, tb, m.Code, col, m.DeductionsYen[2024])
	}
	wantCell(t, tb, "01202", col, 234567890.6) // fractions of a yen are kept until the balance is computed
}

func TestParseFurusatoDeductionsMalformed(t *testing.T) {
	cl := fixtureCodeList(t, fixtures.Default())
	runMalformed(t, fixtures.PathFurusatoDeductions, fixtures.WriteFurusatoDeductions, []malformed{
		{name: "non-numeric", opts: fault(fixtures.NonNumeric, "01202", ""), column: "FIVE_YEAR_HISTORY[2024][1]", reason: "not a number: 12a"},
		{name: "duplicate code", opts: fault(fixtures.DuplicateCode, "01202", ""), column: "FIVE_YEAR_HISTORY[2024][2]", reason: "duplicate municipality code 01202"},
		{name: "unknown code", opts: fault(fixtures.UnknownCode, "01999", ""), column: "FIVE_YEAR_HISTORY[2024][6]", reason: "unknown municipality code 01999"},
		{name: "malformed code", opts: fault(fixtures.MalformedCode, "13101", ""), column: "FIVE_YEAR_HISTORY[2024][3]", reason: "not a 5-digit municipality code: 1310"},
		{name: "short row", opts: fault(fixtures.ShortRow, "13201", ""), column: "FIVE_YEAR_HISTORY[2024][4]", reason: "has 4 values"},
		{name: "year key not a year", data: []byte(`{"FIVE_YEAR_HISTORY": {"R6": []}}`), column: "FIVE_YEAR_HISTORY", reason: `key "R6" is not a fiscal year`},
		{name: "no year", data: []byte(`{"FIVE_YEAR_HISTORY": {}}`), column: "FIVE_YEAR_HISTORY", reason: "no fiscal year"},
		// "+2024" reads as 2024, whose rows would then be looked up under "2024" and not found.
		{name: "year key with a sign", data: []byte(`{"FIVE_YEAR_HISTORY": {"+2024": [["01202", 1, 2, 0, 3]]}}`), column: "FIVE_YEAR_HISTORY", reason: `key "+2024" is not a fiscal year`},
	}, func(r io.Reader) error {
		_, _, err := ParseFurusatoDeductions(fixtures.PathFurusatoDeductions, r, cl)
		return err
	})
}

// TestFixturesCoverManifest keeps the fixture paths in step with the manifest Build reads.
func TestFixturesCoverManifest(t *testing.T) {
	man, err := LoadManifest()
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, s := range man.Sources {
		paths = append(paths, s.Path)
	}
	if !slices.Equal(paths, fixtures.Paths) {
		t.Errorf("manifest paths %v, fixture paths %v", paths, fixtures.Paths)
	}
}

// buildFixture writes a raw directory of ms and builds it, returning the log too.
func buildFixture(t *testing.T, ms []fixtures.Municipality, opts ...fixtures.Option) (*Result, string, error) {
	t.Helper()
	dir := t.TempDir()
	if err := fixtures.WriteRaw(dir, ms, opts...); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	var log bytes.Buffer
	res, err := BuildIndicators(dir, slog.New(slog.NewTextHandler(&log, nil)), fixtures.Indicators())
	return res, log.String(), err
}

func TestBuild(t *testing.T) {
	ms := fixtures.Default()
	res, log, err := buildFixture(t, ms)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.HashMismatches) != len(fixtures.Paths) {
		t.Errorf("%d hash mismatches, want one per source (%d)", len(res.HashMismatches), len(fixtures.Paths))
	}
	if !strings.Contains(log, "source file differs from the manifest") {
		t.Errorf("hash mismatches were not warned about; log:\n%s", log)
	}
	mem := members(ms)
	if len(res.Municipalities) != len(mem) {
		t.Fatalf("%d municipalities, want %d", len(res.Municipalities), len(mem))
	}
	axis := func(m hensachi.Municipality, key string) hensachi.Optional[float64] {
		return m.Scores[hensachi.AxisIndex(key)].Value
	}
	stat := func(m hensachi.Municipality, key string) hensachi.Optional[float64] {
		return m.Stats[hensachi.StatIndex(key)]
	}
	check := func(code, field string, got hensachi.Optional[float64], want float64) {
		t.Helper()
		if !got.Valid || got.V != want {
			t.Errorf("%s %s = %+v, want %v", code, field, got, want)
		}
	}
	for i, fm := range mem {
		m := res.Municipalities[i]
		if m.Code != fm.Code || m.Name != fm.Name || m.Prefecture != (hensachi.Prefecture{Code: fm.Code[:2], Name: fm.Pref}) {
			t.Errorf("municipality %d is %s %s %v, want %s %s %s", i, m.Code, m.Name, m.Prefecture, fm.Code, fm.Name, fm.Pref)
			continue
		}
		s := fm.SSDSE
		last := len(fixtures.IncomeYears) - 1
		check(m.Code, "young", axis(m, "young"), hensachi.Round(s["A1301"]/s["A1101"]*100, 2))
		check(m.Code, "shops", axis(m, "shops"), hensachi.Round((s["H6130"]+s["H6131"])/s["A1101"]*10000, 2))
		check(m.Code, "income", axis(m, "income"), hensachi.Round(fm.TaxableIncome[last]*1000/fm.Taxpayers[last]/10000, 1))
		check(m.Code, "inflow", axis(m, "inflow"), hensachi.Round((s["A5101"]-s["A5102"])/s["A1101"]*1000, 2))
		check(m.Code, "daytime", axis(m, "daytime"), fm.Daytime)
		check(m.Code, "pop", stat(m, "pop"), s["A1101"])
		check(m.Code, "area", stat(m, "area"), hensachi.Round(s["B1101"]/100, 2))
		check(m.Code, "density", stat(m, "density"), hensachi.Round(s["A1101"]/(s["B1101"]/100), 1))
		check(m.Code, "jobless", stat(m, "jobless"), hensachi.Round(s["F1107"]/(s["F1102"]+s["F1107"])*100, 2))
		check(m.Code, "fiscal", stat(m, "fiscal"), fm.Fiscal)
		check(m.Code, "commute", stat(m, "commute"), hensachi.Round(fm.CommutersOut/s["F1102"]*100, 2))
		if math.IsNaN(fm.Recycle) {
			if stat(m, "recycle").Valid {
				t.Errorf("%s recycle = %v, want null", m.Code, stat(m, "recycle"))
			}
		} else {
			check(m.Code, "recycle", stat(m, "recycle"), fm.Recycle)
		}

		f := m.Furusato
		receipts, deduction := fm.Receipts[2024].Yen, int64(math.Round(fm.DeductionsYen[2024]))
		if f.ReceiptsYen != hensachi.Some(receipts) || f.ReceiptsCount != hensachi.Some(fm.Receipts[2024].Count) ||
			f.DeductionsYen != hensachi.Some(deduction) || f.BalanceYen != hensachi.Some(receipts-deduction) {
			t.Errorf("%s furusato %+v, want receipts %d count %d deductions %d balance %d",
				m.Code, f, receipts, fm.Receipts[2024].Count, deduction, receipts-deduction)
		}
		if f.DeductionDonors.Valid {
			t.Errorf("%s deduction donors %v, want null (no source)", m.Code, f.DeductionDonors)
		}
		var history []hensachi.Optional[int64]
		for y := 2015; y <= 2024; y++ {
			history = append(history, hensachi.Some(int64(math.Round(float64(fm.Receipts[y].Yen)/1000))))
		}
		if !slices.Equal(f.HistoryThousandYen, history) {
			t.Errorf("%s history %v, want %v", m.Code, f.HistoryThousandYen, history)
		}
	}

	// 青葉市 has round figures: the expected values are worked out by hand.
	aoba := res.Municipalities[1]
	check("01202", "young", axis(aoba, "young"), 11)    // 5280 / 48000
	check("01202", "income", axis(aoba, "income"), 300) // 64,800,000 千円 / 21,600 人
	check("01202", "area", stat(aoba, "area"), 123.45)  // 12,345 ha
	if got := aoba.Furusato.BalanceYen; got != hensachi.Some[int64](999999999) {
		t.Errorf("01202 balance %v, want 1,234,567,890 − 234,567,891", got)
	}
	if got := aoba.Furusato.HistoryThousandYen[0]; got != hensachi.Some[int64](98765) {
		t.Errorf("01202 FY2015 receipts %v 千円, want 98765 (from data.json)", got)
	}

	meta := res.Meta
	wantYears := []string{"平成27年度", "平成28年度", "平成29年度", "平成30年度", "令和元年度",
		"令和2年度", "令和3年度", "令和4年度", "令和5年度", "令和6年度"}
	if !slices.Equal(meta.Furusato.History.FiscalYears, wantYears) {
		t.Errorf("history years %v, want %v", meta.Furusato.History.FiscalYears, wantYears)
	}
	if meta.Furusato.Receipts.FiscalYear != "令和6年度" || meta.Furusato.Deductions.TaxYear != "令和7年度" {
		t.Errorf("furusato receipts %q, deductions %q; want 令和6年度, 令和7年度", meta.Furusato.Receipts.FiscalYear, meta.Furusato.Deductions.TaxYear)
	}
	if meta.Municipalities != len(mem) || len(meta.Prefectures) != 2 {
		t.Errorf("meta counts %d municipalities, %d prefectures; want %d, 2", meta.Municipalities, len(meta.Prefectures), len(mem))
	}
	if src := meta.Stats[hensachi.StatIndex("fiscal")].Source; !strings.Contains(src, "令和4年度") {
		t.Errorf("fiscal source %q does not name the fiscal year", src)
	}

	r := res.Report
	for _, key := range r.Fields() {
		want := 0
		switch key {
		case "recycle":
			want = 1
		case reportDonors, reportCorporate:
			want = len(mem)
		}
		if got := r.Nulls(key); got != want {
			t.Errorf("report: %s has %d nulls, want %d", key, got, want)
		}
	}
	why := `H5614: "NA" in ` + fixtures.PathSSDS
	if got := r.nulls["recycle"][why]; !slices.Equal(got, []string{"13101"}) {
		t.Errorf("report: recycle null for %q: %v, want [13101]; all: %v", why, got, r.nulls["recycle"])
	}
	var text bytes.Buffer
	if _, err := r.WriteTo(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "1  "+why+" (13101 桜田区)") {
		t.Errorf("report text does not name the special ward's null recycling rate:\n%s", text.String())
	}
}

// TestBuildNulls checks that figures a source lacks become nulls with their reason.
func TestBuildNulls(t *testing.T) {
	ms := fixtures.Default()
	last := len(fixtures.IncomeYears) - 1
	edit(t, ms, "13201", func(m *fixtures.Municipality) { m.TaxableIncome[last] = math.NaN() })
	edit(t, ms, "13307", func(m *fixtures.Municipality) { m.Fiscal = math.NaN() })
	edit(t, ms, "01345", func(m *fixtures.Municipality) { m.SSDSE["A1101"] = 0 }) // an evacuated town
	res, _, err := buildFixture(t, ms)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ field, why, code string }{
		{"income", "C120110: null for 2023 in " + fixtures.PathPortal, "13201"},
		{"fiscal", `財政力指数: "" in ` + fixtures.PathFinance, "13307"},
		{"young", "A1101 is 0", "01345"},
		{"daytime", "no residents in the 2020 census (A1101 is 0), so no daytime population ratio; the source's figure is an older census's", "01345"},
		{"recycle", `H5614: "NA" in ` + fixtures.PathSSDS, "13101"},
	}
	for _, tc := range tests {
		if got := res.Report.nulls[tc.field][tc.why]; !slices.Equal(got, []string{tc.code}) {
			t.Errorf("%s null for %q: %v, want [%s]; all: %v", tc.field, tc.why, got, tc.code, res.Report.nulls[tc.field])
		}
	}
	i := slices.IndexFunc(res.Municipalities, func(m hensachi.Municipality) bool { return m.Code == "13201" })
	if v := res.Municipalities[i].Scores[hensachi.AxisIndex("income")].Value; v.Valid {
		t.Errorf("13201 income %v, want null", v)
	}
}

func TestBuildFails(t *testing.T) {
	t.Run("malformed figure", func(t *testing.T) {
		_, _, err := buildFixture(t, fixtures.Default(), fixtures.WithFault(fixtures.Fault{
			File: fixtures.PathSSDS, Kind: fixtures.NonNumeric, Code: "01202", Column: SSDSCommutersOut}))
		wantSourceError(t, err, fixtures.PathSSDS, 5, SSDSCommutersOut, "not a number")
	})
	t.Run("missing file", func(t *testing.T) {
		dir := t.TempDir()
		if err := fixtures.WriteRaw(dir, fixtures.Default()); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(fixtures.PathFurusatoHistory))); err != nil {
			t.Fatal(err)
		}
		_, err := BuildIndicators(dir, slog.New(slog.NewTextHandler(io.Discard, nil)), fixtures.Indicators())
		if err == nil || !strings.Contains(err.Error(), "furusato_history") || !errors.Is(err, os.ErrNotExist) {
			t.Errorf("error %v, want one naming the missing source furusato_history", err)
		}
	})
}

func TestEraFiscalYear(t *testing.T) {
	for _, tc := range []struct {
		year int
		want string
	}{
		{2019, "令和元年度"}, {2015, "平成27年度"}, {2024, "令和6年度"},
		{2018, "平成30年度"}, {2020, "令和2年度"}, {1989, "平成元年度"},
	} {
		if got := EraFiscalYear(tc.year); got != tc.want {
			t.Errorf("EraFiscalYear(%d) = %q, want %q", tc.year, got, tc.want)
		}
	}
}

func TestCheckDigit(t *testing.T) {
	// Worked by hand: weights 6 5 4 3 2, digit = (11 − sum mod 11) mod 10.
	for _, tc := range []struct {
		code string
		want byte
	}{
		{"12345", '5'}, // sum 50, 50 mod 11 = 6, 11 − 6 = 5
		{"00000", '1'}, // sum 0: 11 mod 10 = 1
		{"20000", '0'}, // sum 12, remainder 1: 10 mod 10 = 0
		{"11000", '1'}, // sum 11, remainder 0
		{"01100", '2'}, // sum 9
	} {
		if got := hensachi.CheckDigit(tc.code); got != tc.want {
			t.Errorf("hensachi.CheckDigit(%s) = %c, want %c", tc.code, got, tc.want)
		}
	}
	// The fixture computes the rule on its own; the two must agree on every code.
	for n := range 100000 {
		code := fmt.Sprintf("%05d", n)
		if got, want := hensachi.CheckDigit(code), fixtures.CheckDigit(code); got != want {
			t.Fatalf("hensachi.CheckDigit(%s) = %c, fixtures.CheckDigit = %c", code, got, want)
		}
	}
}

func TestCode5(t *testing.T) {
	for _, tc := range []struct {
		raw, want, err string
	}{
		{raw: "123455", want: "12345"},
		{raw: " 123455 ", want: "12345"},
		{raw: "11002", want: "01100"}, // a number cell lost the leading zero of 011002
		{raw: "123456", err: "check digit 6, expected 5"},
		{raw: "12345", err: "check digit 5, expected 3"}, // read as 012345
		{raw: "1234567", err: "not a 6-digit municipality code"},
		{raw: "12a455", err: "not a 6-digit municipality code"},
		{raw: "", err: "not a 6-digit municipality code"},
		{raw: "１２３４５５", err: "not a 6-digit municipality code"}, // full-width digits
	} {
		got, err := code5(tc.raw)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("code5(%q) = %q, %v; want %q", tc.raw, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("code5(%q) = %q, %v; want error %q", tc.raw, got, err, tc.err)
		}
	}
}

// TestFixturesDeterministic guards the byte-for-byte stability the fuzz seeds and test rows rely on.
func TestFixturesDeterministic(t *testing.T) {
	for _, p := range fixtures.Paths {
		a := render(t, fixtures.Files[p], fixtures.Default())
		b := render(t, fixtures.Files[p], fixtures.Default())
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs", p)
		}
	}
}
