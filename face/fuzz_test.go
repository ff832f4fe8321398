package face

import (
	"encoding/binary"
	"image"
	"image/color"
	"image/color/palette"
	"testing"

	"github.com/hensachi/hensachi"
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
	}
}

// FuzzDecode feeds arbitrary bytes to Decode: it never panics, fails only with the two codes of a
// bad upload, and a decoded image is within the limits with its pixels all there.
func FuzzDecode(f *testing.F) {
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

// FuzzJPEGOrientation feeds arbitrary bytes after a JPEG's start-of-image marker to the EXIF
// reader: it never panics and always answers a valid orientation.
func FuzzJPEGOrientation(f *testing.F) {
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
