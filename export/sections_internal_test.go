package export

import (
	"bytes"
	"io"
	"math/rand/v2"
	"sync"
	"testing"
)

// TestSectionsWriteTo: sections of an unlinked scratch file, large ones copied from a reader of
// their own (sendfile's path) and small ones gathered, come out as their bytes in order, from
// calls running at once over the same file, to a writer with ReadFrom and to one without.
func TestSectionsWriteTo(t *testing.T) {
	disk, err := NewScratch()
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 1<<20)
	for i := range data {
		data[i] = byte(rand.Uint32())
	}
	if _, err := disk.Write(data); err != nil {
		t.Fatal(err)
	}
	if own := reopen(disk); own == nil {
		t.Fatal("the scratch file could not be opened again") // Linux's /proc
	} else {
		own.Close()
	}
	s := sections{{bytes: []byte("head")}, {disk: disk, off: 5, n: 100}, {disk: disk, off: 200_000, n: 300_000},
		{disk: disk, off: 1000, n: gather - 1}, {disk: disk, off: 0, n: gather}, {bytes: bytes.Repeat([]byte{7}, gather+1)},
		{disk: disk, off: 9, n: 3}, {bytes: []byte("tail")}}
	var want []byte
	for _, p := range s {
		want = append(want, p.bytes...)
		want = append(want, data[p.off:p.off+p.n]...)
	}
	if int64(len(want)) != s.len() {
		t.Fatalf("len %d, want %d", s.len(), len(want))
	}
	var wg sync.WaitGroup
	for k := range 8 {
		wg.Go(func() {
			var got bytes.Buffer // whose ReadFrom io.Copy takes, as it takes a ResponseWriter's
			var w io.Writer = &got
			if k%2 == 1 {
				w = struct{ io.Writer }{&got} // Write alone
			}
			if err := s.writeTo(w); err != nil {
				t.Error(err)
			} else if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("writer %d: %d bytes differ from the %d written", k, got.Len(), len(want))
			}
		})
	}
	wg.Wait()
}

// TestSectionsShortFile: a section past the end of its file is an error, not a short body.
func TestSectionsShortFile(t *testing.T) {
	disk, err := NewScratch()
	if err != nil {
		t.Fatal(err)
	}
	disk.Write(make([]byte, 100))
	for _, n := range []int64{50, gather * 2} {
		if err := (sections{{disk: disk, off: 60, n: n}}).writeTo(io.Discard); err == nil {
			t.Errorf("%d bytes at 60 of 100: no error", n)
		}
	}
}
