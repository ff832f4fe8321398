package ingest

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/transform"
)

// Cell is one figure of a source. Missing, when not empty, says why the figure is absent.
type Cell struct {
	V       float64
	Missing string
}

// Table holds the figures one source gives, keyed by 5-digit municipality code and column. They
// are kept by column, each a slice over the table's rows: a source of many editions and items is
// read into a few large slices rather than a map per municipality.
type Table struct {
	File  string
	Years map[string]string // column → survey year as the source states it
	// Names are the source's own names of its columns where it gives them (SSDSE-A's third row).
	Names map[string]string
	rows  map[string]int // code → row
	codes []string       // row → code
	cols  map[string]*tableColumn
	// reserve is how many rows a new column makes room for: the parser's count of data rows.
	reserve int
	// ordered is the row of each municipality of a code list, -1 where none (inOrder).
	ordered []int
}

// tableColumn is one column's cells by row; set tells which rows have one.
type tableColumn struct {
	cells []Cell
	set   []bool
}

func newTable(file string) *Table {
	return &Table{File: file, Years: map[string]string{}, rows: map[string]int{}, cols: map[string]*tableColumn{}}
}

// Len returns the number of municipalities in the table.
func (t *Table) Len() int { return len(t.rows) }

// Get returns a figure; a municipality the source does not list is a missing cell saying so.
func (t *Table) Get(code, column string) Cell {
	row, ok := t.rows[code]
	if !ok {
		return Cell{Missing: "not listed in " + t.File}
	}
	return t.at(row, column)
}

// at returns the cell of a row.
func (t *Table) at(row int, column string) Cell {
	c, ok := t.cols[column].get(row)
	if !ok {
		return Cell{Missing: fmt.Sprintf("no %s in %s", column, t.File)}
	}
	return c
}

// get returns the cell of a row, ok false where the column (which may be nil) has none.
func (c *tableColumn) get(row int) (Cell, bool) {
	if c == nil || row < 0 || row >= len(c.set) || !c.set[row] {
		return Cell{}, false
	}
	return c.cells[row], true
}

// inOrder returns the row of each municipality of cl, in its order, -1 where the table has none;
// the table keeps the answer, so it must be asked with one code list only.
func (t *Table) inOrder(cl *CodeList) []int {
	if t.ordered == nil {
		t.ordered = make([]int, len(cl.Entries))
		for i, e := range cl.Entries {
			if r, ok := t.rows[e.Code]; ok {
				t.ordered[i] = r
			} else {
				t.ordered[i] = -1
			}
		}
	}
	return t.ordered
}

// each calls fn for every cell the table has.
func (t *Table) each(fn func(code, column string, c Cell)) {
	for name, col := range t.cols {
		for row, set := range col.set {
			if set {
				fn(t.codes[row], name, col.cells[row])
			}
		}
	}
}

// addRow registers a municipality and returns its row; a second row for the same code is an error
// naming the code column.
func (t *Table) addRow(code string, line int, column string) (int, error) {
	if _, dup := t.rows[code]; dup {
		return 0, sourceErr(t.File, line, column, "duplicate municipality code %s", code)
	}
	return t.row(code), nil
}

// row returns the row of a code, adding one when the table has none.
func (t *Table) row(code string) int {
	if r, ok := t.rows[code]; ok {
		return r
	}
	t.rows[code] = len(t.codes)
	t.codes = append(t.codes, code)
	return len(t.codes) - 1
}

// put sets a cell of a row and reports whether it was set before.
func (t *Table) put(row int, column string, c Cell) (again bool) {
	col := t.cols[column]
	if col == nil {
		col = &tableColumn{cells: make([]Cell, 0, t.reserve), set: make([]bool, 0, t.reserve)}
		t.cols[column] = col
	}
	if n := row + 1 - len(col.set); n > 0 { // grown as append grows, the new cells zero
		col.cells = slices.Grow(col.cells, n)[:row+1]
		col.set = slices.Grow(col.set, n)[:row+1]
	}
	again = col.set[row]
	col.cells[row], col.set[row] = c, true
	return again
}

// parseNumber reads a figure. Markers that a source uses for "no figure" become missing cells;
// anything else that is not a number is an error naming the place.
func parseNumber(file string, line int, column, raw string, missingMarkers ...string) (Cell, error) {
	s := strings.TrimSpace(raw)
	for _, m := range missingMarkers {
		if s == m {
			return Cell{Missing: fmt.Sprintf("%q in %s", s, file)}, nil
		}
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return Cell{}, sourceErr(file, line, column, "not a number: %q", truncate(s, 40))
	}
	return Cell{V: v}, nil
}

// truncate shortens text quoted in an error message to n runes.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// csvRecord is one record of a source table with its 1-based line number.
type csvRecord struct {
	Line   int
	Fields []string
}

// readCSV reads a whole CSV file, decoding cp932 when asked and dropping a UTF-8 byte-order mark.
func readCSV(file string, r io.Reader, cp932 bool) ([]csvRecord, error) {
	if cp932 {
		r = transform.NewReader(r, japanese.ShiftJIS.NewDecoder())
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = false
	var recs []csvRecord
	for {
		fields, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return recs, nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, sourceErr(file, pe.StartLine, "", "malformed CSV: %v", pe.Err)
			}
			return nil, fmt.Errorf("read %s: %w", file, err)
		}
		line, _ := cr.FieldPos(0)
		recs = append(recs, csvRecord{Line: line, Fields: fields})
	}
}

// columnIndex finds named columns in a header row; match says whether a header cell names a column.
func columnIndex(file string, line int, header []string, match func(cell, want string) bool, want ...string) (map[string]int, error) {
	idx := make(map[string]int, len(want))
	for _, w := range want {
		found := -1
		for i, h := range header {
			if match(strings.TrimSpace(h), w) {
				if found >= 0 {
					return nil, sourceErr(file, line, w, "column appears twice in the header")
				}
				found = i
			}
		}
		if found < 0 {
			return nil, sourceErr(file, line, w, "column missing from the header")
		}
		idx[w] = found
	}
	return idx, nil
}

func exactHeader(cell, want string) bool { return cell == want }

// field returns a record's field, or an error naming the place when the row is too short.
func field(file string, rec csvRecord, i int, column string) (string, error) {
	if i >= len(rec.Fields) {
		return "", sourceErr(file, rec.Line, column, "row has %d fields, the column is field %d", len(rec.Fields), i+1)
	}
	return rec.Fields[i], nil
}
