package csvfile_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/csvfile"
)

// TestWrite: a byte-order mark, the names, CRLF line ends, quoting where needed, numbers as the
// JSON API writes them and an empty cell for null.
func TestWrite(t *testing.T) {
	var b bytes.Buffer
	err := csvfile.Write(&b, []hensachi.Column{
		{Name: "code", Strings: []string{"01100", "13101"}},
		{Name: "name", Strings: []string{"札幌市", "千代田区, \"東京\""}},
		{Name: "rank", Ints: []hensachi.Optional[int64]{hensachi.Some(int64(3)), {}}},
		{Name: "value", Floats: []hensachi.Optional[float64]{{}, hensachi.Some(1234567.5)}},
		{Name: "share", Floats: []hensachi.Optional[float64]{hensachi.Some(0.125), hensachi.Some(-31.19)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "\uFEFFcode,name,rank,value,share\r\n" +
		"01100,札幌市,3,,0.125\r\n" +
		"13101,\"千代田区, \"\"東京\"\"\",,1234567.5,-31.19\r\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
}

func TestColumnsOfUnequalLength(t *testing.T) {
	err := csvfile.Write(&bytes.Buffer{}, []hensachi.Column{
		{Name: "code", Strings: []string{"01100", "13101"}},
		{Name: "rank", Ints: []hensachi.Optional[int64]{hensachi.Some(int64(1))}},
	})
	if err == nil || !strings.Contains(err.Error(), "rank") {
		t.Errorf("unequal columns: %v", err)
	}
}

// TestTrailer: a line after the table is a row of the table's width, the line in its first cell.
func TestTrailer(t *testing.T) {
	var b bytes.Buffer
	w := csvfile.NewWriter(&b)
	if err := w.Trailer("出典：x"); err == nil {
		t.Error("a trailer before the header")
	}
	if err := w.Write([]hensachi.Column{{Name: "a", Strings: []string{"1"}}, {Name: "b", Strings: []string{"2"}}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Trailer("出典：統計, 加工"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if want := "\uFEFFa,b\r\n1,2\r\n\"出典：統計, 加工\",\r\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
