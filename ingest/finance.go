package ingest

import (
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"
	"golang.org/x/text/width"
)

const (
	financeSheet  = "全市町村の主要財政指標"
	financeCode   = "団体コード"
	financeFiscal = "財政力指数"
)

// eraYear finds a fiscal year written the Japanese way (令和４年度, 平成30年度決算, 令和元年度) in a
// title, once its digits are narrowed.
var eraYear = regexp.MustCompile(`(平成|令和)(元|[0-9]+)年度`)

// ParseFinance reads a 総務省 workbook 全市町村の主要財政指標 of a fiscal year: every figure of
// FinanceColumns, by header. Where a figure is not computed the workbook writes "-" (or "－"),
// which becomes a missing cell. The fiscal year comes from the manifest, since the FY2016 and
// FY2017 workbooks do not name it; where the title names one (全市町村の主要財政指標（令和４年度）)
// it must agree. A code a municipality carried in older years is read as its current one.
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
	t := newTable(file)
	t.reserve = len(rows) - 2
	for _, c := range FinanceColumns {
		t.Years[c] = EraFiscalYear(fiscalYear)
	}
	idx, err := columnIndex(file, 2, rows[1], exactHeader, append([]string{financeCode}, FinanceColumns...)...)
	if err != nil {
		return nil, err
	}
	for i, row := range rows[2:] {
		rec := csvRecord{Line: i + 3, Fields: row}
		raw, _ := field(file, rec, idx[financeCode], financeCode)
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
		row, err := t.addRow(code, rec.Line, financeCode)
		if err != nil {
			return nil, err
		}
		for _, c := range FinanceColumns {
			s, err := field(file, rec, idx[c], c)
			if err != nil {
				return nil, err
			}
			cell, err := parseNumber(file, rec.Line, c, s, "-", "－", "")
			if err != nil {
				return nil, err
			}
			t.put(row, c, cell)
		}
	}
	return t, nil
}
