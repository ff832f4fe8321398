package face

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"math"
	"testing"

	"github.com/hensachi/hensachi"
)

func TestCoarsestFactor(t *testing.T) {
	for _, tc := range []struct {
		scale float64
		want  scaleFactor
	}{
		{2, fullScale}, {1, fullScale}, {0.9, fullScale}, {0.625, fullScale}, {0.5, scaleFactor{1, 2}},
		{0.32, scaleFactor{1, 2}}, {0.25, scaleFactor{1, 4}}, {0.16, scaleFactor{1, 4}}, {0.125, scaleFactor{1, 8}},
		{0.01, scaleFactor{1, 8}}, {0, scaleFactor{1, 8}},
	} {
		if got := coarsestFactor(usedFactors, tc.scale); got != tc.want {
			t.Errorf("coarsestFactor(%v) = %v, want %v", tc.scale, got, tc.want)
		}
	}
	if got := coarsestFactor(nil, 0.1); got != fullScale {
		t.Errorf("coarsestFactor without factors = %v, want 1/1", got)
	}
	for _, tc := range []struct {
		f       scaleFactor
		n, want int
	}{
		{scaleFactor{1, 4}, 4000, 1000}, {scaleFactor{1, 4}, 4001, 1001}, {scaleFactor{1, 8}, 7, 1}, {fullScale, 333, 333}, {scaleFactor{1, 2}, 1, 1},
	} {
		if got := tc.f.scaled(tc.n); got != tc.want {
			t.Errorf("%v of %d = %d, want %d", tc.f, tc.n, got, tc.want)
		}
	}
}

// texture is a w×h grey image with detail at every scale, so that a wrong offset or a wrong
// scale shows in the pixels.
func texture(w, h int) *image.Gray {
	m := image.NewGray(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			m.Pix[y*m.Stride+x] = uint8(128 + 60*math.Sin(float64(x)/37) + 60*math.Cos(float64(y)/23+float64(x)/91))
		}
	}
	return m
}

// TestDecodePhotoLevels: the first decode is the coarsest DCT scale that still gives the main
// detection pass its pixels; finer levels come on demand, and each level is the full-size image
// averaged over its blocks.
func TestDecodePhotoLevels(t *testing.T) {
	requireTurboJPEG(t)
	for _, tc := range []struct {
		w, h  int
		first float64 // the first level's scale
	}{
		{4000, 3000, 0.25}, // main pass at 0.16
		{2600, 1950, 0.25}, // 0.246
		{2000, 1500, 0.5},  // 0.32
		{1280, 960, 0.5},   // 0.5
		{1024, 768, 1},     // 0.625
		{300, 200, 1},      // enlarged for the detector
	} {
		t.Run(fmt.Sprintf("%d×%d", tc.w, tc.h), func(t *testing.T) {
			data := encodeJPEG(t, texture(tc.w, tc.h), 95)
			p, err := DecodePhoto(data)
			if err != nil {
				t.Fatal(err)
			}
			if p.W != tc.w || p.H != tc.h || len(p.levels) != 1 || p.decodes != 1 {
				t.Fatalf("photo %d×%d with %d levels after %d decodes", p.W, p.H, len(p.levels), p.decodes)
			}
			if l := p.levels[0]; l.scale != tc.first || l.img.W != int(math.Ceil(float64(tc.w)*tc.first)) {
				t.Fatalf("first level at %v, %d×%d; want %v", l.scale, l.img.W, l.img.H, tc.first)
			}
			full, err := Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			for _, scale := range []float64{tc.first, 0.5, 1, 3} {
				l, err := p.pixels(scale)
				if err != nil {
					t.Fatal(err)
				}
				if l.scale < math.Min(scale, 1) || (l.scale > tc.first && l.scale > 2*scale && scale < 1) {
					t.Errorf("pixels(%v) gave the level at %v", scale, l.scale)
				}
				if d := meanDifference(l, full); d > 3 {
					t.Errorf("the level at %v differs from the full-size image averaged over its blocks by %.2f on average", l.scale, d)
				}
			}
			if l := p.levels[len(p.levels)-1]; l.scale != 1 || p.jpeg != nil {
				t.Errorf("the finest level is at %v; the file kept: %v", l.scale, p.jpeg != nil)
			}
		})
	}
}

