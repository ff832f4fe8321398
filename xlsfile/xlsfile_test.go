package xlsfile

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

// The tests write their workbooks themselves: biff builds the records, compoundFile wraps a
// stream in a compound file.

type biff struct{ b bytes.Buffer }

func (w *biff) rec(typ uint16, data ...[]byte) {
	d := slices.Concat(data...)
	w.b.Write(le16(typ))
	w.b.Write(le16(uint16(len(d))))
	w.b.Write(d)
}

func le16(v uint16) []byte { return binary.LittleEndian.AppendUint16(nil, v) }
func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func f64(v float64) []byte { return binary.LittleEndian.AppendUint64(nil, math.Float64bits(v)) }

// xlString writes a string with a countBytes-byte count: one byte per character where every
// character fits, two otherwise.
func xlString(s string, countBytes int) []byte {
	u := utf16.Encode([]rune(s))
	var out []byte
	if countBytes == 1 {
		out = []byte{byte(len(u))}
	} else {
		out = le16(uint16(len(u)))
	}
	wide := slices.ContainsFunc(u, func(c uint16) bool { return c > 0xFF })
	if !wide {
		out = append(out, 0)
		for _, c := range u {
			out = append(out, byte(c))
		}
		return out
	}
	out = append(out, 1)
	for _, c := range u {
		out = append(out, le16(c)...)
	}
	return out
}

func cellHead(row, col int) []byte {
	return slices.Concat(le16(uint16(row)), le16(uint16(col)), le16(15))
}

// sheetSpec is one worksheet: its name and its records, cells only.
type sheetSpec struct {
	name  string
	cells func(w *biff)
}

// workbookStream writes the globals (BOF, one BOUNDSHEET per sheet, the shared strings split into
// the SST and CONTINUE records given, EOF) and the sheets.
func workbookStream(sst [][]byte, sstCount int, sheets ...sheetSpec) []byte {
	var g biff
	g.rec(recBOF, le16(biff8), le16(bofGlobals), make([]byte, 12))
	var patches []int
	for _, s := range sheets {
		patches = append(patches, g.b.Len()+4)
		g.rec(recBoundSheet, le32(0), []byte{0, sheetWorksheet}, xlString(s.name, 1))
	}
	if sst != nil {
		g.rec(recSST, le32(uint32(sstCount)), le32(uint32(sstCount)), sst[0])
		for _, c := range sst[1:] {
			g.rec(recContinue, c)
		}
	}
	g.rec(recEOF)
	out := g.b.Bytes()
	for i, s := range sheets {
		binary.LittleEndian.PutUint32(out[patches[i]:], uint32(len(out)))
		var w biff
		w.rec(recBOF, le16(biff8), le16(bofWorksheet), make([]byte, 12))
		s.cells(&w)
		w.rec(recEOF)
		out = append(out, w.b.Bytes()...)
	}
	return out
}

