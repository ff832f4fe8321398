package ingest

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Column names of the hometown-tax tables; each is followed by "/" and the fiscal year.
const (
	ReceiptsYen         = "受入額_円"
	ReceiptsThousandYen = "受入額_千円"
	ReceiptsCount       = "受入件数"
	DeductionsYen       = "控除額_円"
)

// YearColumn names the column of a figure for one fiscal year.
func YearColumn(figure string, year int) string { return figure + "/" + strconv.Itoa(year) }

// set records a figure of a municipality, creating its row; a figure given twice is an error.
func (t *Table) set(code, column string, line int, c Cell) error {
	if t.put(t.row(code), column, c) {
		return sourceErr(t.File, line, column, "duplicate row for municipality %s", code)
	}
	return nil
}

// FiscalYears returns the fiscal years for which the table has a figure, ascending.
func (t *Table) FiscalYears(figure string) []int {
	var years []int
	for col := range t.Years {
		if y, ok := strings.CutPrefix(col, figure+"/"); ok {
			if n, err := strconv.Atoi(y); err == nil {
				years = append(years, n)
			}
		}
	}
	slices.Sort(years)
	return years
}

// ParseFurusatoDetail reads the per-municipality receipts file (one row per municipality and fiscal
// year; 6-digit codes; prefecture rows included).
func ParseFurusatoDetail(file string, r io.Reader, cl *CodeList) (*Table, error) {
	recs, err := readCSV(file, r, false)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, sourceErr(file, 0, "", "empty file")
	}
	const colCode, colPref, colName, colYear = "団体コード", "都道府県", "市区町村", "年度"
	idx, err := columnIndex(file, recs[0].Line, recs[0].Fields, exactHeader, colCode, colPref, colName, colYear, ReceiptsYen, ReceiptsCount)
	if err != nil {
		return nil, err
	}
	t := newTable(file)
	for _, rec := range recs[1:] {
		raw, err := field(file, rec, idx[colCode], colCode)
		if err != nil {
			return nil, err
		}
		code, err := code5(raw)
		if err != nil {
			return nil, &SourceError{File: file, Row: rec.Line, Column: colCode, Err: err}
		}
		pref, _ := field(file, rec, idx[colPref], colPref)
		name, _ := field(file, rec, idx[colName], colName)
		ok, err := cl.admit(file, rec.Line, colCode, code, pref+" "+name)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		ys, _ := field(file, rec, idx[colYear], colYear)
		year, err := strconv.Atoi(strings.TrimSpace(ys))
		if err != nil || year < 1989 || year > 2100 {
			return nil, sourceErr(file, rec.Line, colYear, "not a fiscal year: %q", truncate(ys, 20))
		}
		for _, figure := range []string{ReceiptsYen, ReceiptsCount} {
			s, err := field(file, rec, idx[figure], figure)
			if err != nil {
				return nil, err
			}
			c, err := parseCount(file, rec.Line, figure, s)
			if err != nil {
				return nil, err
			}
			col := YearColumn(figure, year)
			t.Years[col] = strconv.Itoa(year)
			if err := t.set(code, col, rec.Line, c); err != nil {
				return nil, err
			}
		}
	}
	return t, nil
}

// parseCount reads a whole, non-negative amount or count; the file writes some as "42722.0".
func parseCount(file string, line int, column, s string) (Cell, error) {
	c, err := parseNumber(file, line, column, s)
	if err != nil {
		return c, err
	}
	if c.V < 0 || c.V != math.Trunc(c.V) {
		return Cell{}, sourceErr(file, line, column, "not a whole non-negative number: %q", truncate(s, 40))
	}
	return c, nil
}

// furusatoHistoryFirstYear is the fiscal year of the first pair in the receipts-history file.
const furusatoHistoryFirstYear = 2008

