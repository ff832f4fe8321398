package ingest

import (
	"archive/zip"
	"bytes"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hensachi/hensachi/internal/testrig/fixtures"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

// The property every parser must have on any input: no panic, no hang, and either an error that
// names the file or a table whose municipalities are all in the code list, with finite figures.
// Seeds are the fixture files, intact and with each fault the file can express.

const fuzzFile = "fuzz/input"

// seedFaults are the corruptions tried on every file; those a file cannot express are skipped.
var seedFaults = []fixtures.Fault{
	{Kind: fixtures.NonNumeric, Code: "01202"},
	{Kind: fixtures.DuplicateCode, Code: "01202"},
	{Kind: fixtures.UnknownCode, Code: "01999"},
	{Kind: fixtures.BadCheckDigit, Code: "13101"},
	{Kind: fixtures.MalformedCode, Code: "13101"},
	{Kind: fixtures.ShortRow, Code: "13101"},
}

// seedMunicipalities keeps the seeds small, since the engine minimizes every new interesting input
// (for up to a minute by default) and that time grows with the input: the designated city with its
// wards, an ordinary city and the special ward still cover every kind of row.
func seedMunicipalities() []fixtures.Municipality {
	return slices.DeleteFunc(fixtures.Default(), func(m fixtures.Municipality) bool {
		return m.Code != "01100" && m.Code != "01202" && m.Code != "13101"
	})
}

// fixtureSeeds returns a file's fixture and its corrupted variants.
func fixtureSeeds(t testing.TB, path string) [][]byte {
	t.Helper()
	ms := seedMunicipalities()
	write := fixtures.Files[path]
	seeds := [][]byte{render(t, write, ms)}
	for _, f := range seedFaults {
		if f.Kind == fixtures.NonNumeric {
			f.Column = nonNumericColumn[path]
		}
		if b, err := fixtures.Bytes(write, ms, fixtures.WithFault(f)); err == nil {
			seeds = append(seeds, b)
		}
	}
	return seeds
}

// nonNumericColumn is a figure column of each file, for the NonNumeric seed.
var nonNumericColumn = map[string]string{
	fixtures.PathSSDSE:              "A1101",
	fixtures.PathSSDSEEdition(2018): "A1101",
	fixtures.PathSSDSEEdition(2020): "A1101",
	fixtures.PathFinance:            financeFiscal,
	fixtures.PathFinanceYear(2005):  financeFiscal,
	fixtures.PathFinanceYear(2011):  financeFiscal,
	fixtures.PathSSDS:               SSDSCommutersOut,
	fixtures.PathFurusatoDetail:     ReceiptsYen,
	fixtures.PathJumin(2020):        "出生者数",
	fixtures.PathJumin(2025):        "出生者数",
}

// storedZip rewrites a workbook without compression and with CRC 0, which archive/zip does not
// verify: byte mutations then reach the XML, and so excelize and the parser, instead of all
// stopping at the checksum of a deflated stream. It leaves out the parts the parsers do not need
// (theme, styles, document properties), which are most of the bytes and would only slow the
// engine's minimizing of each new input.
func storedZip(t testing.TB, xlsx []byte) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(xlsx), int64(len(xlsx)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range zr.File {
		if strings.HasPrefix(f.Name, "xl/theme/") || strings.HasPrefix(f.Name, "docProps/") || f.Name == "xl/styles.xml" {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		content, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.CreateRaw(&zip.FileHeader{Name: f.Name, Method: zip.Store,
			CompressedSize64: uint64(len(content)), UncompressedSize64: uint64(len(content))})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(content); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// checkTable asserts the property on a parser's result.
func checkTable(t *testing.T, tb *Table, err error, cl *CodeList) {
	t.Helper()
	if err != nil {
		if tb != nil {
			t.Errorf("returned a table and the error %v", err)
		}
		if !strings.Contains(err.Error(), fuzzFile) {
			t.Errorf("error %q does not name the file", err)
		}
		return
	}
	if tb == nil {
		t.Fatal("no table and no error")
	}
	for code := range tb.rows {
		if !cl.Has(code) {
			t.Errorf("table lists %q, which is not in the code list", code)
		}
	}
	for name, col := range tb.cols {
		for row, set := range col.set {
			if c := col.cells[row]; set && c.Missing == "" && (math.IsNaN(c.V) || math.IsInf(c.V, 0)) {
				t.Errorf("%s %s = %v", tb.codes[row], name, c.V)
			}
		}
	}
}

// checkCodeList asserts what the rest of the package relies on in a code list.
func checkCodeList(t *testing.T, cl *CodeList, err error) {
	t.Helper()
	if err != nil {
		if !strings.Contains(err.Error(), fuzzFile) {
			t.Errorf("error %q does not name the file", err)
		}
		return
	}
	prefs := map[string]bool{}
	for _, p := range cl.Prefectures {
		prefs[p.Code] = true
	}
	for i, e := range cl.Entries {
		if len(e.Code) != 5 || !isDigits(e.Code) || strings.HasSuffix(e.Code, "000") || e.Name == "" {
			t.Errorf("entry %+v is not a municipality", e)
		}
		if i > 0 && cl.Entries[i-1].Code >= e.Code {
			t.Errorf("entries not in ascending unique order at %s", e.Code)
		}
		if j, ok := cl.index[e.Code]; !ok || j != i {
			t.Errorf("index of %s is %d, %v; want %d", e.Code, j, ok, i)
		}
		if !prefs[e.Prefecture.Code] {
			t.Errorf("%s belongs to prefecture %s, which is not listed", e.Code, e.Prefecture.Code)
		}
	}
	if len(cl.designated) == 0 {
		t.Error("no designated city")
	}
}

// fuzzTable is the harness shared by the targets whose parser returns a table.
func fuzzTable(f *testing.F, seeds [][]byte, parse func(r io.Reader, cl *CodeList) (*Table, error)) {
	cl := fixtureCodeList(f, fixtures.Default())
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tb, err := parse(bytes.NewReader(data), cl)
		checkTable(t, tb, err, cl)
	})
}

func FuzzParseSSDSE(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	cols := ssdseColumns()
	fuzzTable(f, fixtureSeeds(f, fixtures.PathSSDSE), func(r io.Reader, cl *CodeList) (*Table, error) {
		return ParseSSDSE(fuzzFile, r, cl, cols...)
	})
}

// FuzzParseSSDSEEdition reads editions whole, without columns it must have: every item of every
// edition, the older layouts among the seeds.
func FuzzParseSSDSEEdition(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	var seeds [][]byte
	for _, e := range []int{2018, 2020, 2026} {
		seeds = append(seeds, fixtureSeeds(f, fixtures.PathSSDSEEdition(e))...)
	}
	fuzzTable(f, seeds, func(r io.Reader, cl *CodeList) (*Table, error) {
		return ParseSSDSE(fuzzFile, r, cl)
	})
}

func FuzzParseSSDS(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	fuzzTable(f, fixtureSeeds(f, fixtures.PathSSDS), func(r io.Reader, cl *CodeList) (*Table, error) {
		return ParseSSDS(fuzzFile, r, cl)
	})
}

func FuzzParseFurusatoDetail(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	fuzzTable(f, fixtureSeeds(f, fixtures.PathFurusatoDetail), func(r io.Reader, cl *CodeList) (*Table, error) {
		return ParseFurusatoDetail(fuzzFile, r, cl)
	})
}

func FuzzParsePortal(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	fuzzTable(f, fixtureSeeds(f, fixtures.PathPortal), func(r io.Reader, cl *CodeList) (*Table, error) {
		return ParsePortal(fuzzFile, r, cl)
	})
}

func FuzzParseFurusatoHistory(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	fuzzTable(f, fixtureSeeds(f, fixtures.PathFurusatoHistory), func(r io.Reader, cl *CodeList) (*Table, error) {
		return ParseFurusatoHistory(fuzzFile, r, cl)
	})
}

func FuzzParseFurusatoDeductions(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	fuzzTable(f, fixtureSeeds(f, fixtures.PathFurusatoDeductions), func(r io.Reader, cl *CodeList) (*Table, error) {
		tb, _, err := ParseFurusatoDeductions(fuzzFile, r, cl)
		return tb, err
	})
}

// xlsxSeeds are a workbook's fixture seeds, each also stored uncompressed.
func xlsxSeeds(t testing.TB, path string) [][]byte {
	t.Helper()
	var seeds [][]byte
	for _, s := range fixtureSeeds(t, path) {
		seeds = append(seeds, s, storedZip(t, s))
	}
	return seeds
}

func FuzzParseFinance(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	fuzzTable(f, xlsxSeeds(f, fixtures.PathFinance), func(r io.Reader, cl *CodeList) (*Table, error) {
		return ParseFinance(fuzzFile, r, cl, fixtures.FinanceYear)
	})
}

// FuzzParseFinanceXLS reads .xls lists, one by name (FY2005) and one by code (FY2011) among the
// seeds.
func FuzzParseFinanceXLS(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	seeds := append(fixtureSeeds(f, fixtures.PathFinanceYear(2005)), fixtureSeeds(f, fixtures.PathFinanceYear(2011))...)
	fuzzTable(f, seeds, func(r io.Reader, cl *CodeList) (*Table, error) {
		tb, _, err := ParseFinanceXLS(fuzzFile, r, cl, 2005)
		return tb, err
	})
}

func FuzzParseCodeList(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	for _, s := range xlsxSeeds(f, fixtures.PathCodes) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cl, err := ParseCodeList(fuzzFile, bytes.NewReader(data))
		checkCodeList(t, cl, err)
	})
}

