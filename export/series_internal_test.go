package export

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/hensachi/hensachi/internal/testrig/towntest"
)

// TestSeriesCut: every choice of indicators (any order, none) and prefecture cut from the national
// table is the file written for that choice alone: the same CSV, as it is and gunzipped (the
// stream's CRC checked), and the same Parquet table.
func TestSeriesCut(t *testing.T) {
	c := towntest.Catalog()
	for _, tc := range []struct {
		pref       string
		indicators []int
	}{{"", []int{0, 1}}, {"", []int{1, 0}}, {"", []int{1}}, {"", nil}, {"13", []int{0, 1}}, {"01", []int{1, 0}}, {"01", nil}} {
		list, _ := c.List(tc.pref)
		for _, f := range []*Format{CSV, Parquet} {
			t.Run(fmt.Sprintf("%s %s %v", f.Name, tc.pref, tc.indicators), func(t *testing.T) {
				var want, got bytes.Buffer
				if err := writeSeries(&want, c, f, list.Items, tc.indicators); err != nil {
					t.Fatal(err)
				}
				file, err := Series(context.Background(), c, f, tc.pref, tc.indicators)
				if err != nil {
					t.Fatal(err)
				}
				if err := file.WriteBody(&got); err != nil || int64(got.Len()) != file.Len() {
					t.Fatalf("%v, %d bytes of %d", err, got.Len(), file.Len())
				}
				if f == Parquet {
					if g, w := parquetTable(t, got.Bytes()), parquetTable(t, want.Bytes()); g != w {
						t.Fatalf("got\n%s\nwant\n%s", g, w)
					}
					return
				}
				if !bytes.Equal(got.Bytes(), want.Bytes()) {
					t.Fatalf("got\n%s\nwant\n%s", got.Bytes(), want.Bytes())
				}
				var zipped bytes.Buffer
				if err := file.WriteGzipped(&zipped); err != nil || int64(zipped.Len()) != file.GzipLen() {
					t.Fatalf("gzipped: %v, %d bytes of %d", err, zipped.Len(), file.GzipLen())
				}
				zr, err := gzip.NewReader(&zipped)
				if err != nil {
					t.Fatal(err)
				}
				plain, err := io.ReadAll(zr) // checks the CRC and length
				if err != nil || !bytes.Equal(plain, want.Bytes()) {
					t.Fatalf("gunzipped: %v\n%s", err, plain)
				}
			})
		}
	}
}

// parquetTable is a Parquet file's schema and values as text.
func parquetTable(t *testing.T, b []byte) string {
	t.Helper()
	tbl, err := pqarrow.ReadTable(context.Background(), bytes.NewReader(b), nil, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	var s bytes.Buffer
	fmt.Fprintln(&s, tbl.Schema(), tbl.NumRows())
	for i := range int(tbl.NumCols()) {
		for _, chunk := range tbl.Column(i).Data().Chunks() {
			if chunk.Len() > 0 {
				fmt.Fprint(&s, chunk, " ")
			}
		}
		fmt.Fprintln(&s)
	}
	return s.String()
}

// TestCRC32Combine: the CRC of two parts joined is the CRC of the whole, empty parts included.
func TestCRC32Combine(t *testing.T) {
	for _, tc := range [][2]string{{"", ""}, {"a", ""}, {"", "b"}, {"hensachi", "偏差値,13101\r\n"}, {string(make([]byte, 100000)), "x"}} {
		a, b := []byte(tc[0]), []byte(tc[1])
		if got, want := crc32Combine(crc32.ChecksumIEEE(a), crc32.ChecksumIEEE(b), int64(len(b))), crc32.ChecksumIEEE(append(a, b...)); got != want {
			t.Errorf("%q + %q: %08x, want %08x", tc[0][:min(len(tc[0]), 10)], tc[1], got, want)
		}
	}
}
