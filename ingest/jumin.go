package ingest

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"
	"golang.org/x/text/width"

	"github.com/hensachi/hensachi/xlsfile"
)

// The figures read from a release of 総務省「住民基本台帳に基づく人口、人口動態及び世帯数」, by their
// item name in the formula grammar (jumin.<item>). The stocks are of 1 January of the release's
// year, the flows of the calendar year before.
const (
	JuminPopulation = "population"
	JuminHouseholds = "households"
	JuminBirths     = "births"
	JuminDeaths     = "deaths"
	JuminMovesIn    = "moves_in"
	JuminMovesOut   = "moves_out"
)

// juminColumn is a figure of the workbook and how its header names it: the header's lowest text
// (name), and, where that alone is ambiguous (計), the group it must sit under.
type juminColumn struct {
	item, name, group string
	flow              bool
}

var juminColumns = []juminColumn{
	{item: JuminPopulation, name: "計", group: "人口"},
	{item: JuminHouseholds, name: "世帯数"},
	{item: JuminMovesIn, name: "転入者数（計）", flow: true},
	{item: JuminBirths, name: "出生者数", flow: true},
	{item: JuminMovesOut, name: "転出者数（計）", flow: true},
	{item: JuminDeaths, name: "死亡者数", flow: true},
}

// juminFigures are the items the releases provide, in the order of juminColumns.
var juminFigures = func() []string {
	out := make([]string, len(juminColumns))
	for i, c := range juminColumns {
		out[i] = c.item
	}
	return out
}()

// juminStocks are the items counted on 1 January: a denominator of the jumin_* rules takes them.
var juminStocks = []string{JuminPopulation, JuminHouseholds}

// juminTitleDate finds the date of the stocks in the title: 平成26年1月1日, 令和元年…, 令和7年1月1日.
var juminTitleDate = regexp.MustCompile(`(平成|令和)(元|[0-9]+)年1月1日`)

const (
	juminCode      = "団体コード"
	juminPref      = "都道府県名"
	juminName      = "市区町村名"
	juminNational  = "合計"
	juminMaxHeader = 10 // the header ends within the first rows
)

// ParseJumin reads one release (the file of 1 January year): a BIFF8 .xls or an .xlsx workbook,
// told apart by their first bytes, one sheet. The header is checked (the title's date must be 1
// January of year, and each figure's column is found by its header text); the national total,
// the prefectures' and districts' totals and the designated cities' wards are skipped, and a municipality's code is
// read as its current one. A municipality whose territory a merger changed after 1 January of the
// flows' year (栃木市 and 岩舟町, 2014-04-05) gets missing figures saying so, and the row of a
// municipality the merger absorbed is skipped.
func ParseJumin(file string, r io.Reader, cl *CodeList, year int) (*Table, error) {
	rows, err := juminRows(file, r)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 || len(rows[0]) == 0 {
		return nil, sourceErr(file, 1, "A", "no title row")
	}
	if got, ok := titleYear(rows[0][0]); !ok || got != year {
		return nil, sourceErr(file, 1, "A", "the title %q does not name 1 January %d, the manifest's year", truncate(rows[0][0], 60), year)
	}
	h, err := juminHeader(file, rows)
	if err != nil {
		return nil, err
	}
	t := newTable(file)
	t.reserve = len(rows)
	for _, c := range juminColumns {
		y := year
		if c.flow {
			y--
		}
		t.Years[c.item] = strconv.Itoa(y)
	}
	absorbed := absorbedBy(cl, year)
	for i := h.data; i < len(rows); i++ {
		rec := csvRecord{Line: i + 1, Fields: rows[i]}
		raw := strings.TrimSpace(cellAt(rec.Fields, h.code))
		pref, name := strings.TrimSpace(cellAt(rec.Fields, h.pref)), strings.TrimSpace(cellAt(rec.Fields, h.name))
		switch {
		case raw == "" && pref == "" && name == "":
			continue
		case (raw == "" || raw == "-") && pref == juminNational:
			continue
		case strings.HasPrefix(raw, "注"): // the notes below the table
			continue
		}
		code, err := code5(raw)
		if err != nil {
			return nil, &SourceError{File: file, Row: rec.Line, Column: juminCode, Err: err}
		}
		if name == "" || name == "-" {
			if !strings.HasSuffix(code, "000") {
				return nil, sourceErr(file, rec.Line, juminName, "code %s has no municipality name but is no prefecture", code)
			}
			continue
		}
		code = cl.current(code)
		// a group's total, whose name is no municipality's (02300 東津軽郡, 13360 島しょ), or a
		// municipality a merger absorbed
		if !cl.Has(code) && (!isMunicipalityName(name) || absorbed(pref, name)) {
			continue
		}
		ok, err := cl.admit(file, rec.Line, juminCode, code, pref+name)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		row, err := t.addRow(code, rec.Line, juminCode)
		if err != nil {
			return nil, err
		}
		// a merger since the release's 1 January changed the stocks' territory, one since the
		// flows' 1 January the flows'
		stocksChanged, flowsChanged := changedSince(code, year), changedSince(code, year-1)
		for k, c := range juminColumns {
			why := stocksChanged
			if c.flow {
				why = flowsChanged
			}
			if why != "" {
				t.put(row, c.item, Cell{Missing: why})
				continue
			}
			cell, err := juminCount(file, rec, h.cols[k], c.name)
			if err != nil {
				return nil, err
			}
			t.put(row, c.item, cell)
		}
	}
	if t.Len() == 0 {
		return nil, sourceErr(file, 0, juminCode, "no municipality row")
	}
	return t, nil
}

