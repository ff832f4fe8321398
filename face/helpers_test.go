package face

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"testing"

	"github.com/hensachi/hensachi"
)

// Builders of small synthetic images and of the byte-level structures the decoder inspects.

// wantCode fails unless err carries the hensachi error code.
func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := hensachi.ErrorCode(err); got != code {
		t.Fatalf("error %v has code %q, want %q", err, got, code)
	}
}

func encodeJPEG(t testing.TB, img image.Image, quality int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: quality}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodePNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// gradient is a w×h image whose red grows to the right and green downwards.
func gradient(w, h int) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			m.SetNRGBA(x, y, color.NRGBA{uint8(255 * x / max(1, w-1)), uint8(255 * y / max(1, h-1)), 90, 255})
		}
	}
	return m
}

// segment is a JPEG marker segment: FF, marker, big-endian length (counting itself), payload.
func segment(marker byte, payload []byte) []byte {
	s := []byte{0xFF, marker, 0, 0}
	binary.BigEndian.PutUint16(s[2:], uint16(2+len(payload)))
	return append(s, payload...)
}

// insertAfterSOI puts segments right after a JPEG's start-of-image marker.
func insertAfterSOI(jpg []byte, segs ...[]byte) []byte {
	out := append([]byte{}, jpg[:2]...)
	for _, s := range segs {
		out = append(out, s...)
	}
	return append(out, jpg[2:]...)
}

// ifdEntry is one 12-byte TIFF directory entry; value holds the first 4 bytes of the value field.
type ifdEntry struct {
	tag, typ uint16
	count    uint32
	value    uint32
}

// byteOrder is binary.LittleEndian or binary.BigEndian.
type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

// tiff is a TIFF header followed by IFD0 at offset 8 with the entries, in byte order bo.
func tiff(bo byteOrder, entries ...ifdEntry) []byte {
	t := make([]byte, 8, 8+2+12*len(entries)+4)
	if bo.String() == binary.LittleEndian.String() {
		copy(t, "II")
	} else {
		copy(t, "MM")
	}
	bo.PutUint16(t[2:], 42)
	bo.PutUint32(t[4:], 8)
	t = bo.AppendUint16(t, uint16(len(entries)))
	for _, e := range entries {
		t = bo.AppendUint16(t, e.tag)
		t = bo.AppendUint16(t, e.typ)
		t = bo.AppendUint32(t, e.count)
		if e.typ == 3 && e.count == 1 { // a SHORT sits left-justified in the value field
			t = bo.AppendUint16(t, uint16(e.value))
			t = append(t, 0, 0)
		} else {
			t = bo.AppendUint32(t, e.value)
		}
	}
	return bo.AppendUint32(t, 0) // no next IFD
}

// orientationEntry is the EXIF Orientation tag as a SHORT.
func orientationEntry(v int) ifdEntry {
	return ifdEntry{tag: 0x0112, typ: 3, count: 1, value: uint32(v)}
}

// exifAPP1 is an APP1 segment with the EXIF header and the TIFF block.
func exifAPP1(tiffBlock []byte) []byte {
	return segment(0xE1, append([]byte("Exif\x00\x00"), tiffBlock...))
}

// withOrientation marks a JPEG with an EXIF orientation in byte order bo.
func withOrientation(jpg []byte, bo byteOrder, orientation int) []byte {
	return insertAfterSOI(jpg, exifAPP1(tiff(bo, orientationEntry(orientation))))
}

// pngChunk is a PNG chunk with its CRC.
func pngChunk(typ string, data []byte) []byte {
	c := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	c = append(c, typ...)
	c = append(c, data...)
	return binary.BigEndian.AppendUint32(c, crc32.ChecksumIEEE(c[4:]))
}

// pngHeaderOnly is a PNG signature and an IHDR declaring a w×h 8-bit RGBA image, and nothing else:
// a decompression bomb's header.
func pngHeaderOnly(w, h uint32) []byte {
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 6, 0, 0, 0) // depth 8, RGBA, deflate, adaptive filter, no interlace
	out := []byte("\x89PNG\r\n\x1a\n")
	out = append(out, pngChunk("IHDR", ihdr)...)
	// a tiny IDAT, so that only the header guard stands between the decoder and the allocation
	return append(out, pngChunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})...)
}

// withJPEGSize rewrites the frame header of a JPEG to declare w×h pixels.
func withJPEGSize(t testing.TB, jpg []byte, w, h uint16) []byte {
	t.Helper()
	out := bytes.Clone(jpg)
	for i := 2; i+9 < len(out); {
		if out[i] != 0xFF {
			t.Fatalf("no marker at %d", i)
		}
		marker := out[i+1]
		if marker == 0xC0 || marker == 0xC1 || marker == 0xC2 {
			binary.BigEndian.PutUint16(out[i+5:], h)
			binary.BigEndian.PutUint16(out[i+7:], w)
			return out
		}
		i += 2 + int(binary.BigEndian.Uint16(out[i+2:]))
	}
	t.Fatal("no SOF marker")
	return nil
}

// sosOffset is where the start-of-scan segment of a JPEG begins.
func sosOffset(t testing.TB, jpg []byte) int {
	t.Helper()
	for i := 2; i+4 <= len(jpg); {
		if jpg[i+1] == 0xDA {
			return i
		}
		i += 2 + int(binary.BigEndian.Uint16(jpg[i+2:]))
	}
	t.Fatal("no SOS marker")
	return 0
}

// rgbOf converts an image with the standard library's colour model, for comparisons.
func rgbOf(img image.Image) *RGB {
	b := img.Bounds()
	out := &RGB{W: b.Dx(), H: b.Dy(), Pix: make([]uint8, 0, 3*b.Dx()*b.Dy())}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			out.Pix = append(out.Pix, uint8(r>>8), uint8(g>>8), uint8(bl>>8))
		}
	}
	return out
}

// at is the pixel at (x, y).
func (m *RGB) at(x, y int) [3]uint8 {
	i := 3 * (y*m.W + x)
	return [3]uint8{m.Pix[i], m.Pix[i+1], m.Pix[i+2]}
}

// image returns the RGB image as an opaque *image.RGBA, for encoding.
func (m *RGB) image() *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, m.W, m.H))
	for i := range m.W * m.H {
		copy(out.Pix[4*i:4*i+3], m.Pix[3*i:3*i+3])
		out.Pix[4*i+3] = 255
	}
	return out
}

// requireTurboJPEG skips a test of scaled decoding on a machine without libjpeg-turbo, except under
// CI=true, where .ci/run installs it and its absence is a failure.
func requireTurboJPEG(t testing.TB) {
	t.Helper()
	if turboFactors() != nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("libjpeg-turbo (%s) missing under CI", turboJPEGLibrary)
	}
	t.Skipf("libjpeg-turbo (%s) missing: apt-get install libturbojpeg0; CI=true makes this a failure", turboJPEGLibrary)
}
