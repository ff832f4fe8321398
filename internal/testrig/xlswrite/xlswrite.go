// Package xlswrite writes Excel 97–2003 workbooks (.xls, BIFF8 in a compound file) for tests: the
// records of a workbook, raw where a test needs them so, and whole sheets of text and numbers.
package xlswrite

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"unicode/utf16"
)

// BIFF8 record types and the values the writer puts in them.
const (
	BOF        = 0x0809
	EOF        = 0x000A
	BoundSheet = 0x0085
	SST        = 0x00FC
	Continue   = 0x003C
	LabelSST   = 0x00FD
	Label      = 0x0204
	Number     = 0x0203
	RK         = 0x027E
	MulRK      = 0x00BD
	Formula    = 0x0006
	String     = 0x0207

	BIFF8        = 0x0600
	BOFGlobals   = 0x0005
	BOFWorksheet = 0x0010

	EndOfChain = 0xFFFFFFFE
)

// Records collects BIFF records.
type Records struct{ b bytes.Buffer }

// Add appends a record of the given type whose data is the parts joined.
func (w *Records) Add(typ uint16, data ...[]byte) {
	d := slices.Concat(data...)
	w.b.Write(U16(typ))
	w.b.Write(U16(uint16(len(d))))
	w.b.Write(d)
}

// U16, U32 and F64 are little-endian encodings.
func U16(v uint16) []byte  { return binary.LittleEndian.AppendUint16(nil, v) }
func U32(v uint32) []byte  { return binary.LittleEndian.AppendUint32(nil, v) }
func F64(v float64) []byte { return binary.LittleEndian.AppendUint64(nil, math.Float64bits(v)) }

// Cell is the start of a cell record: row, column and format index.
func Cell(row, col int) []byte { return slices.Concat(U16(uint16(row)), U16(uint16(col)), U16(15)) }

// XLString writes a string with a countBytes-byte count: one byte per character where every
// character fits, two otherwise.
func XLString(s string, countBytes int) []byte {
	u := utf16.Encode([]rune(s))
	var out []byte
	if countBytes == 1 {
		out = []byte{byte(len(u))}
	} else {
		out = U16(uint16(len(u)))
	}
	if !slices.ContainsFunc(u, func(c uint16) bool { return c > 0xFF }) {
		out = append(out, 0)
		for _, c := range u {
			out = append(out, byte(c))
		}
		return out
	}
	out = append(out, 1)
	for _, c := range u {
		out = append(out, U16(c)...)
	}
	return out
}

// Sheet is one worksheet: its name and its cell records.
type Sheet struct {
	Name  string
	Cells func(w *Records)
}

// Stream writes a Workbook stream: the globals (BOF, one BOUNDSHEET per sheet, the shared strings
// split into the SST and CONTINUE records given, sstCount of them, EOF), then the sheets.
func Stream(sst [][]byte, sstCount int, sheets ...Sheet) []byte {
	var g Records
	g.Add(BOF, U16(BIFF8), U16(BOFGlobals), make([]byte, 12))
	var patches []int
	for _, s := range sheets {
		patches = append(patches, g.b.Len()+4)
		g.Add(BoundSheet, U32(0), []byte{0, 0}, XLString(s.Name, 1))
	}
	if sst != nil {
		g.Add(SST, U32(uint32(sstCount)), U32(uint32(sstCount)), sst[0])
		for _, c := range sst[1:] {
			g.Add(Continue, c)
		}
	}
	g.Add(EOF)
	out := g.b.Bytes()
	for i, s := range sheets {
		binary.LittleEndian.PutUint32(out[patches[i]:], uint32(len(out)))
		var w Records
		w.Add(BOF, U16(BIFF8), U16(BOFWorksheet), make([]byte, 12))
		s.Cells(&w)
		w.Add(EOF)
		out = append(out, w.b.Bytes()...)
	}
	return out
}

// Workbook writes a workbook of one sheet whose cells are the rows given: a float64 or int is a
// NUMBER record, a non-empty string a shared string, anything else no cell.
func Workbook(sheet string, rows [][]any) []byte {
	var strs []string
	index := map[string]int{}
	for _, row := range rows {
		for _, v := range row {
			if s, ok := v.(string); ok && s != "" {
				if _, seen := index[s]; !seen {
					index[s] = len(strs)
					strs = append(strs, s)
				}
			}
		}
	}
	cells := func(w *Records) {
		for r, row := range rows {
			for c, v := range row {
				switch x := v.(type) {
				case float64:
					w.Add(Number, Cell(r, c), F64(x))
				case int:
					w.Add(Number, Cell(r, c), F64(float64(x)))
				case string:
					if x != "" {
						w.Add(LabelSST, Cell(r, c), U32(uint32(index[x])))
					}
				}
			}
		}
	}
	// the strings, in SST and CONTINUE records of at most 8,224 bytes, a string never split
	var segs [][]byte
	var cur []byte
	for _, s := range strs {
		x := XLString(s, 2)
		if len(cur)+len(x) > 8216 {
			segs, cur = append(segs, cur), nil
		}
		cur = append(cur, x...)
	}
	segs = append(segs, cur)
	return File(Stream(segs, len(strs), Sheet{sheet, cells}), false)
}