// isMunicipalityName reports whether a name is of a municipality or ward: 市, 区, 町 or 村 last.
func isMunicipalityName(name string) bool {
	return strings.HasSuffix(name, "市") || strings.HasSuffix(name, "区") || strings.HasSuffix(name, "町") || strings.HasSuffix(name, "村")
}

// juminRows reads the workbook's first sheet, whichever format it is in.
func juminRows(file string, r io.Reader) ([][]string, error) {
	data, err := io.ReadAll(io.LimitReader(r, xlsfile.MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if bytes.HasPrefix(data, []byte{0xD0, 0xCF, 0x11, 0xE0}) { // an OLE2 compound file
		wb, err := xlsfile.Parse(data)
		if err != nil {
			return nil, sourceErr(file, 0, "", "not a readable xls workbook: %v", err)
		}
		if len(wb.Sheets()) == 0 {
			return nil, sourceErr(file, 0, "", "no worksheet")
		}
		rows, err := wb.Rows(wb.Sheets()[0])
		if err != nil {
			return nil, sourceErr(file, 0, "", "%v", err)
		}
		return rows, nil
	}
	f, err := excelize.OpenReader(bytes.NewReader(data))
	if err != nil {
		return nil, sourceErr(file, 0, "", "neither a readable xls nor xlsx workbook: %v", err)
	}
	defer f.Close()
	sheets := f.GetSheetList()
	if len(sheets) == 0 {
		return nil, sourceErr(file, 0, "", "no worksheet")
	}
	rows, err := f.GetRows(sheets[0], excelize.Options{RawCellValue: true})
	if err != nil {
		return nil, sourceErr(file, 0, "", "read sheet %q: %v", sheets[0], err)
	}
	return rows, nil
}

// titleYear reads the western year of the 1 January the title names.
func titleYear(title string) (int, bool) {
	m := juminTitleDate.FindStringSubmatch(width.Narrow.String(title))
	if m == nil {
		return 0, false
	}
	n := 1
	if m[2] != "元" {
		n, _ = strconv.Atoi(m[2])
	}
	if m[1] == "平成" {
		return n + 1988, true
	}
	return n + 2018, true
}

// juminLayout is where a release's figures are: the columns of the code, prefecture and name and
// of each of juminColumns, and the first row below the header.
type juminLayout struct {
	code, pref, name, data int
	cols                   []int
}

// juminHeader finds the columns by their header text. The .xls releases write the header in rows
// 2–4 with merged group cells written once; the .xlsx ones in rows 2–6, every cell written, with
// a row of units last. A column's name is the lowest text above the data in it; its groups are
// the texts above that, a merged cell's text standing for the empty cells to its right.
func juminHeader(file string, rows [][]string) (juminLayout, error) {
	l := juminLayout{code: -1}
	codeRow, leaf := -1, -1 // the row naming the code column, and the row naming the flows (出生者数)
	for i := 1; i < min(len(rows), juminMaxHeader); i++ {
		for j, s := range rows[i] {
			switch strings.TrimSpace(s) {
			case juminCode:
				codeRow, l.code, l.pref, l.name = i, j, j+1, j+2
			case "出生者数":
				leaf = i
			}
		}
	}
	if codeRow < 0 {
		return l, sourceErr(file, 0, juminCode, "no header cell %q in the first %d rows", juminCode, juminMaxHeader)
	}
	if leaf < 0 {
		return l, sourceErr(file, 0, "出生者数", "no header cell %q in the first %d rows", "出生者数", juminMaxHeader)
	}
	for _, c := range []struct {
		j    int
		want string
	}{{l.pref, juminPref}, {l.name, juminName}} {
		if got := strings.TrimSpace(cellAt(rows[codeRow], c.j)); got != c.want {
			return l, sourceErr(file, codeRow+1, c.want, "column %s is headed %q, expected %q beside %q", columnLetter(c.j), truncate(got, 20), c.want, juminCode)
		}
	}
	l.data = max(codeRow, leaf) + 1
	width := 0
	for _, r := range rows[1:l.data] {
		width = max(width, len(r))
	}
	names := make([]string, width)
	groups := make([][]string, width)
	for i := 1; i < l.data; i++ {
		carried := ""
		for j := range width {
			s := strings.TrimSpace(cellAt(rows[i], j))
			if s != "" {
				carried = s
				if i <= leaf {
					names[j] = s
				}
			}
			if i < leaf && carried != "" {
				groups[j] = append(groups[j], carried)
			}
		}
	}
	for _, c := range juminColumns {
		found := -1
		for j := range width {
			if names[j] != c.name || (c.group != "" && !slices.Contains(groups[j], c.group)) {
				continue
			}
			if found >= 0 {
				return l, sourceErr(file, leaf+1, c.name, "two columns are headed %s (%s and %s)", c.name, columnLetter(found), columnLetter(j))
			}
			found = j
		}
		if found < 0 {
			return l, sourceErr(file, leaf+1, c.name, "no column headed %q%s", c.name, under(c.group))
		}
		l.cols = append(l.cols, found)
	}
	return l, nil
}

func under(group string) string {
	if group == "" {
		return ""
	}
	return " under " + group
}

func columnLetter(j int) string {
	name, err := excelize.ColumnNumberToName(j + 1)
	if err != nil {
		return strconv.Itoa(j + 1)
	}
	return name
}

func cellAt(row []string, j int) string {
	if j < 0 || j >= len(row) {
		return ""
	}
	return row[j]
}

// juminCount reads a count: a whole number, not negative.
func juminCount(file string, rec csvRecord, j int, column string) (Cell, error) {
	s, err := field(file, rec, j, column)
	if err != nil {
		return Cell{}, err
	}
	c, err := parseNumber(file, rec.Line, column, s)
	if err != nil {
		return Cell{}, err
	}
	if c.V < 0 || c.V != math.Trunc(c.V) {
		return Cell{}, sourceErr(file, rec.Line, column, "%v is not a count", c.V)
	}
	return c, nil
}

// changedSince says why a municipality's figures of a date's territory are not its own, "" when
// they are: a merger on or after 1 January of year changed its territory since.
func changedSince(code string, year int) string {
	var after []string
	since := strconv.Itoa(year) + "-01-01"
	for _, m := range mergers {
		if m.code == code && m.date >= since {
			after = append(after, fmt.Sprintf("%s on %s", strings.Join(m.absorbed, "・"), m.date))
		}
	}
	if after == nil {
		return ""
	}
	return fmt.Sprintf("territory changed after 1 January %d: merged with %s", year, strings.Join(after, "; "))
}

// absorbedBy reports whether a row names a municipality that a merger after 1 January of the
// flows' year (the year before the release's) absorbed into one of cl: the releases write the
// district before a town's name (下都賀郡岩舟町), so the name is matched at its end.
func absorbedBy(cl *CodeList, year int) func(pref, name string) bool {
	since := strconv.Itoa(year-1) + "-01-01"
	return func(pref, name string) bool {
		for _, m := range mergers {
			e, ok := cl.Entry(m.code)
			if !ok || m.date < since || e.Prefecture.Name != pref {
				continue
			}
			for _, a := range m.absorbed {
				if strings.HasSuffix(foldName(name), foldName(a)) {
					return true
				}
			}
		}
		return false
	}
}

// juminSeries is the series of each item of the releases: a stock's year is its release's, a
// flow's the year before.
func juminSeries(files []edition) map[string]series {
	out := map[string]series{}
	for _, f := range files {
		for _, c := range juminColumns {
			y, _ := strconv.Atoi(f.table.Years[c.item])
			out[c.item] = append(out[c.item], &yearly{year: y, file: f.table.File, at: column{t: f.table, col: c.item}.at})
		}
	}
	return out
}
