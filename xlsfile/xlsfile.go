// Package xlsfile reads the cells of an Excel 97–2003 workbook (.xls: BIFF8 records in the
// Workbook stream of an OLE2 compound file) as text, sheet by sheet: shared strings (SST with its
// CONTINUE records), LABELSST, LABEL, NUMBER, RK, MULRK and the cached results of FORMULA cells.
// Formats, dates, styles and formulas themselves are not read.
//
// Workbooks are untrusted input: every length and offset is checked against the bytes it reads
// from, sector chains that loop are errors, and no allocation exceeds what the file's size (and
// maxCells) allows; a damaged file gives an error, never a panic.
package xlsfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// MaxFileSize is the largest workbook Read accepts.
const MaxFileSize = 64 << 20

// maxCells bounds the cells a sheet's rows may span (rows × the widest row), so that a few cells far
// apart cannot make the reader allocate a huge empty grid.
const maxCells = 1 << 20

// Workbook is a parsed workbook: its worksheets' names and where their records are.
type Workbook struct {
	stream []byte
	sst    []string
	sheets []sheetRef
}

type sheetRef struct {
	name   string
	offset int // of the sheet's BOF record in the stream
}

// Read reads a whole .xls file (at most MaxFileSize bytes) and parses its workbook globals.
func Read(r io.Reader) (*Workbook, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxFileSize {
		return nil, fmt.Errorf("xls: larger than %d bytes", MaxFileSize)
	}
	return Parse(b)
}

// Parse parses a .xls file held in memory.
func Parse(data []byte) (*Workbook, error) {
	c, err := openCompound(data)
	if err != nil {
		return nil, fmt.Errorf("xls: %w", err)
	}
	stream, ok, err := c.open("Workbook")
	if err != nil {
		return nil, fmt.Errorf("xls: %w", err)
	}
	if !ok {
		return nil, errors.New("xls: no Workbook stream (not a BIFF8 workbook; Excel 5/95 files keep a Book stream)")
	}
	w := &Workbook{stream: stream}
	if err := w.readGlobals(); err != nil {
		return nil, fmt.Errorf("xls: %w", err)
	}
	return w, nil
}

// Sheets returns the worksheets' names in the workbook's order (charts and macro sheets left out).
func (w *Workbook) Sheets() []string {
	names := make([]string, len(w.sheets))
	for i, s := range w.sheets {
		names[i] = s.name
	}
	return names
}

// Rows returns the cells of the named worksheet as text, row by row, each row as long as its last
// cell: strings as written, numbers in decimal without exponent (strconv's shortest 'f' form),
// booleans and errors of formulas as empty cells.
func (w *Workbook) Rows(sheet string) ([][]string, error) {
	for _, s := range w.sheets {
		if s.name == sheet {
			rows, err := w.readSheet(s.offset)
			if err != nil {
				return nil, fmt.Errorf("xls: sheet %q: %w", sheet, err)
			}
			return rows, nil
		}
	}
	return nil, fmt.Errorf("xls: no sheet %q (sheets: %s)", sheet, strings.Join(w.Sheets(), ", "))
}

// BIFF8 record types read here.
const (
	recBOF        = 0x0809
	recEOF        = 0x000A
	recBoundSheet = 0x0085
	recSST        = 0x00FC
	recContinue   = 0x003C
	recLabelSST   = 0x00FD
	recLabel      = 0x0204
	recNumber     = 0x0203
	recRK         = 0x027E
	recMulRK      = 0x00BD
	recFormula    = 0x0006
	recString     = 0x0207

	biff8          = 0x0600
	bofGlobals     = 0x0005
	bofWorksheet   = 0x0010
	sheetWorksheet = 0 // BOUNDSHEET's sheet type
	maxColumns     = 256
)

// record is one BIFF record: its type and its data, without the 4-byte header.
type record struct {
	typ  uint16
	data []byte
	next int // offset of the following record
}

// recordAt reads the record at offset p of the stream.
func (w *Workbook) recordAt(p int) (record, error) {
	if p < 0 || p+4 > len(w.stream) {
		return record{}, fmt.Errorf("record at %d: past the end of the stream (%d bytes)", p, len(w.stream))
	}
	typ := binary.LittleEndian.Uint16(w.stream[p:])
	n := int(binary.LittleEndian.Uint16(w.stream[p+2:]))
	if p+4+n > len(w.stream) {
		return record{}, fmt.Errorf("record %#04x at %d: %d bytes run past the stream", typ, p, n)
	}
	return record{typ: typ, data: w.stream[p+4 : p+4+n], next: p + 4 + n}, nil
}

// readGlobals reads the globals substream: the BIFF8 BOF, the sheets and the shared strings.
func (w *Workbook) readGlobals() error {
	r, err := w.recordAt(0)
	if err != nil {
		return err
	}
	if r.typ != recBOF || len(r.data) < 4 {
		return errors.New("the stream does not begin with a BOF record")
	}
	if v, dt := binary.LittleEndian.Uint16(r.data), binary.LittleEndian.Uint16(r.data[2:]); v != biff8 || dt != bofGlobals {
		return fmt.Errorf("BOF version %#04x type %#04x, want BIFF8 (%#04x) workbook globals (%#04x)", v, dt, biff8, bofGlobals)
	}
	for p := r.next; ; {
		r, err := w.recordAt(p)
		if err != nil {
			return err
		}
		switch r.typ {
		case recEOF:
			return nil
		case recBoundSheet:
			if err := w.boundSheet(r.data); err != nil {
				return err
			}
		case recSST:
			segs := [][]byte{r.data}
			for {
				c, err := w.recordAt(r.next)
				if err != nil || c.typ != recContinue {
					break
				}
				segs = append(segs, c.data)
				r = c
			}
			if w.sst, err = readSST(segs); err != nil {
				return err
			}
		}
		p = r.next
	}
}

