// Package csvfile writes a table of typed, nullable columns (hensachi.Column) as a CSV file for
// spreadsheets: the bulk export's CSV (package export).
package csvfile

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/hensachi/hensachi"
)

// Write writes the columns to w: UTF-8 with a byte-order mark (so Excel reads the names as UTF-8),
// a header row of the column names, one row per value, CRLF line ends (RFC 4180), numbers in
// decimal as the JSON API writes the dataset's (never an exponent) and an empty cell for null.
func Write(w io.Writer, cols []hensachi.Column) error {
	rows, err := hensachi.Rows(cols)
	if err != nil {
		return fmt.Errorf("csv: %w", err)
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("\uFEFF")
	cw := csv.NewWriter(bw)
	cw.UseCRLF = true
	record := make([]string, len(cols))
	for k, col := range cols {
		record[k] = col.Name
	}
	cw.Write(record)
	for r := range rows {
		for k, col := range cols {
			record[k] = cell(col, r)
		}
		cw.Write(record)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("csv: %w", err)
	}
	return bw.Flush()
}

// cell is value r of a column in decimal, as the JSON API writes the dataset's numbers, empty for
// null.
func cell(col hensachi.Column, r int) string {
	switch {
	case col.Strings != nil:
		return col.Strings[r]
	case col.Ints != nil:
		if v := col.Ints[r]; v.Valid {
			return strconv.FormatInt(v.V, 10)
		}
	default:
		if v := col.Floats[r]; v.Valid {
			return strconv.FormatFloat(v.V, 'f', -1, 64)
		}
	}
	return ""
}
