package ingest

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"
	"golang.org/x/text/width"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/xlsfile"
)

const (
	financeSheet  = "全市町村の主要財政指標"
	financeCode   = "団体コード"
	financeFiscal = "財政力指数"
)

// eraYear finds a fiscal year written the Japanese way (令和４年度, 平成30年度決算, 令和元年度) in a
// title, once its digits are narrowed.
var eraYear = regexp.MustCompile(`(平成|令和)(元|[0-9]+)年度`)

// ParseFinance reads a 総務省 workbook 全市町村の主要財政指標 of a fiscal year (xlsx, FY2016 on):
// every figure of financeColumns, by header. Where a figure is not computed the workbook writes "-"
// (or "－"), which becomes a missing cell. The fiscal year comes from the manifest, since the
// FY2016 and FY2017 workbooks do not name it; where the title names one
// (全市町村の主要財政指標（令和４年度）) it must agree. A code a municipality carried in older years
// is read as its current one.
func ParseFinance(file string, r io.Reader, cl *CodeList, fiscalYear int) (*Table, error) {
	f, err := excelize.OpenReader(r)
	if err != nil {
		return nil, sourceErr(file, 0, "", "not a readable xlsx workbook: %v", err)
	}
	defer f.Close()
	rows, err := sheetRows(f, file, financeSheet)
	if err != nil {
		return nil, err
	}
	l, err := newFinanceList(file, rows, fiscalYear, append([]string{financeCode}, financeColumns...))
	if err != nil {
		return nil, err
	}
	for i, row := range rows[2:] {
		rec := csvRecord{Line: i + 3, Fields: row}
		raw, _ := field(file, rec, l.idx[financeCode], financeCode)
		if !strings.ContainsAny(raw, "0123456789") { // the 全国市町村平均 row has a label, not a code
			continue
		}
		code, err := code5(raw)
		if err != nil {
			return nil, &SourceError{File: file, Row: rec.Line, Column: financeCode, Err: err}
		}
		code = cl.current(code)
		ok, err := cl.admit(file, rec.Line, financeCode, code, "")
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if err := l.addFigures(code, rec, ""); err != nil {
			return nil, err
		}
	}
	return l.t, nil
}

// financeList is a list being read: its table and the columns of its header (row 2).
type financeList struct {
	file    string
	t       *Table
	idx     map[string]int
	columns []string // the figures of financeColumns the list has
}

// newFinanceList checks a list's title and header: the title's fiscal year, where it names one,
// must be fiscalYear, and the header must name 団体コード and the figures required.
func newFinanceList(file string, rows [][]string, fiscalYear int, required []string) (*financeList, error) {
	if len(rows) < 2 || len(rows[0]) == 0 {
		return nil, sourceErr(file, 1, "", "expected a title row and a header row")
	}
	if m := eraYear.FindStringSubmatch(width.Narrow.String(rows[0][0])); m != nil {
		n := 1
		if m[2] != "元" {
			n, _ = strconv.Atoi(m[2])
		}
		year := n + 2018
		if m[1] == "平成" {
			year = n + 1988
		}
		if year != fiscalYear {
			return nil, sourceErr(file, 1, "A", "title names %s (FY%d), the manifest says FY%d", m[0], year, fiscalYear)
		}
	}
	l := &financeList{file: file, t: newTable(file)}
	l.t.reserve = len(rows) - 2
	var err error
	if l.idx, err = columnIndex(file, 2, rows[1], exactHeader, required...); err != nil {
		return nil, err
	}
	for _, c := range append([]string{financeCode}, financeColumns...) {
		if _, ok := l.idx[c]; !ok {
			if more, err := columnIndex(file, 2, rows[1], exactHeader, c); err == nil { // a column some years have
				l.idx[c] = more[c]
			}
		}
		if _, ok := l.idx[c]; ok && c != financeCode {
			l.columns = append(l.columns, c)
			l.t.Years[c] = EraFiscalYear(fiscalYear)
		}
	}
	return l, nil
}

// addFigures adds a municipality's row with its figures, or, where why is not empty, with every
// figure missing for that reason.
func (l *financeList) addFigures(code string, rec csvRecord, why string) error {
	row, err := l.t.addRow(code, rec.Line, financeCode)
	if err != nil {
		return err
	}
	for _, c := range l.columns {
		if why != "" {
			l.t.put(row, c, Cell{Missing: why})
			continue
		}
		s, err := field(l.file, rec, l.idx[c], c)
		if err != nil {
			return err
		}
		// The FY2008 list writes the special wards' 財政力指数 and 経常収支比率 in brackets, "(0.80)":
		// figures computed with 特別区財政調整交付金 in place of 地方交付税, as every year's are (the
		// FY2005 list's note 3), which the other lists write plainly.
		if inner, ok := strings.CutPrefix(strings.TrimSpace(s), "("); ok {
			s, _ = strings.CutSuffix(inner, ")")
		}
		cell, err := financeFigure(l.file, rec.Line, c, s)
		if err != nil {
			return err
		}
		l.t.put(row, c, cell)
	}
	return nil
}

