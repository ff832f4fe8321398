package rawfiles

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"unicode/utf16"

	"github.com/richardlehane/mscfb"
)

// readXLSFirstSheet returns the cells of the first worksheet of a BIFF8 workbook (Excel 97–2003,
// .xls), as text, row by row: what the FY2005–FY2015 lists of financial indicators need, and no
// more (no dates, no formats). Numbers are written as strconv's shortest form.
func readXLSFirstSheet(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, err := mscfb.New(f)
	if err != nil {
		return nil, fmt.Errorf("%s: not a compound document: %w", path, err)
	}
	var stream []byte
	for entry, err := doc.Next(); err == nil; entry, err = doc.Next() {
		if entry.Name == "Workbook" {
			if stream, err = io.ReadAll(entry); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			break
		}
	}
	if stream == nil {
		return nil, fmt.Errorf("%s: no Workbook stream (not BIFF8)", path)
	}
	rows, err := parseBIFF8(stream)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rows, nil
}

// BIFF8 record types read here.
const (
	recBOF      = 0x0809
	recEOF      = 0x000A
	recSST      = 0x00FC
	recContinue = 0x003C
	recLabelSST = 0x00FD
	recLabel    = 0x0204
	recNumber   = 0x0203
	recRK       = 0x027E
	recMulRK    = 0x00BD
	recFormula  = 0x0006
	recString   = 0x0207

	bofWorksheet = 0x0010
)

type biffRecord struct {
	typ  uint16
	data []byte
}

func biffRecords(stream []byte) ([]biffRecord, error) {
	var recs []biffRecord
	for p := 0; p+4 <= len(stream); {
		typ := binary.LittleEndian.Uint16(stream[p:])
		n := int(binary.LittleEndian.Uint16(stream[p+2:]))
		if p+4+n > len(stream) {
			return nil, fmt.Errorf("record %#04x at %d runs past the stream", typ, p)
		}
		recs = append(recs, biffRecord{typ, stream[p+4 : p+4+n]})
		p += 4 + n
	}
	return recs, nil
}

func parseBIFF8(stream []byte) ([][]string, error) {
	recs, err := biffRecords(stream)
	if err != nil {
		return nil, err
	}
	var sst []string
	var rows [][]string
	set := func(row, col int, s string) {
		for len(rows) <= row {
			rows = append(rows, nil)
		}
		for len(rows[row]) <= col {
			rows[row] = append(rows[row], "")
		}
		rows[row][col] = s
	}
	inSheet := false
	for i := 0; i < len(recs); i++ {
		r := recs[i]
		switch {
		case r.typ == recSST:
			segs := [][]byte{r.data}
			for i+1 < len(recs) && recs[i+1].typ == recContinue {
				i++
				segs = append(segs, recs[i].data)
			}
			if sst, err = readSST(segs); err != nil {
				return nil, err
			}
		case r.typ == recBOF && len(r.data) >= 4 && binary.LittleEndian.Uint16(r.data[2:]) == bofWorksheet:
			inSheet = true
		case r.typ == recEOF && inSheet:
			return rows, nil // the first worksheet is all this reader is for
		case !inSheet || len(r.data) < 6:
		case r.typ == recLabelSST && len(r.data) >= 10:
			k := int(binary.LittleEndian.Uint32(r.data[6:]))
			if k >= len(sst) {
				return nil, fmt.Errorf("LABELSST names string %d of %d", k, len(sst))
			}
			set(cell(r.data), col(r.data), sst[k])
		case r.typ == recLabel:
			s, err := (&segReader{segs: [][]byte{r.data[6:]}}).unicodeString(2)
			if err != nil {
				return nil, err
			}
			set(cell(r.data), col(r.data), s)
		case r.typ == recNumber && len(r.data) >= 14:
			set(cell(r.data), col(r.data), formatNumber(math.Float64frombits(binary.LittleEndian.Uint64(r.data[6:]))))
		case r.typ == recRK && len(r.data) >= 10:
			set(cell(r.data), col(r.data), formatNumber(rk(binary.LittleEndian.Uint32(r.data[6:]))))
		case r.typ == recMulRK:
			first := col(r.data)
			for k, p := 0, 4; p+6 <= len(r.data)-2; k, p = k+1, p+6 {
				set(cell(r.data), first+k, formatNumber(rk(binary.LittleEndian.Uint32(r.data[p+2:]))))
			}
		case r.typ == recFormula && len(r.data) >= 14:
			res := r.data[6:14]
			if res[6] != 0xFF || res[7] != 0xFF {
				set(cell(r.data), col(r.data), formatNumber(math.Float64frombits(binary.LittleEndian.Uint64(res))))
				continue
			}
			if res[0] == 0 && i+1 < len(recs) && recs[i+1].typ == recString { // a string result follows
				i++
				s, err := (&segReader{segs: [][]byte{recs[i].data}}).unicodeString(2)
				if err != nil {
					return nil, err
				}
				set(cell(r.data), col(r.data), s)
			}
		}
	}
	if !inSheet {
		return nil, errors.New("no worksheet")
	}
	return rows, nil
}

