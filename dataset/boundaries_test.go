package dataset

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hensachi/hensachi/geo"
)

// twoBoundaries are boundaries for twoMunicipalities: a square and a square with a hole and an
// island, on two grids.
func twoBoundaries() geo.Boundaries {
	square := geo.QRing{{0, 0}, {10, 0}, {10, 10}, {0, 10}, {0, 0}}
	hole := geo.QRing{{2, 2}, {2, 4}, {4, 4}, {2, 2}}
	island := geo.QRing{{-100000, 70000}, {-99990, 70000}, {-99990, 70010}, {-100000, 70000}}
	shapes := []geo.QShape{{{square}}, {{square, hole}, {island}}}
	return geo.Boundaries{
		Coarse: geo.Layer{Transform: geo.Transform{Scale: [2]float64{0.001, 0.001}, Translate: [2]float64{122, 24}}, Shapes: shapes},
		Fine:   geo.Layer{Transform: geo.Transform{Scale: [2]float64{0.0001, 0.0001}, Translate: [2]float64{122.5, 24}}, Shapes: shapes},
	}
}

func writeBoundaries(t *testing.T, opts ...Option) string {
	t.Helper()
	ms, meta := twoMunicipalities()
	path := filepath.Join(t.TempDir(), "dataset.arrow")
	if _, err := Write(path, ms, meta, opts...); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestBoundariesRoundTrip(t *testing.T) {
	want := twoBoundaries()
	ds, err := Open(writeBoundaries(t, WithBoundaries(&want, "")))
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	got, err := ds.Boundaries()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("boundaries %+v, want %+v", got, want)
	}
}

func TestWithoutBoundaries(t *testing.T) {
	cases := []struct {
		name string
		opts []Option
		want string
	}{
		{"none", nil, "built without boundary files"},
		{"a reason", []Option{WithBoundaries(nil, "boundary file: no such file")}, "boundary file: no such file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ds, err := Open(writeBoundaries(t, c.opts...))
			if err != nil {
				t.Fatal(err)
			}
			defer ds.Close()
			if _, err := ds.Boundaries(); !errors.Is(err, ErrNoBoundaries) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want ErrNoBoundaries with %q", err, c.want)
			}
		})
	}
}

// TestBoundariesMisfit: boundaries that do not fit the municipalities are refused by Write.
func TestBoundariesMisfit(t *testing.T) {
	b := twoBoundaries()
	b.Fine.Shapes = b.Fine.Shapes[:1]
	ms, meta := twoMunicipalities()
	if _, err := Write(filepath.Join(t.TempDir(), "dataset.arrow"), ms, meta, WithBoundaries(&b, "")); err == nil {
		t.Error("boundaries for one of two municipalities written")
	}
}

// TestDamagedBoundaries changes a byte of the island's boundary in the file: the dataset opens
// with every figure, and only Boundaries refuses, saying the columns are damaged.
func TestDamagedBoundaries(t *testing.T) {
	path := writeBoundaries(t, WithBoundaries(new(twoBoundaries()), ""))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// the island's first position: zigzag varints of its difference from the hole's last
	enc := encodeShape(twoBoundaries().Fine.Shapes[1])
	at := bytes.LastIndex(data, enc)
	if at < 0 {
		t.Fatal("shape not found in the file")
	}
	data[at+len(enc)-3] ^= 0x01
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := Open(path)
	if err != nil {
		t.Fatalf("a damaged boundary refused the whole dataset: %v", err)
	}
	defer ds.Close()
	if m := ds.Municipality(1); m.Name != "中央区" {
		t.Errorf("row 1 is %s", m.Name)
	}
	if _, err := ds.Boundaries(); !errors.Is(err, ErrNoBoundaries) || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("error %v, want ErrNoBoundaries naming the damage", err)
	}
}

func TestDecodeShapeDamaged(t *testing.T) {
	enc := encodeShape(twoBoundaries().Fine.Shapes[1])
	for _, c := range []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"cut short", enc[:len(enc)-1]},
		{"trailing bytes", append(append([]byte{}, enc...), 0)},
		{"a count beyond the bytes", append([]byte{0xff, 0xff, 0x03}, enc[1:]...)},
	} {
		if s, err := decodeShape(c.b); err == nil {
			t.Errorf("%s: decoded %v", c.name, s)
		}
	}
}

// FuzzDecodeShape: decodeShape returns an error or a shape that survives a round trip.
func FuzzDecodeShape(f *testing.F) {
	for _, s := range twoBoundaries().Fine.Shapes {
		f.Add(encodeShape(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := decodeShape(b)
		if err != nil {
			return
		}
		again, err := decodeShape(encodeShape(s))
		if err != nil || !reflect.DeepEqual(again, s) {
			t.Fatalf("%x decodes to %v, which reads back as %v, %v", b, s, again, err)
		}
	})
}