// ParseFurusatoHistory reads the JSON map from 5-digit code to [amount(千円), count, …, deduction]
// with one amount/count pair per fiscal year from 2008 and the deduction last: the amounts as
// YearColumn(ReceiptsThousandYen, year), the counts as YearColumn(ReceiptsCount, year).
func ParseFurusatoHistory(file string, r io.Reader, cl *CodeList) (*Table, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	var m map[string][]any // decoded loosely so that a value that is not a number is reported with its place
	if err := dec.Decode(&m); err != nil {
		return nil, sourceErr(file, 0, "", "not a JSON object of arrays: %v", err)
	}
	codes := make([]string, 0, len(m))
	for code := range m {
		codes = append(codes, code)
	}
	slices.Sort(codes)
	t := newTable(file)
	for _, code := range codes {
		vals := m[code]
		where := "[" + code + "]"
		if len(code) != 5 || !isDigits(code) {
			return nil, sourceErr(file, 0, where, "not a 5-digit municipality code")
		}
		if len(vals) < 3 || len(vals)%2 != 1 {
			return nil, sourceErr(file, 0, where, "expected amount/count pairs and a deduction, got %d numbers", len(vals))
		}
		ok, err := cl.admit(file, 0, where, code, "")
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		for i := 0; i+1 < len(vals); i += 2 {
			year := furusatoHistoryFirstYear + i/2
			for k, figure := range []string{ReceiptsThousandYen, ReceiptsCount} {
				col := YearColumn(figure, year)
				at := fmt.Sprintf("%s[%d]", where, i+k)
				n, ok := vals[i+k].(json.Number)
				if !ok {
					return nil, sourceErr(file, 0, at, "not a number: %s", truncate(fmt.Sprint(vals[i+k]), 40))
				}
				c, err := parseCount(file, 0, at, n.String())
				if err != nil {
					return nil, err
				}
				t.Years[col] = strconv.Itoa(year)
				if err := t.set(code, col, 0, c); err != nil {
					return nil, err
				}
			}
		}
	}
	return t, nil
}

// DeductionSource is what the deductions file says about its newest tax year.
type DeductionSource struct {
	FiscalYear int    // fiscal year of the donations
	TaxURL     string // the 総務省 workbook the deductions were taken from
	ReceiptURL string // the 総務省 workbook of that year's receipts
}

type deductionsFile struct {
	Meta map[string]struct {
		ReceiptURL string `json:"receiptUrl"`
		TaxURL     string `json:"taxUrl"`
	} `json:"FIVE_YEAR_META"`
	History map[string][][]any `json:"FIVE_YEAR_HISTORY"`
}

// deductionColumn is the position of taxDeduction_yen in a FIVE_YEAR_HISTORY row.
const deductionColumn = 4

// ParseFurusatoDeductions reads the resident-tax deductions of the newest year in the
// FIVE_YEAR_HISTORY document (rows [code5, received, expense, proxy, taxDeduction, …], yen).
func ParseFurusatoDeductions(file string, r io.Reader, cl *CodeList) (*Table, DeductionSource, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	var d deductionsFile
	if err := dec.Decode(&d); err != nil {
		return nil, DeductionSource{}, sourceErr(file, 0, "", "not the expected JSON document: %v", err)
	}
	var src DeductionSource
	for ys := range d.History {
		// The rows are looked up again by the year written plainly, so "+2024" or "02024" must not
		// pass as 2024.
		y, err := strconv.Atoi(ys)
		if err != nil || strconv.Itoa(y) != ys {
			return nil, src, sourceErr(file, 0, "FIVE_YEAR_HISTORY", "key %q is not a fiscal year", truncate(ys, 20))
		}
		src.FiscalYear = max(src.FiscalYear, y)
	}
	if src.FiscalYear == 0 {
		return nil, src, sourceErr(file, 0, "FIVE_YEAR_HISTORY", "no fiscal year")
	}
	key := strconv.Itoa(src.FiscalYear)
	src.TaxURL, src.ReceiptURL = d.Meta[key].TaxURL, d.Meta[key].ReceiptURL
	t := newTable(file)
	col := YearColumn(DeductionsYen, src.FiscalYear)
	t.Years[col] = key
	for i, row := range d.History[key] {
		where := fmt.Sprintf("FIVE_YEAR_HISTORY[%s][%d]", key, i)
		if len(row) <= deductionColumn {
			return nil, src, sourceErr(file, 0, where, "has %d values, expected at least %d", len(row), deductionColumn+1)
		}
		code, _ := row[0].(string)
		if len(code) != 5 || !isDigits(code) {
			return nil, src, sourceErr(file, 0, where, "not a 5-digit municipality code: %v", truncate(fmt.Sprint(row[0]), 20))
		}
		ok, err := cl.admit(file, 0, where, code, "")
		if err != nil {
			return nil, src, err
		}
		if !ok {
			continue
		}
		c, err := jsonNumber(file, where, row[deductionColumn])
		if err != nil {
			return nil, src, err
		}
		if err := t.set(code, col, 0, c); err != nil {
			return nil, src, sourceErr(file, 0, where, "duplicate municipality code %s", code)
		}
	}
	return t, src, nil
}
