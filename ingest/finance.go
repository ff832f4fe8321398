package ingest

import (
	"io"
	"regexp"
	"strings"

	"github.com/xuri/excelize/v2"
	"golang.org/x/text/width"
)

const (
	financeSheet  = "全市町村の主要財政指標"
	financeCode   = "団体コード"
	financeFiscal = "財政力指数"
)

var parenthesised = regexp.MustCompile(`（([^）]+)）`)

// ParseFinance reads the 総務省 workbook 全市町村の主要財政指標 and keeps the fiscal strength index.
// The fiscal year comes from the title row, e.g. 全市町村の主要財政指標（令和４年度）.
func ParseFinance(file string, r io.Reader, cl *CodeList) (*Table, error) {
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
	t := newTable(file)
	m := parenthesised.FindStringSubmatch(rows[0][0])
	if m == nil {
		return nil, sourceErr(file, 1, "A", "title %q does not name the fiscal year in （…）", truncate(rows[0][0], 60))
	}
	t.Years[financeFiscal] = width.Narrow.String(m[1])
	idx, err := columnIndex(file, 2, rows[1], exactHeader, financeCode, financeFiscal)
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
		ok, err := cl.admit(file, rec.Line, financeCode, code, "")
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		cells, err := t.addRow(code, rec.Line, financeCode)
		if err != nil {
			return nil, err
		}
		s, err := field(file, rec, idx[financeFiscal], financeFiscal)
		if err != nil {
			return nil, err
		}
		if cells[financeFiscal], err = parseNumber(file, rec.Line, financeFiscal, s, "-", ""); err != nil {
			return nil, err
		}
	}
	return t, nil
}