// meanDifference compares a level with the full-size image averaged over each level pixel's block.
func meanDifference(l level, full *RGB) float64 {
	k := int(math.Round(1 / l.scale))
	var sum float64
	n := 0
	for y := 0; y+1 < l.img.H && (y+1)*k <= full.H; y++ {
		for x := 0; x+1 < l.img.W && (x+1)*k <= full.W; x++ {
			var avg float64
			for dy := range k {
				for dx := range k {
					avg += float64(full.at(x*k+dx, y*k+dy)[0])
				}
			}
			sum += math.Abs(avg/float64(k*k) - float64(l.img.at(x, y)[0]))
			n++
		}
	}
	return sum / float64(n)
}

// TestDecodePhotoOrientation stores a photo turned for each EXIF orientation, with sides that are
// not multiples of the DCT blocks, and finds a bright square where the level's map says the
// upright photo has it: the partial block the decoder pads moves to the left or top when the
// orientation flips that side.
func TestDecodePhotoOrientation(t *testing.T) {
	requireTurboJPEG(t)
	const w, h, x0, y0, side = 2601, 1953, 2200, 300, 48 // main pass at 0.246: the level at 1/4
	upright := canvas(w, h, 40)
	for y := y0; y < y0+side; y++ {
		for x := x0; x < x0+side; x++ {
			copy(upright.Pix[3*(y*w+x):], []uint8{250, 250, 250})
		}
	}
	centre := Point{X: x0 + side/2 - 0.5, Y: y0 + side/2 - 0.5}
	inverse := map[int]int{1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 8, 7: 7, 8: 6}
	for o := 1; o <= 8; o++ {
		t.Run(fmt.Sprint(o), func(t *testing.T) {
			stored := encodeJPEG(t, upright.Orient(inverse[o]).image(), 90)
			p, err := DecodePhoto(withOrientation(stored, binaryOrders[o%2], o))
			if err != nil {
				t.Fatal(err)
			}
			if p.W != w || p.H != h {
				t.Fatalf("photo %d×%d, want %d×%d upright", p.W, p.H, w, h)
			}
			for _, scale := range []float64{0.25, 1} {
				l, err := p.pixels(scale)
				if err != nil {
					t.Fatal(err)
				}
				want := l.at(centre)
				got := brightCentroid(l.img)
				if math.Abs(got.X-want.X) > 0.2 || math.Abs(got.Y-want.Y) > 0.2 {
					t.Errorf("at %v the square is centred at (%.2f, %.2f), the map says (%.2f, %.2f)", l.scale, got.X, got.Y, want.X, want.Y)
				}
			}
		})
	}
}

// brightCentroid is the centre of the pixels brighter than mid-grey, weighted by how much.
func brightCentroid(img *RGB) Point {
	var sx, sy, sw float64
	for y := range img.H {
		for x := range img.W {
			if v := float64(img.at(x, y)[1]); v > 128 {
				sx, sy, sw = sx+v*float64(x), sy+v*float64(y), sw+v
			}
		}
	}
	return Point{X: sx / sw, Y: sy / sw}
}

// TestDecodePhotoErrors: whatever libjpeg-turbo makes of a bad file, DecodePhoto refuses it with
// the very error Decode gives (image/jpeg's verdict, in the service's words).
func TestDecodePhotoErrors(t *testing.T) {
	requireTurboJPEG(t)
	jpg := encodeJPEG(t, texture(64, 48), 90)
	sos := sosOffset(t, jpg)
	damaged := func(at int, with []byte) []byte {
		d := bytes.Clone(jpg)
		copy(d[at:], with)
		return d
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"gif", []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00")},
		{"jpeg magic only", []byte{0xFF, 0xD8, 0xFF}},
		{"cut in the header", jpg[:sos-10]},
		{"cut after the scan header", jpg[:sos+20]},
		{"without its end", jpg[:len(jpg)-len(jpg)/3]},
		{"without the end marker", jpg[:len(jpg)-2]},
		{"scan data damaged", damaged(sos+14, bytes.Repeat([]byte{0xFF, 0x00, 0xFF}, 20))},
		{"a marker inside the scan", damaged(sos+40, []byte{0xFF, 0xC4, 0x00, 0x03, 0x00})},
		{"huffman table damaged", damaged(bytes.Index(jpg, []byte{0xFF, 0xC4})+5, bytes.Repeat([]byte{0xFF}, 16))},
		{"quantisation table zeroed", damaged(bytes.Index(jpg, []byte{0xFF, 0xDB})+5, make([]byte, 64))},
		{"bomb header", withJPEGSize(t, jpg, 20000, 20000)},
		{"declares a larger image than its data", withJPEGSize(t, jpg, 640, 480)},
		{"declares a smaller image than its data", withJPEGSize(t, jpg, 16, 16)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := decodeOutcome(Decode(tc.data))
			if got := decodeOutcome(DecodePhoto(tc.data)); got != want {
				t.Errorf("DecodePhoto: %s\nDecode:      %s", got, want)
			}
		})
	}
}

