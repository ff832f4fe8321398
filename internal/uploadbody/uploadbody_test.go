package uploadbody

import (
	"bytes"
	"errors"
	"testing"
	"testing/iotest"
)

// TestReadAll: the buffer starts at the bytes held, and each growth is held first, doubling up to
// the most; what is held in all is what the upload needed, at most twice its size; a refused
// growth ends the reading with the refusal.
func TestReadAll(t *testing.T) {
	refused := errors.New("no room")
	for _, c := range []struct {
		name       string
		size, held int
		most       int
		room       int64 // what hold grants in all
		wantHeld   int64 // held through hold
		err        error
	}{
		{"within what is held", 1000, 4096, 4097, 0, 0, nil},
		{"exactly what is held", 4096, 4096, 4097, 1, 1, nil},
		{"grows by doubling", 100_000, 4096, 200_000, 1 << 20, 131072 - 4096, nil},
		{"stops at the most", 300_000, 4096, 200_001, 1 << 20, 200_001 - 4096, nil},
		{"refused part-way", 100_000, 4096, 200_000, 50_000, 0, refused},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := bytes.Repeat([]byte{7}, c.size)
			var granted int64
			hold := func(n int64) error {
				if granted+n > c.room {
					return refused
				}
				granted += n
				return nil
			}
			got, err := ReadAll(iotest.HalfReader(bytes.NewReader(data)), c.held, c.most, hold)
			if !errors.Is(err, c.err) {
				t.Fatalf("error %v, want %v", err, c.err)
			}
			if err != nil {
				return
			}
			if want := min(c.size, c.most); len(got) != want || granted != c.wantHeld {
				t.Errorf("read %d bytes holding %d more, want %d holding %d", len(got), granted, want, c.wantHeld)
			}
		})
	}
}
