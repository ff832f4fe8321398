package face

import (
	"encoding/binary"
	"image"
	"image/color"
	"image/color/palette"
	"math"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/jpegtest"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

// fuzzSeeds are small valid images of every layout the decoder meets, some with EXIF.
func fuzzSeeds(t testing.TB) [][]byte {
	grad := gradient(9, 7)
	gray := image.NewGray(image.Rect(0, 0, 5, 3))
	for i := range gray.Pix {
		gray.Pix[i] = uint8(40 * i)
	}
	translucent := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	for i := range translucent.Pix {
		translucent.Pix[i] = uint8(37 * i)
	}
	paletted := image.NewPaletted(image.Rect(0, 0, 4, 4), palette.Plan9)
	for i := range paletted.Pix {
		paletted.Pix[i] = uint8(i * 13)
	}
	deep := image.NewRGBA64(image.Rect(0, 0, 3, 3))
	deep.SetRGBA64(1, 1, color.RGBA64{0x1234, 0x5678, 0x9abc, 0xffff})
	jpg := encodeJPEG(t, grad, 75)
	return [][]byte{
		jpg,
		encodeJPEG(t, gray, 90),
		withOrientation(jpg, binary.LittleEndian, 6),
		withOrientation(jpg, binary.BigEndian, 3),
		withOrientation(encodeJPEG(t, gray, 50), binary.BigEndian, 8),
		encodePNG(t, grad),
		encodePNG(t, gray),
		encodePNG(t, translucent),
		encodePNG(t, paletted),
		encodePNG(t, deep),
		pngHeaderOnly(20000, 20000),
		withJPEGSize(t, jpg, 9000, 9000),
		jpg[:len(jpg)/2],
		[]byte("GIF89a"),
		// progressive: an ordinary script, and more scans than the service decodes (MaxScans)
		jpegtest.Progressive(24, 16, 3, jpegtest.LibjpegScript),
		jpegtest.ManyScans(16, 16, MaxScans+1),
	}
}

// FuzzDecode feeds arbitrary bytes to Decode: it never panics, fails only with the two codes of a
// bad upload, and a decoded image is within the limits with its pixels all there.
func FuzzDecode(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		img, err := Decode(data)
		if err != nil {
			if img != nil {
				t.Fatalf("an image and an error %v", err)
			}
			switch code := hensachi.ErrorCode(err); code {
			case hensachi.EUnsupportedMedia:
				if _, ok := Sniff(data); ok {
					t.Fatalf("a %d-byte JPEG or PNG refused as unsupported: %v", len(data), err)
				}
			case hensachi.EInvalidImage:
			default:
				t.Fatalf("error code %q: %v", code, err)
			}
			return
		}
		if img.W <= 0 || img.H <= 0 || img.W > MaxSide || img.H > MaxSide || img.W*img.H > MaxPixels {
			t.Fatalf("decoded a %d×%d image", img.W, img.H)
		}
		if len(img.Pix) != 3*img.W*img.H {
			t.Fatalf("%d×%d image with %d bytes of pixels", img.W, img.H, len(img.Pix))
		}
	})
}

// FuzzDecodePhoto feeds arbitrary bytes to DecodePhoto, libjpeg-turbo's path where the machine
// has it: it never panics, refuses a file with the very error Decode gives, and a photo it accepts
// is within the limits, with levels of the size their scale says and full-size pixels to be had
// (or, when libjpeg-turbo read a coarse level that image/jpeg refuses in full, Decode's error).
func FuzzDecodePhoto(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	// wide strips, small files that are decoded at 1/2 and 1/8 of their size
	for _, w := range []int{1280, 6000} {
		jpg := encodeJPEG(f, gradient(w, 9), 60)
		f.Add(jpg)
		f.Add(withOrientation(jpg, binary.LittleEndian, 7))
		f.Add(jpg[:len(jpg)*2/3])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := DecodePhoto(data)
		_, want := Decode(data)
		if err != nil {
			if p != nil {
				t.Fatalf("a photo and an error %v", err)
			}
			if want == nil || err.Error() != want.Error() || hensachi.ErrorCode(err) != hensachi.ErrorCode(want) {
				t.Fatalf("DecodePhoto: %v; Decode: %v", err, want)
			}
			return
		}
		if p.W <= 0 || p.H <= 0 || p.W > MaxSide || p.H > MaxSide || p.W*p.H > MaxPixels {
			t.Fatalf("decoded a %d×%d photo", p.W, p.H)
		}
		for _, l := range p.levels {
			if len(l.img.Pix) != 3*l.img.W*l.img.H || math.Abs(float64(l.img.W)-float64(p.W)*l.scale) >= 1 || math.Abs(float64(l.img.H)-float64(p.H)*l.scale) >= 1 {
				t.Fatalf("a %d×%d level with %d bytes at %v of a %d×%d photo", l.img.W, l.img.H, len(l.img.Pix), l.scale, p.W, p.H)
			}
		}
		full, err := p.pixels(1)
		switch {
		case err != nil && (want == nil || err.Error() != want.Error()):
			t.Fatalf("full-size pixels: %v; Decode: %v", err, want)
		case err == nil && (full.scale != 1 || full.img.W != p.W || full.img.H != p.H):
			t.Fatalf("full-size pixels %d×%d at %v for a %d×%d photo", full.img.W, full.img.H, full.scale, p.W, p.H)
		case err == nil && want != nil:
			t.Logf("libjpeg-turbo decodes what image/jpeg refuses: %v", want)
		}
	})
}

// FuzzJPEGOrientation feeds arbitrary bytes after a JPEG's start-of-image marker to the EXIF
// reader: it never panics and always answers a valid orientation.
func FuzzJPEGOrientation(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	for _, s := range fuzzSeeds(f) {
		if len(s) > 2 && s[0] == 0xFF && s[1] == 0xD8 {
			f.Add(s[2:])
		}
	}
	seg := exifAPP1(tiff(binary.BigEndian, ifdEntry{tag: 0x010F, typ: 2, count: 4, value: 0x41424300}, orientationEntry(7)))
	f.Add(seg)
	f.Add(append([]byte{0xFF, 0xFF}, seg...))
	f.Add(exifAPP1(tiff(binary.LittleEndian, orientationEntry(5))))
	f.Add(exifAPP1(tiff(binary.LittleEndian, orientationEntry(0))))
	f.Fuzz(func(t *testing.T, data []byte) {
		if v := jpegOrientation(append([]byte{0xFF, 0xD8}, data...)); v < 1 || v > 8 {
			t.Fatalf("orientation %d", v)
		}
		if v := jpegOrientation(data); v < 1 || v > 8 { // without the marker, or shorter than it
			t.Fatalf("orientation %d without the SOI marker", v)
		}
	})
}