// decodeOutcome is what a caller learns from a decoder: the size, or the error's code and message.
func decodeOutcome[T interface{ *RGB | *Photo }](img T, err error) string {
	if err != nil {
		return fmt.Sprintf("%s: %v", hensachi.ErrorCode(err), err)
	}
	switch m := any(img).(type) {
	case *RGB:
		return fmt.Sprintf("%d×%d", m.W, m.H)
	case *Photo:
		return fmt.Sprintf("%d×%d", m.W, m.H)
	}
	return ""
}

// TestDecodePhotoWithoutTurboJPEG: without the library, the photo is the full-size image
// Decode gives, decoded once.
func TestDecodePhotoWithoutTurboJPEG(t *testing.T) {
	withoutTurboJPEG(t)
	for name, data := range map[string][]byte{
		"jpeg":         encodeJPEG(t, texture(2000, 1500), 90),
		"jpeg rotated": withOrientation(encodeJPEG(t, texture(300, 200), 90), binary.BigEndian, 6),
		"png":          encodePNG(t, texture(700, 500)),
	} {
		t.Run(name, func(t *testing.T) {
			p, err := DecodePhoto(data)
			if err != nil {
				t.Fatal(err)
			}
			want, err := Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			l, err := p.pixels(0.1)
			if err != nil {
				t.Fatal(err)
			}
			if p.decodes != 1 || len(p.levels) != 1 || l.scale != 1 || p.W != want.W || p.H != want.H || !bytes.Equal(l.img.Pix, want.Pix) {
				t.Errorf("%d decodes, %d levels, the coarsest at %v: not the full-size image Decode gives", p.decodes, len(p.levels), l.scale)
			}
		})
	}
}

// withoutTurboJPEG switches libjpeg-turbo off for the rest of the test.
func withoutTurboJPEG(t *testing.T) {
	turboFactors() // loaded before, so that the switch is not undone by the first load
	turbo.off.Store(true)
	t.Cleanup(func() { turbo.off.Store(false) })
}

func TestPhotoPreview(t *testing.T) {
	for _, tc := range []struct {
		name      string
		data      []byte
		side      int
		w, h      int
		turboOnly bool
	}{
		{"large jpeg", encodeJPEG(t, texture(2600, 1950), 90), 640, 640, 480, true},
		{"jpeg on its side", withOrientation(encodeJPEG(t, texture(2600, 1950), 90), binary.LittleEndian, 6), 640, 480, 640, true},
		{"small jpeg", encodeJPEG(t, texture(300, 200), 90), 640, 300, 200, false},
		{"png", encodePNG(t, texture(900, 600)), 450, 450, 300, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.turboOnly {
				requireTurboJPEG(t)
			}
			p, err := DecodePhoto(tc.data)
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Preview(tc.side)
			if err != nil {
				t.Fatal(err)
			}
			if got.W != tc.w || got.H != tc.h || len(got.Pix) != 3*tc.w*tc.h {
				t.Fatalf("preview %d×%d with %d bytes, want %d×%d", got.W, got.H, len(got.Pix), tc.w, tc.h)
			}
			if tc.turboOnly && p.decodes != 1 {
				t.Errorf("the preview took %d decodes; the first level has its pixels", p.decodes)
			}
		})
	}
}

// TestOpenTurboJPEGRefusesOtherLibraries: a missing file, or a library without the TurboJPEG
// functions, is refused with the reason, and the library already loaded keeps working.
func TestOpenTurboJPEGRefusesOtherLibraries(t *testing.T) {
	for _, path := range []string{"libturbojpeg-absent.so.0", "libc.so.6"} {
		if factors, err := openTurboJPEG(path); err == nil {
			t.Errorf("openTurboJPEG(%s) = %v, want an error", path, factors)
		} else {
			t.Logf("%s: %v", path, err)
		}
	}
	if turboFactors() == nil {
		return
	}
	p, err := DecodePhoto(encodeJPEG(t, texture(2600, 1950), 80))
	if err != nil || p.levels[0].scale != 0.25 {
		t.Fatalf("DecodePhoto after the refused libraries: %v", err)
	}
}