func cell(d []byte) int { return int(binary.LittleEndian.Uint16(d)) }
func col(d []byte) int  { return int(binary.LittleEndian.Uint16(d[2:])) }

func formatNumber(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// rk decodes Excel's compressed number: an integer or the high 30 bits of a double, either
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

// readSST reads the shared strings, which run on from the SST record into its CONTINUE records.
func readSST(segs [][]byte) ([]string, error) {
	r := &segReader{segs: segs}
	if _, err := r.u32(); err != nil { // total references
		return nil, err
	}
	n, err := r.u32()
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, n)
	for range n {
		s, err := r.unicodeString(2)
		if err != nil {
			return nil, fmt.Errorf("shared string %d of %d: %w", len(out), n, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// segReader reads across record boundaries; where a string's characters cross one, the next
// record begins with a new option byte saying whether they continue as one or two bytes each.
type segReader struct {
	segs [][]byte
	seg  int
	pos  int
}

var errShort = errors.New("string runs past its records")

func (r *segReader) next() bool {
	for r.seg < len(r.segs) && r.pos >= len(r.segs[r.seg]) {
		r.seg++
		r.pos = 0
	}
	return r.seg < len(r.segs)
}

func (r *segReader) byte() (byte, error) {
	if !r.next() {
		return 0, errShort
	}
	b := r.segs[r.seg][r.pos]
	r.pos++
	return b, nil
}

func (r *segReader) uint(n int) (uint32, error) {
	var v uint32
	for i := range n {
		b, err := r.byte()
		if err != nil {
			return 0, err
		}
		v |= uint32(b) << (8 * i)
	}
	return v, nil
}

func (r *segReader) u32() (uint32, error) { return r.uint(4) }

func (r *segReader) skip(n int) error {
	for range n {
		if _, err := r.byte(); err != nil {
			return err
		}
	}
	return nil
}

// unicodeString reads an XLUnicodeRichExtendedString whose character count takes countBytes.
func (r *segReader) unicodeString(countBytes int) (string, error) {
	cch, err := r.uint(countBytes)
	if err != nil {
		return "", err
	}
	flags, err := r.byte()
	if err != nil {
		return "", err
	}
	var runs, ext uint32
	if flags&0x08 != 0 {
		if runs, err = r.uint(2); err != nil {
			return "", err
		}
	}
	if flags&0x04 != 0 {
		if ext, err = r.u32(); err != nil {
			return "", err
		}
	}
	high := flags&0x01 != 0
	units := make([]uint16, 0, cch)
	for uint32(len(units)) < cch {
		if r.seg < len(r.segs) && r.pos >= len(r.segs[r.seg]) { // characters continue in the next record
			r.seg++
			r.pos = 0
			b, err := r.byte()
			if err != nil {
				return "", err
			}
			high = b&0x01 != 0
		}
		var u uint32
		if high {
			u, err = r.uint(2)
		} else {
			u, err = r.uint(1)
		}
		if err != nil {
			return "", err
		}
		units = append(units, uint16(u))
	}
	if err := r.skip(int(runs)*4 + int(ext)); err != nil {
		return "", err
	}
	var b bytes.Buffer
	for _, c := range utf16.Decode(units) {
		b.WriteRune(c)
	}
	return b.String(), nil
}