// compoundFile wraps a Workbook stream in a compound file of 512-byte sectors: the FAT first, then
// the directory, the mini FAT, and the stream's sectors, in the mini stream when mini is set (the
// stream must then be under 4,096 bytes), else padded past the cutoff.
func compoundFile(stream []byte, mini bool) []byte {
	const ss = 512
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
	nFAT := sectors(4 * (nBody + 2 + 109)) // enough entries for itself, the directory, the mini FAT and the body
	dirAt, miniFATAt, bodyAt := uint32(nFAT), uint32(nFAT+1), uint32(nFAT+2)
	fat := make([]uint32, nFAT*ss/4)
	for i := range fat {
		fat[i] = 0xFFFFFFFF
	}
	for i := range nFAT {
		fat[i] = 0xFFFFFFFD
	}
	fat[dirAt], fat[miniFATAt] = endOfChain, endOfChain
	for i := range nBody {
		fat[int(bodyAt)+i] = bodyAt + uint32(i) + 1
	}
	fat[int(bodyAt)+nBody-1] = endOfChain

	miniFAT := make([]byte, ss)
	for i := range ss / 4 {
		binary.LittleEndian.PutUint32(miniFAT[4*i:], 0xFFFFFFFF)
	}
	rootStart, rootSize, streamStart := uint32(endOfChain), uint32(0), bodyAt
	if mini {
		n := len(body) / 64
		for i := range min(n, ss/4) {
			next := uint32(endOfChain)
			if i < n-1 {
				next = uint32(i + 1)
			}
			binary.LittleEndian.PutUint32(miniFAT[4*i:], next)
		}
		rootStart, rootSize, streamStart = bodyAt, uint32(len(body)), 0
	}

	h := make([]byte, cfbHeaderSize)
	copy(h, cfbSignature)
	binary.LittleEndian.PutUint16(h[0x18:], 0x3E)
	binary.LittleEndian.PutUint16(h[0x1A:], 3)
	binary.LittleEndian.PutUint16(h[0x1C:], 0xFFFE)
	binary.LittleEndian.PutUint16(h[0x1E:], 9)
	binary.LittleEndian.PutUint16(h[0x20:], 6)
	binary.LittleEndian.PutUint32(h[0x2C:], uint32(nFAT))
	binary.LittleEndian.PutUint32(h[0x30:], dirAt)
	binary.LittleEndian.PutUint32(h[0x38:], 4096)
	binary.LittleEndian.PutUint32(h[0x3C:], miniFATAt)
	binary.LittleEndian.PutUint32(h[0x40:], 1)
	binary.LittleEndian.PutUint32(h[0x44:], endOfChain)
	for i := range headerDIFAT {
		v := uint32(0xFFFFFFFF)
		if i < nFAT {
			v = uint32(i)
		}
		binary.LittleEndian.PutUint32(h[0x4C+4*i:], v)
	}
	fatBytes := make([]byte, 0, 4*len(fat))
	for _, v := range fat {
		fatBytes = binary.LittleEndian.AppendUint32(fatBytes, v)
	}
	dir := make([]byte, ss)
	entry := func(i int, name string, typ byte, start, size uint32) {
		e := dir[i*dirEntrySize:]
		u := utf16.Encode([]rune(name))
		for k, c := range u {
			binary.LittleEndian.PutUint16(e[2*k:], c)
		}
		binary.LittleEndian.PutUint16(e[0x40:], uint16(2*len(u)+2))
		e[0x42] = typ
		binary.LittleEndian.PutUint32(e[0x74:], start)
		binary.LittleEndian.PutUint32(e[0x78:], size)
	}
	entry(0, "Root Entry", dirRoot, rootStart, rootSize)
	entry(1, "Workbook", dirStream, streamStart, uint32(len(stream)))
	return slices.Concat(h, fatBytes, dir, miniFAT, body)
}

// sampleCells has one cell of each kind the reader knows.
func sampleCells(w *biff) {
	w.rec(recLabelSST, cellHead(0, 0), le32(0))
	w.rec(recLabelSST, cellHead(1, 0), le32(1))
	w.rec(recNumber, cellHead(1, 1), f64(0.67))
	w.rec(recRK, cellHead(1, 2), le32(uint32(986)<<2|2|1)) // the integer 986, divided by 100
	w.rec(recMulRK, le16(2), le16(1), le16(15), le32(0xFFFFFFEC|2), le16(15), le32(uint32(math.Float64bits(14.5)>>32)), le16(2))
	w.rec(recFormula, cellHead(3, 0), f64(-0.4), make([]byte, 6))
	w.rec(recFormula, cellHead(3, 1), []byte{0, 0, 0, 0, 0, 0, 0xFF, 0xFF}, make([]byte, 6))
	w.rec(recString, xlString("－", 2))
	w.rec(recLabel, cellHead(4, 3), xlString("ラベル", 2))
}

var sampleRows = [][]string{
	{"全市町村の主要財政指標"},
	{"札幌市", "0.67", "9.86"},
	{"", "-5", "14.5"},
	{"-0.4", "－"},
	{"", "", "", "ラベル"},
}

func sampleSST() [][]byte {
	return [][]byte{slices.Concat(xlString("全市町村の主要財政指標", 2), xlString("札幌市", 2))}
}