// File wraps a Workbook stream in a compound file of 512-byte sectors: the FAT first, then the
// directory, the mini FAT, and the stream's sectors, in the mini stream when mini is set (the
// stream must then be under 4,096 bytes and 8,192 is the most the mini FAT maps), else padded
// past the 4,096-byte cutoff.
func File(stream []byte, mini bool) []byte {
	const ss, dirEntrySize = 512, 128
	if !mini && len(stream) < 4096 {
		stream = append(slices.Clone(stream), make([]byte, 4096-len(stream))...)
	}
	sectors := func(n int) int { return (n + ss - 1) / ss }
	body := stream
	if mini {
		body = append(slices.Clone(stream), make([]byte, (len(stream)+63)/64*64-len(stream))...)
	}
	body = append(body, make([]byte, sectors(len(body))*ss-len(body))...)
	nBody := sectors(len(body))
	nFAT := sectors(4 * (nBody + 2 + 109)) // entries for itself, the directory, the mini FAT and the body
	dirAt, miniFATAt, bodyAt := uint32(nFAT), uint32(nFAT+1), uint32(nFAT+2)
	fat := make([]uint32, nFAT*ss/4)
	for i := range fat {
		fat[i] = 0xFFFFFFFF
	}
	for i := range nFAT {
		fat[i] = 0xFFFFFFFD
	}
	fat[dirAt], fat[miniFATAt] = EndOfChain, EndOfChain
	for i := range nBody {
		fat[int(bodyAt)+i] = bodyAt + uint32(i) + 1
	}
	fat[int(bodyAt)+nBody-1] = EndOfChain

	miniFAT := make([]byte, ss)
	for i := range ss / 4 {
		binary.LittleEndian.PutUint32(miniFAT[4*i:], 0xFFFFFFFF)
	}
	rootStart, rootSize, streamStart := uint32(EndOfChain), uint32(0), bodyAt
	if mini {
		n := len(body) / 64
		for i := range min(n, ss/4) {
			next := uint32(EndOfChain)
			if i < n-1 {
				next = uint32(i + 1)
			}
			binary.LittleEndian.PutUint32(miniFAT[4*i:], next)
		}
		rootStart, rootSize, streamStart = bodyAt, uint32(len(body)), 0
	}

	h := make([]byte, 512)
	copy(h, []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1})
	le := binary.LittleEndian
	le.PutUint16(h[0x18:], 0x3E)
	le.PutUint16(h[0x1A:], 3)
	le.PutUint16(h[0x1C:], 0xFFFE)
	le.PutUint16(h[0x1E:], 9)
	le.PutUint16(h[0x20:], 6)
	le.PutUint32(h[0x2C:], uint32(nFAT))
	le.PutUint32(h[0x30:], dirAt)
	le.PutUint32(h[0x38:], 4096)
	le.PutUint32(h[0x3C:], miniFATAt)
	le.PutUint32(h[0x40:], 1)
	le.PutUint32(h[0x44:], EndOfChain)
	for i := range 109 {
		v := uint32(0xFFFFFFFF)
		if i < nFAT {
			v = uint32(i)
		}
		le.PutUint32(h[0x4C+4*i:], v)
	}
	fatBytes := make([]byte, 0, 4*len(fat))
	for _, v := range fat {
		fatBytes = le.AppendUint32(fatBytes, v)
	}
	dir := make([]byte, ss)
	entry := func(i int, name string, typ byte, start, size uint32) {
		e := dir[i*dirEntrySize:]
		u := utf16.Encode([]rune(name))
		for k, c := range u {
			le.PutUint16(e[2*k:], c)
		}
		le.PutUint16(e[0x40:], uint16(2*len(u)+2))
		e[0x42] = typ
		le.PutUint32(e[0x74:], start)
		le.PutUint32(e[0x78:], size)
	}
	entry(0, "Root Entry", 5, rootStart, rootSize)
	entry(1, "Workbook", 2, streamStart, uint32(len(stream)))
	return slices.Concat(h, fatBytes, dir, miniFAT, body)
}