// TestStoredWorkbookSeeds makes sure the slimmed, uncompressed workbooks still parse, so that the
// xlsx fuzz targets start from inputs that reach the parsers' own code.
func TestStoredWorkbookSeeds(t *testing.T) {
	ms := seedMunicipalities()
	cl, err := ParseCodeList(fuzzFile, bytes.NewReader(storedZip(t, render(t, fixtures.WriteCodeList, ms))))
	if err != nil {
		t.Fatalf("code list: %v", err)
	}
	if len(cl.Entries) != 3 {
		t.Errorf("code list has %d entries, want 3", len(cl.Entries))
	}
	tb, err := ParseFinance(fuzzFile, bytes.NewReader(storedZip(t, render(t, fixtures.WriteFinance, ms))), cl, fixtures.FinanceYear)
	if err != nil {
		t.Fatalf("finance: %v", err)
	}
	if tb.Len() != 3 {
		t.Errorf("finance has %d rows, want 3", tb.Len())
	}
}

// The raw-bytes workbook targets above spend most of their time in the zip and XML layers, and
// minimizing a new multi-kilobyte input takes the engine up to -fuzzminimizetime. These targets
// fuzz the cell contents instead: the inputs stay small, and every one is a well-formed workbook
// that reaches the parser's own checks.