func TestRows(t *testing.T) {
	// A string whose characters continue in a CONTINUE record, switching from one byte each to two.
	split := slices.Concat(le16(6), []byte{0}, []byte("ab"))
	cont := slices.Concat([]byte{1}, le16('c'), le16('d'), le16('市'), le16('町'))
	tests := []struct {
		name  string
		file  []byte
		sheet string
		want  [][]string
	}{
		{"every kind of cell", compoundFile(workbookStream(sampleSST(), 2, sheetSpec{"一覧 ", sampleCells}), false), "一覧 ", sampleRows},
		{"in the mini stream", compoundFile(workbookStream(sampleSST(), 2, sheetSpec{"一覧 ", sampleCells}), true), "一覧 ", sampleRows},
		{"the second sheet", compoundFile(workbookStream(sampleSST(), 2,
			sheetSpec{"first", func(w *biff) { w.rec(recNumber, cellHead(0, 0), f64(1)) }},
			sheetSpec{"second", func(w *biff) { w.rec(recNumber, cellHead(0, 1), f64(1e21)) }}), false),
			"second", [][]string{{"", "1000000000000000000000"}}},
		{"a shared string across a CONTINUE", compoundFile(workbookStream([][]byte{split, cont}, 1,
			sheetSpec{"s", func(w *biff) { w.rec(recLabelSST, cellHead(0, 0), le32(0)) }}), false),
			"s", [][]string{{"abcd市町"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wb, err := Parse(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			got, err := wb.Rows(tt.sheet)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(got, tt.want, slices.Equal) {
				t.Errorf("rows %q, want %q", got, tt.want)
			}
		})
	}
}

// damaged returns workbooks broken in the ways a reader must survive, each with what the error
// must say.
func damaged() []struct {
	name, want string
	file       []byte
} {
	good := compoundFile(workbookStream(sampleSST(), 2, sheetSpec{"s", sampleCells}), false)
	loop := slices.Clone(good)
	binary.LittleEndian.PutUint32(loop[512+4*3:], 3) // the stream's first sector (3, after the FAT, the directory and the mini FAT) points to itself
	outside := slices.Clone(good)
	binary.LittleEndian.PutUint32(outside[0x30:], 9999) // the directory begins past the end
	badIndex := compoundFile(workbookStream(sampleSST(), 2, sheetSpec{"s", func(w *biff) {
		w.rec(recLabelSST, cellHead(0, 0), le32(7))
	}}), false)
	spread := compoundFile(workbookStream(nil, 0, sheetSpec{"s", func(w *biff) {
		for r := range 5000 {
			w.rec(recNumber, cellHead(r, 255), f64(1))
		}
	}}), false)
	shortSST := compoundFile(workbookStream([][]byte{slices.Concat(le16(50), []byte{0}, []byte("ab"))}, 1<<30, sheetSpec{"s", sampleCells}), false)
	return []struct {
		name, want string
		file       []byte
	}{
		{"not a compound file", "not a compound document", []byte("団体コード,都道府県名\n")},
		{"cut short", "sector", good[:1100]},
		{"a chain that loops", "loops", loop},
		{"a sector outside the file", "outside the file", outside},
		{"a string index past the table", "shared string 7 of 2", badIndex},
		{"cells spread too far", "more than", spread},
		{"strings past their records", "runs past", shortSST},
	}
}

func TestDamaged(t *testing.T) {
	for _, tt := range damaged() {
		t.Run(tt.name, func(t *testing.T) {
			wb, err := Parse(tt.file)
			if err == nil {
				_, err = wb.Rows("s")
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}

// TestRealList reads a list of the 総務省 as published: FY2005 (H17.xls), its header and 札幌's row.
func TestRealList(t *testing.T) {
	f, err := os.Open(testenv.Shared(t, "data/raw/finance/shuyo_zaisei_shihyo_city/H17.xls"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	wb, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := wb.Rows(wb.Sheets()[0])
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"都道府県名", "団体名", "経常収支比率", "実質公債費比率", "起債制限比率", "財政力指数", "ラスパイレス指数"},
		{"北海道", "札幌市", "96.5", "14", "14.8", "0.67", "98.6"},
	}
	if len(rows) < 3 || !slices.Equal(rows[1], want[0]) || !slices.Equal(rows[2], want[1]) {
		t.Errorf("rows 2–3 %q, want %q", rows[1:min(3, len(rows))], want)
	}
}

// FuzzParse: no workbook, however damaged, makes the reader panic or hang; the seeds are the
// workbooks of the tests above.
func FuzzParse(f *testing.F) {
	f.Add(compoundFile(workbookStream(sampleSST(), 2, sheetSpec{"s", sampleCells}), false))
	f.Add(compoundFile(workbookStream(sampleSST(), 2, sheetSpec{"s", sampleCells}), true))
	for _, d := range damaged() {
		if len(d.file) < 16<<10 { // large seeds slow every mutation down
			f.Add(d.file)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		wb, err := Parse(b)
		if err != nil {
			return
		}
		for _, s := range wb.Sheets() {
			rows, _ := wb.Rows(s)
			if len(rows) > 1<<16 {
				t.Fatalf("%d rows, BIFF8 has 65,536", len(rows))
			}
		}
	})
}