// boundSheet reads a BOUNDSHEET record: where a sheet begins, its type and its name.
func (w *Workbook) boundSheet(d []byte) error {
	if len(d) < 8 {
		return fmt.Errorf("BOUNDSHEET of %d bytes", len(d))
	}
	if d[5] != sheetWorksheet {
		return nil
	}
	name, err := (&segReader{segs: [][]byte{d[6:]}}).unicodeString(1)
	if err != nil {
		return fmt.Errorf("BOUNDSHEET name: %w", err)
	}
	w.sheets = append(w.sheets, sheetRef{name: name, offset: int(binary.LittleEndian.Uint32(d))})
	return nil
}

// grid collects a sheet's cells, bounded by maxCells.
type grid struct {
	rows  [][]string
	cells int
}

func (g *grid) set(row, col int, s string) error {
	if col >= maxColumns {
		return fmt.Errorf("cell in column %d, BIFF8 has %d", col, maxColumns)
	}
	for len(g.rows) <= row {
		g.rows = append(g.rows, nil)
	}
	if grow := col + 1 - len(g.rows[row]); grow > 0 {
		if g.cells += grow; g.cells+len(g.rows) > maxCells {
			return fmt.Errorf("cells spread over more than %d places", maxCells)
		}
		g.rows[row] = append(g.rows[row], make([]string, grow)...)
	}
	g.rows[row][col] = s
	return nil
}

// readSheet reads the cell records of the worksheet whose BOF is at offset, up to its EOF.
func (w *Workbook) readSheet(offset int) ([][]string, error) {
	r, err := w.recordAt(offset)
	if err != nil {
		return nil, err
	}
	if r.typ != recBOF || len(r.data) < 4 || binary.LittleEndian.Uint16(r.data[2:]) != bofWorksheet {
		return nil, fmt.Errorf("no worksheet BOF at offset %d", offset)
	}
	g := &grid{}
	// a formula whose result is a string: its cell, which the STRING record after it fills
	pendingRow, pendingCol := -1, -1
	for p := r.next; ; p = r.next {
		if r, err = w.recordAt(p); err != nil {
			return nil, err
		}
		if r.typ == recEOF {
			return g.rows, nil
		}
		if err := w.cell(g, r, &pendingRow, &pendingCol); err != nil {
			return nil, fmt.Errorf("record %#04x at %d: %w", r.typ, p, err)
		}
	}
}

var errShortRecord = errors.New("record too short for its cell")

// cell puts the value of one cell record, if it is one, in the grid.
func (w *Workbook) cell(g *grid, r record, pendingRow, pendingCol *int) error {
	d := r.data
	le := binary.LittleEndian
	at := func(min int) (row, col int, err error) {
		if len(d) < min {
			return 0, 0, errShortRecord
		}
		return int(le.Uint16(d)), int(le.Uint16(d[2:])), nil
	}
	switch r.typ {
	case recLabelSST:
		row, col, err := at(10)
		if err != nil {
			return err
		}
		k := le.Uint32(d[6:])
		if uint64(k) >= uint64(len(w.sst)) {
			return fmt.Errorf("LABELSST names shared string %d of %d", k, len(w.sst))
		}
		return g.set(row, col, w.sst[k])
	case recLabel:
		row, col, err := at(9)
		if err != nil {
			return err
		}
		s, err := (&segReader{segs: [][]byte{d[6:]}}).unicodeString(2)
		if err != nil {
			return err
		}
		return g.set(row, col, s)
	case recNumber:
		row, col, err := at(14)
		if err != nil {
			return err
		}
		return g.set(row, col, formatNumber(math.Float64frombits(le.Uint64(d[6:]))))
	case recRK:
		row, col, err := at(10)
		if err != nil {
			return err
		}
		return g.set(row, col, formatNumber(rk(le.Uint32(d[6:]))))
	case recMulRK:
		row, first, err := at(6)
		if err != nil {
			return err
		}
		// row, first column, then 6 bytes (format, RK) per cell, then the last column
		for k, p := 0, 4; p+6 <= len(d)-2; k, p = k+1, p+6 {
			if err := g.set(row, first+k, formatNumber(rk(le.Uint32(d[p+2:])))); err != nil {
				return err
			}
		}
	case recFormula:
		row, col, err := at(20)
		if err != nil {
			return err
		}
		res := d[6:14]
		if res[6] != 0xFF || res[7] != 0xFF { // the cached result is a number
			return g.set(row, col, formatNumber(math.Float64frombits(le.Uint64(res))))
		}
		if res[0] == 0 { // a string, given by the STRING record that follows
			*pendingRow, *pendingCol = row, col
		}
	case recString:
		if *pendingRow < 0 {
			return nil
		}
		s, err := (&segReader{segs: [][]byte{d}}).unicodeString(2)
		if err != nil {
			return err
		}
		row, col := *pendingRow, *pendingCol
		*pendingRow, *pendingCol = -1, -1
		return g.set(row, col, s)
	}
	return nil
}

func formatNumber(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// rk decodes Excel's compressed number: a 30-bit integer or the high 30 bits of a double, either
// possibly divided by 100.
func rk(v uint32) float64 {
	var f float64
	if v&2 != 0 {
		f = float64(int32(v) >> 2)
	} else {
		f = math.Float64frombits(uint64(v&^3) << 32)
	}
	if v&1 != 0 {
		f /= 100
	}
	return f
}