// dashMeaning is what a dash (「-」 or 「－」) stands for in one column of the finance lists.
type dashMeaning struct {
	zero bool   // the figure is 0, ranked and counted as any other
	why  string // what the ministry means by it, for the report or beside the 0
}

// financeDashes declares, per figure, what the lists mean by a dash; a dash in a column not
// declared here is an error, so that a new list's dashes are read as the ministry meant them
// rather than silently as missing. 将来負担比率 is written 「－」 when 充当可能財源等 cover the
// whole 将来負担額: there is no net future burden, 0 %, which the ministry's own tables rank
// first (the 899 municipalities of FY2022 among them). ラスパイレス指数 is not computed for a
// municipality newly formed by a merger on the survey's day or whose survey was not held (the
// towns of the 2011 disaster in FY2011): no figure.
var financeDashes = map[string]dashMeaning{
	"将来負担比率":   {zero: true, why: "将来負担なし（充当可能財源等が将来負担額を上回る）"},
	"ラスパイレス指数": {why: "not computed (a municipality merged on the survey's day, or no survey that year)"},
}

// financeFigure reads a figure of a finance list: a number, a dash of the meaning financeDashes
// declares for its column, or a blank cell (no figure).
func financeFigure(file string, line int, column, raw string) (Cell, error) {
	s := strings.TrimSpace(raw)
	if s != "-" && s != "－" {
		return parseNumber(file, line, column, s, "")
	}
	d, ok := financeDashes[column]
	switch {
	case !ok:
		return Cell{}, sourceErr(file, line, column, "%q, a dash whose meaning for this figure is not declared (ingest.financeDashes)", s)
	case d.zero:
		return Cell{V: 0}, nil
	}
	return Cell{Missing: fmt.Sprintf("%q in %s: %s", s, file, d.why)}, nil
}

// The columns that name a municipality in the lists before FY2011, which carry no code.
const (
	financePref = "都道府県名"
	financeName = "団体名"
)

// The reasons of the figures a merger after the list's year leaves null; the report's section on
// the finance lists names each municipality's mergers.
const (
	mergedSince = "territory changed by a merger after the list's year (the finance lists' section names it)"
	formedSince = "formed or enlarged by a merger after the list's year, not in its list (the finance lists' section names it)"
)

// FinanceMatch is how the rows of one list of FY2005–FY2015 were matched to the code list.
type FinanceMatch struct {
	Year, Rows, Matched int
	ByName              bool
	// Renamed are the rows matched under an earlier name or code ("三好町 → 23236 みよし市").
	Renamed []string
	// Changed are the municipalities matched whose territory changed after the year, with why;
	// their figures are null.
	Changed map[string]string
	// Absorbed are the rows of municipalities that later ceased to exist in a merger.
	Absorbed []string
	// NameDiffers are the rows of a list with codes whose name is not the code list's.
	NameDiffers []string
	// Absent are the municipalities of the code list the list does not have, with why.
	Absent map[string]string
}

