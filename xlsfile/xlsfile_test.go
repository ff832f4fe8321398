package xlsfile

import (
	"encoding/binary"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/hensachi/hensachi/internal/testrig/testenv"
	"github.com/hensachi/hensachi/internal/testrig/xlswrite"
)

// The tests write their workbooks with xlswrite, record by record.

type biff = xlswrite.Records

var (
	le16       = xlswrite.U16
	le32       = xlswrite.U32
	f64        = xlswrite.F64
	xlString   = xlswrite.XLString
	cellHead   = xlswrite.Cell
	sheetSpec  = func(name string, cells func(w *biff)) xlswrite.Sheet { return xlswrite.Sheet{Name: name, Cells: cells} }
	writeFile  = xlswrite.File
	biffStream = xlswrite.Stream
)

// sampleCells has one cell of each kind the reader knows.
func sampleCells(w *biff) {
	w.Add(recLabelSST, cellHead(0, 0), le32(0))
	w.Add(recLabelSST, cellHead(1, 0), le32(1))
	w.Add(recNumber, cellHead(1, 1), f64(0.67))
	w.Add(recRK, cellHead(1, 2), le32(uint32(986)<<2|2|1)) // the integer 986, divided by 100
	w.Add(recMulRK, le16(2), le16(1), le16(15), le32(0xFFFFFFEC|2), le16(15), le32(uint32(math.Float64bits(14.5)>>32)), le16(2))
	w.Add(recFormula, cellHead(3, 0), f64(-0.4), make([]byte, 6))
	w.Add(recFormula, cellHead(3, 1), []byte{0, 0, 0, 0, 0, 0, 0xFF, 0xFF}, make([]byte, 6))
	w.Add(recString, xlString("－", 2))
	w.Add(recLabel, cellHead(4, 3), xlString("ラベル", 2))
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
		{"every kind of cell", writeFile(biffStream(sampleSST(), 2, sheetSpec("一覧 ", sampleCells)), false), "一覧 ", sampleRows},
		{"in the mini stream", writeFile(biffStream(sampleSST(), 2, sheetSpec("一覧 ", sampleCells)), true), "一覧 ", sampleRows},
		{"the second sheet", writeFile(biffStream(sampleSST(), 2,
			sheetSpec("first", func(w *biff) { w.Add(recNumber, cellHead(0, 0), f64(1)) }),
			sheetSpec("second", func(w *biff) { w.Add(recNumber, cellHead(0, 1), f64(1e21)) })), false),
			"second", [][]string{{"", "1000000000000000000000"}}},
		{"a shared string across a CONTINUE", writeFile(biffStream([][]byte{split, cont}, 1,
			sheetSpec("s", func(w *biff) { w.Add(recLabelSST, cellHead(0, 0), le32(0)) })), false),
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
	good := writeFile(biffStream(sampleSST(), 2, sheetSpec("s", sampleCells)), false)
	loop := slices.Clone(good)
	binary.LittleEndian.PutUint32(loop[512+4*3:], 3) // the stream's first sector (3, after the FAT, the directory and the mini FAT) points to itself
	outside := slices.Clone(good)
	binary.LittleEndian.PutUint32(outside[0x30:], 9999) // the directory begins past the end
	badIndex := writeFile(biffStream(sampleSST(), 2, sheetSpec("s", func(w *biff) {
		w.Add(recLabelSST, cellHead(0, 0), le32(7))
	})), false)
	spread := writeFile(biffStream(nil, 0, sheetSpec("s", func(w *biff) {
		for r := range 5000 {
			w.Add(recNumber, cellHead(r, 255), f64(1))
		}
	})), false)
	shortSST := writeFile(biffStream([][]byte{slices.Concat(le16(50), []byte{0}, []byte("ab"))}, 1<<30, sheetSpec("s", sampleCells)), false)
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
	f.Add(writeFile(biffStream(sampleSST(), 2, sheetSpec("s", sampleCells)), false))
	f.Add(writeFile(biffStream(sampleSST(), 2, sheetSpec("s", sampleCells)), true))
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