// cellValue turns a fuzzed string into a workbook cell: a number when it reads as one, since the
// code list stores some codes as numbers.
func cellValue(s string, asNumber bool) any {
	if asNumber {
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			return v
		}
	}
	return s
}

func FuzzParseCodeListCells(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	// Rows of the seed code list: 0 header, 1 prefecture 01, 2 01100, 3 01202, 4 prefecture 13,
	// 5 13101; designated sheet: 0 header, 1 01100, 2 01101, 3 01102.
	f.Add("012025", "北辺道", "青葉市", "011011", false, "11029")
	f.Add("12025", "北辺道", "", "11011", true, "011029")
	f.Add("010006", "北辺道", "", "011002", false, "")
	f.Add("016951", "北辺道", "仮島村", "011010", false, "x")
	f.Add("012025", "東央都", "青葉市", "01101", true, "1.1029e4")
	ms := seedMunicipalities()
	f.Fuzz(func(t *testing.T, code, pref, name, ward string, wardAsNumber bool, ward2 string) {
		data, err := fixtures.Bytes(fixtures.WriteCodeList, ms, fixtures.WithMutate(func(_, sheet string, rows [][]any) [][]any {
			switch sheet {
			case fixtures.SheetCodes:
				rows[3] = []any{cellValue(code, false), pref, name}
			case fixtures.SheetDesignated:
				rows[2][0] = cellValue(ward, wardAsNumber)
				rows[3][0] = cellValue(ward2, true)
			}
			return rows
		}))
		if err != nil {
			t.Skip("excelize cannot write these cells:", err)
		}
		cl, err := ParseCodeList(fuzzFile, bytes.NewReader(data))
		checkCodeList(t, cl, err)
	})
}

func FuzzParseFinanceCells(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	// Rows of the seed workbook: 0 title, 1 header, 2 01100, 3 01202, 4 13101, 5 全国市町村平均.
	f.Add("全市町村の主要財政指標（令和４年度）", "012025", "0.46", false)
	f.Add("（）", "12025", "-", true)
	f.Add("全市町村の主要財政指標（令和４年度", "全国市町村平均", "", false)
	f.Add("x（令和元年度）", "011002", "1e309", true)
	f.Add("", "012024", "NaN", false)
	cl := fixtureCodeList(f, fixtures.Default())
	ms := seedMunicipalities()
	f.Fuzz(func(t *testing.T, title, code, fiscal string, fiscalAsNumber bool) {
		data, err := fixtures.Bytes(fixtures.WriteFinance, ms, fixtures.WithMutate(func(_, _ string, rows [][]any) [][]any {
			rows[0][0] = title
			rows[3][0] = cellValue(code, false)
			rows[3][3] = cellValue(fiscal, fiscalAsNumber)
			return rows
		}))
		if err != nil {
			t.Skip("excelize cannot write these cells:", err)
		}
		tb, err := ParseFinance(fuzzFile, bytes.NewReader(data), cl, fixtures.FinanceYear)
		checkTable(t, tb, err, cl)
	})
}