// ParseFinanceXLS reads a list of FY2005–FY2015 (a BIFF8 .xls workbook, first sheet): the figures
// of financeColumns its header names. Lists from FY2011 carry the 6-digit code; the earlier ones
// name each municipality by prefecture and name, matched to the code list up to the variant
// characters of nameKey and the renames. A municipality whose territory changed after the year
// (mergers) gets missing figures saying so, and a row that matches no municipality must be one
// that a merger absorbed.
func ParseFinanceXLS(file string, r io.Reader, cl *CodeList, fiscalYear int) (*Table, *FinanceMatch, error) {
	wb, err := xlsfile.Read(r)
	if err != nil {
		return nil, nil, sourceErr(file, 0, "", "not a readable xls workbook: %v", err)
	}
	sheets := wb.Sheets()
	if len(sheets) == 0 {
		return nil, nil, sourceErr(file, 0, "", "no worksheet")
	}
	rows, err := wb.Rows(sheets[0])
	if err != nil {
		return nil, nil, sourceErr(file, 0, "", "%v", err)
	}
	l, err := newFinanceList(file, rows, fiscalYear, []string{financePref, financeName, financeFiscal})
	if err != nil {
		return nil, nil, err
	}
	_, hasCode := l.idx[financeCode]
	match := &FinanceMatch{Year: fiscalYear, ByName: !hasCode, Changed: map[string]string{}, Absent: map[string]string{}}
	names := cl.names()
	absorbed := absorbedNames(cl)
	seen := map[string]bool{} // the absorbed municipalities the list names
	for i, row := range rows[2:] {
		rec := csvRecord{Line: i + 3, Fields: row}
		pref, _ := field(file, rec, l.idx[financePref], financePref)
		name, _ := field(file, rec, l.idx[financeName], financeName)
		key := nameKey(strings.TrimSpace(pref), strings.TrimSpace(name))
		code, ok := names[key]
		if !match.ByName {
			raw, _ := field(file, rec, l.idx[financeCode], financeCode)
			if !strings.ContainsAny(raw, "0123456789") { // the national average, the notes
				continue
			}
			c, err := code5(raw)
			if err != nil {
				return nil, nil, &SourceError{File: file, Row: rec.Line, Column: financeCode, Err: err}
			}
			if current := cl.current(c); cl.Has(current) {
				if current != c {
					match.Renamed = append(match.Renamed, fmt.Sprintf("%s %s → %s", c, name, current))
				}
				if !ok || code != current {
					match.NameDiffers = append(match.NameDiffers, fmt.Sprintf("%s %s%s (the code list: %s)", c, pref, name, cl.label(current)))
				}
				code, ok = current, true
			} else {
				ok = false
			}
		}
		if !ok {
			if _, isAbsorbed := absorbed[key]; isAbsorbed {
				seen[key] = true
				match.Absorbed = append(match.Absorbed, pref+name)
				continue
			}
			if !slices.ContainsFunc(cl.Prefectures, func(p hensachi.Prefecture) bool { return p.Name == strings.TrimSpace(pref) }) {
				continue // the national average and the notes below the list
			}
			return nil, nil, sourceErr(file, rec.Line, financeName, "%s%s is no municipality of the code list, and no merger absorbed it (ingest/changes.go)", pref, name)
		}
		if e, _ := cl.Entry(code); match.ByName && nameKey(e.Prefecture.Name, e.Name) != key {
			match.Renamed = append(match.Renamed, fmt.Sprintf("%s%s → %s", pref, name, cl.label(code)))
		}
		match.Matched++
		var missing string
		if why := changedAfter(code, fiscalYear); why != "" {
			match.Changed[code], missing = why, mergedSince
		}
		if err := l.addFigures(code, rec, missing); err != nil {
			return nil, nil, err
		}
	}
	match.Rows = match.Matched + len(match.Absorbed)
	if err := checkAbsorbed(file, fiscalYear, absorbed, seen); err != nil {
		return nil, nil, err
	}
	for _, e := range cl.Entries {
		if _, listed := l.t.rows[e.Code]; listed {
			continue
		}
		why := changedAfter(e.Code, fiscalYear)
		if why == "" {
			why = "not in the list of FY" + strconv.Itoa(fiscalYear)
		} else if err := l.addFigures(e.Code, csvRecord{}, formedSince); err != nil {
			return nil, nil, err
		}
		match.Absent[e.Code] = why
	}
	return l.t, match, nil
}

// checkAbsorbed holds the mergers against a list: the municipalities a merger absorbed are in the
// lists of the years before it and in none after.
func checkAbsorbed(file string, fiscalYear int, absorbed map[string]merger, seen map[string]bool) error {
	for key, m := range absorbed {
		before := fiscalYear < fiscalYearOf(m.date)
		if before != seen[key] {
			return sourceErr(file, 0, financeName, "ingest/changes.go says %s merged into %s on %s, but the list of FY%d has it: %t",
				key, m.code, m.date, fiscalYear, seen[key])
		}
	}
	return nil
}

// absorbedNames are the municipalities the mergers into municipalities of cl absorbed, by nameKey,
// each with its merger.
func absorbedNames(cl *CodeList) map[string]merger {
	out := map[string]merger{}
	for _, m := range mergers {
		e, ok := cl.Entry(m.code)
		if !ok { // a code list of other municipalities (a test's)
			continue
		}
		for _, n := range m.absorbed {
			if nameKey(e.Prefecture.Name, n) != nameKey(e.Prefecture.Name, e.Name) { // not its own former self
				out[nameKey(e.Prefecture.Name, n)] = m
			}
		}
	}
	return out
}
