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
	tw := NewWriter(w)
	if err := tw.Write(cols); err != nil {
		return err
	}
	return tw.Close()
}

// Writer writes a table that comes in parts, as Write writes one: a table too long to hold as
// columns at once, such as the indicators' long table, is written a part at a time.
type Writer struct {
	bw     *bufio.Writer
	cw     *csv.Writer
	record []string // nil until the header is written
}

// NewWriter starts a table on w.
func NewWriter(w io.Writer) *Writer {
	bw := bufio.NewWriterSize(w, 64<<10)
	cw := csv.NewWriter(bw)
	cw.UseCRLF = true
	return &Writer{bw: bw, cw: cw}
}

// Write writes the rows of the next part, the header before the first; every part has the first
// one's columns.
func (w *Writer) Write(cols []hensachi.Column) error {
	rows, err := hensachi.Rows(cols)
	if err != nil {
		return fmt.Errorf("csv: %w", err)
	}
	if w.record == nil {
		w.bw.WriteString("\uFEFF")
		w.record = make([]string, len(cols))
		for k, col := range cols {
			w.record[k] = col.Name
		}
		w.cw.Write(w.record)
	}
	if len(cols) != len(w.record) {
		return fmt.Errorf("csv: a part of %d columns, not %d", len(cols), len(w.record))
	}
	for r := range rows {
		for k, col := range cols {
			w.record[k] = cell(col, r)
		}
		w.cw.Write(w.record)
	}
	return nil
}

// Trailer writes lines after the table, each a row of its own: the line in the first cell and the
// others empty, so that a reader counting fields finds the table's width (a spreadsheet's credit
// row, 出典：…). It follows the last part.
func (w *Writer) Trailer(lines ...string) error {
	if w.record == nil {
		return fmt.Errorf("csv: a trailer before the header")
	}
	for _, line := range lines {
		clear(w.record)
		w.record[0] = line
		w.cw.Write(w.record)
	}
	return nil
}

// Close writes what is buffered.
func (w *Writer) Close() error {
	w.cw.Flush()
	if err := w.cw.Error(); err != nil {
		return fmt.Errorf("csv: %w", err)
	}
	return w.bw.Flush()
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
