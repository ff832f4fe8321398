package face

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/color/palette"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/hensachi/hensachi"
)

func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		name   string
		data   []byte
		format Format
		ok     bool
	}{
		{"jpeg", []byte{0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10}, JPEG, true},
		{"jpeg magic only", []byte{0xFF, 0xD8, 0xFF}, JPEG, true},
		{"png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR"), PNG, true},
		{"png signature only", []byte("\x89PNG\r\n\x1a\n"), PNG, true},
		{"jpeg cut", []byte{0xFF, 0xD8}, "", false},
		{"png cut", []byte("\x89PNG\r\n\x1a"), "", false},
		{"gif", []byte("GIF89a\x01\x00\x01\x00"), "", false},
		{"webp", []byte("RIFF\x00\x00\x00\x00WEBPVP8 "), "", false},
		{"text", []byte("hello, world"), "", false},
		{"empty", nil, "", false},
		{"jpeg magic later", []byte{0, 0xFF, 0xD8, 0xFF}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, ok := Sniff(tc.data)
			if f != tc.format || ok != tc.ok {
				t.Errorf("Sniff = %q, %v; want %q, %v", f, ok, tc.format, tc.ok)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	small := gradient(16, 16)
	jpg := encodeJPEG(t, small, 90)
	pngData := encodePNG(t, small)
	sos := sosOffset(t, jpg)
	for _, tc := range []struct {
		name string
		data []byte
		code string
	}{
		{"empty", nil, hensachi.EUnsupportedMedia},
		{"gif", []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00"), hensachi.EUnsupportedMedia},
		{"text", []byte("<html>not an image</html>"), hensachi.EUnsupportedMedia},
		{"jpeg magic only", []byte{0xFF, 0xD8, 0xFF}, hensachi.EInvalidImage},
		{"jpeg cut in the header", jpg[:sos-10], hensachi.EInvalidImage},
		{"jpeg cut after the scan header", jpg[:sos+20], hensachi.EInvalidImage},
		{"jpeg without its end", jpg[:len(jpg)-len(jpg)/3], hensachi.EInvalidImage},
		{"png signature only", []byte("\x89PNG\r\n\x1a\n"), hensachi.EInvalidImage},
		{"png cut in IHDR", pngData[:20], hensachi.EInvalidImage},
		{"png cut in IDAT", pngData[:len(pngData)-20], hensachi.EInvalidImage},
		{"png bad IHDR crc", func() []byte { d := bytes.Clone(pngData); d[29] ^= 0xFF; return d }(), hensachi.EInvalidImage},
		{"png zero width", pngHeaderOnly(0, 10), hensachi.EInvalidImage},
		{"jpeg scan data damaged", func() []byte {
			d := bytes.Clone(jpg)
			copy(d[sos+14:], bytes.Repeat([]byte{0xFF, 0x00, 0xFF}, 20))
			return d
		}(), hensachi.EInvalidImage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img, err := Decode(tc.data)
			if img != nil {
				t.Errorf("Decode returned a %d×%d image", img.W, img.H)
			}
			wantCode(t, err, tc.code)
			// the client reads our words, never the decoder's
			for _, leak := range []string{"EOF", "invalid JPEG", "invalid format", "Huffman", "unsupported", "crc", "checksum", "png:", "jpeg:"} {
				if err != nil && strings.Contains(err.Error(), leak) {
					t.Errorf("message %q repeats the decoder's %q", err.Error(), leak)
				}
			}
		})
	}
}

// TestDecodeRefusesHugeHeaders checks the bomb guard: a tiny file declaring a huge image is
// refused from its header, before the decoder allocates the pixels.
func TestDecodeRefusesHugeHeaders(t *testing.T) {
	jpg := encodeJPEG(t, gradient(8, 8), 90)
	for _, tc := range []struct {
		name string
		data []byte
		dims string
	}{
		{"png 20000×20000", pngHeaderOnly(20000, 20000), "20000×20000"},
		{"png side over MaxSide", pngHeaderOnly(MaxSide+1, 1), fmt.Sprintf("%d×1", MaxSide+1)},
		{"png pixels over MaxPixels", pngHeaderOnly(8000, 5001), "8000×5001"},
		{"png 2^31-1 square", pngHeaderOnly(1<<31-1, 1<<31-1), ""}, // refused by the PNG header parser itself
		{"jpeg 20000×20000", withJPEGSize(t, jpg, 20000, 20000), "20000×20000"},
		{"jpeg 65535×65535", withJPEGSize(t, jpg, 65535, 65535), "65535×65535"},
		{"jpeg side over MaxSide", withJPEGSize(t, jpg, 1, MaxSide+1), fmt.Sprintf("1×%d", MaxSide+1)},
		{"jpeg pixels over MaxPixels", withJPEGSize(t, jpg, 7000, 7000), "7000×7000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			img, err := Decode(tc.data)
			runtime.ReadMemStats(&after)
			if img != nil {
				t.Fatalf("Decode returned a %d×%d image", img.W, img.H)
			}
			wantCode(t, err, hensachi.EInvalidImage)
			if msg := err.Error(); tc.dims != "" && !strings.Contains(msg, tc.dims+" pixels") {
				t.Errorf("error %q does not come from the header check of a %s image", msg, tc.dims)
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
				t.Errorf("Decode allocated %d bytes for a refused header", n)
			}
		})
	}
}

func TestDecodeAtTheLimits(t *testing.T) {
	// MaxSide×1 is allowed and small; the decoder must accept it
	wide := image.NewGray(image.Rect(0, 0, MaxSide, 1))
	got, err := Decode(encodePNG(t, wide))
	if err != nil || got.W != MaxSide || got.H != 1 || len(got.Pix) != 3*MaxSide {
		t.Fatalf("Decode(%d×1) = %v, %v", MaxSide, got, err)
	}
}

func TestDecodeFormats(t *testing.T) {
	grad := gradient(24, 16)
	opaque := image.NewRGBA(grad.Rect)
	for i := range len(opaque.Pix) / 4 {
		copy(opaque.Pix[4*i:], grad.Pix[4*i:4*i+3])
		opaque.Pix[4*i+3] = 255
	}
	translucent := image.NewNRGBA(image.Rect(0, 0, 4, 2))
	for i, a := range []uint8{0, 64, 128, 255, 255, 128, 64, 0} {
		translucent.Pix[4*i], translucent.Pix[4*i+1], translucent.Pix[4*i+2], translucent.Pix[4*i+3] = 200, 100, 50, a
	}
	gray16 := image.NewGray16(image.Rect(0, 0, 5, 3))
	rgba64 := image.NewRGBA64(image.Rect(0, 0, 5, 3))
	paletted := image.NewPaletted(image.Rect(0, 0, 7, 5), palette.WebSafe)
	for y := range 5 {
		for x := range 7 {
			gray16.SetGray16(x%5, y%3, color.Gray16{uint16(x*9000 + y*1000)})
			rgba64.SetRGBA64(x%5, y%3, color.RGBA64{uint16(x * 13000), uint16(y * 20000), 0x8080, 0xFFFF})
			paletted.SetColorIndex(x, y, uint8(x*31+y*7))
		}
	}
	gray := image.NewGray(image.Rect(0, 0, 9, 4))
	for i := range gray.Pix {
		gray.Pix[i] = uint8(i * 7)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want *RGB // exact; nil compares with the standard conversion within tol
		src  image.Image
		tol  int
	}{
		{"png rgba", encodePNG(t, opaque), rgbOf(opaque), nil, 0},
		{"png nrgba over black", encodePNG(t, translucent), &RGB{W: 4, H: 2, Pix: []uint8{
			0, 0, 0, 50, 25, 12, 100, 50, 25, 200, 100, 50,
			200, 100, 50, 100, 50, 25, 50, 25, 12, 0, 0, 0,
		}}, nil, 0},
		{"png gray", encodePNG(t, gray), rgbOf(gray), nil, 0},
		{"png gray 16-bit", encodePNG(t, gray16), rgbOf(gray16), nil, 0},
		{"png rgb 16-bit", encodePNG(t, rgba64), rgbOf(rgba64), nil, 0},
		{"png paletted", encodePNG(t, paletted), rgbOf(paletted), nil, 0},
		{"jpeg gray", encodeJPEG(t, gray, 100), nil, gray, 2},
		{"jpeg colour", encodeJPEG(t, opaque, 100), nil, opaque, 24}, // 4:2:0 chroma on a gradient
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decode(tc.data)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if want == nil {
				want = rgbOf(tc.src)
			}
			if got.W != want.W || got.H != want.H || len(got.Pix) != 3*got.W*got.H {
				t.Fatalf("got %d×%d with %d bytes, want %d×%d", got.W, got.H, len(got.Pix), want.W, want.H)
			}
			for i := range got.Pix {
				if d := int(got.Pix[i]) - int(want.Pix[i]); d > tc.tol || d < -tc.tol {
					p := i / 3
					t.Fatalf("pixel (%d,%d) channel %d = %d, want %d±%d", p%got.W, p/got.W, i%3, got.Pix[i], want.Pix[i], tc.tol)
				}
			}
		})
	}
}

func TestToRGB(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ycc := func(w, h int, ratio image.YCbCrSubsampleRatio) *image.YCbCr {
		m := image.NewYCbCr(image.Rect(0, 0, w, h), ratio)
		for _, p := range [][]uint8{m.Y, m.Cb, m.Cr} {
			for i := range p {
				p[i] = uint8(rng.UintN(256))
			}
		}
		return m
	}
	nrgba := image.NewNRGBA(image.Rect(0, 0, 3, 1))
	copy(nrgba.Pix, []uint8{200, 100, 50, 255, 200, 100, 50, 0, 255, 255, 255, 51})
	rgba := image.NewRGBA(image.Rect(0, 0, 2, 2))
	copy(rgba.Pix, []uint8{1, 2, 3, 255, 4, 5, 6, 128, 0, 0, 0, 0, 250, 251, 252, 255})
	gray := image.NewGray(image.Rect(0, 0, 3, 2))
	copy(gray.Pix, []uint8{0, 1, 2, 127, 128, 255})
	paletted := image.NewPaletted(image.Rect(0, 0, 2, 1), color.Palette{color.RGBA{10, 20, 30, 255}, color.RGBA{40, 50, 60, 255}})
	paletted.Pix = []uint8{1, 0}
	cmyk := image.NewCMYK(image.Rect(0, 0, 2, 1))
	copy(cmyk.Pix, []uint8{0, 0, 0, 0, 255, 0, 255, 128})

	ycbcrWant := func(m *image.YCbCr) *RGB {
		out := &RGB{W: m.Rect.Dx(), H: m.Rect.Dy()}
		for y := m.Rect.Min.Y; y < m.Rect.Max.Y; y++ {
			for x := m.Rect.Min.X; x < m.Rect.Max.X; x++ {
				c := m.YCbCrAt(x, y)
				r, g, b := color.YCbCrToRGB(c.Y, c.Cb, c.Cr)
				out.Pix = append(out.Pix, r, g, b)
			}
		}
		return out
	}
	y420, y444, y422odd := ycc(7, 5, image.YCbCrSubsampleRatio420), ycc(6, 4, image.YCbCrSubsampleRatio444), ycc(5, 3, image.YCbCrSubsampleRatio422)
	y420sub := y420.SubImage(image.Rect(1, 1, 6, 4)).(*image.YCbCr)
	y440 := ycc(5, 5, image.YCbCrSubsampleRatio440)
	y411sub := ycc(13, 3, image.YCbCrSubsampleRatio411).SubImage(image.Rect(3, 0, 13, 3)).(*image.YCbCr)
	y410sub := ycc(11, 5, image.YCbCrSubsampleRatio410).SubImage(image.Rect(5, 1, 10, 5)).(*image.YCbCr)
	for _, tc := range []struct {
		name string
		img  image.Image
		want *RGB
	}{
		{"ycbcr 4:2:0 odd size", y420, ycbcrWant(y420)},
		{"ycbcr 4:4:4", y444, ycbcrWant(y444)},
		{"ycbcr 4:2:2 odd size", y422odd, ycbcrWant(y422odd)},
		{"gray", gray, &RGB{W: 3, H: 2, Pix: []uint8{0, 0, 0, 1, 1, 1, 2, 2, 2, 127, 127, 127, 128, 128, 128, 255, 255, 255}}},
		{"nrgba over black", nrgba, &RGB{W: 3, H: 1, Pix: []uint8{200, 100, 50, 0, 0, 0, 51, 51, 51}}},
		{"rgba premultiplied", rgba, &RGB{W: 2, H: 2, Pix: []uint8{1, 2, 3, 4, 5, 6, 0, 0, 0, 250, 251, 252}}},
		{"paletted", paletted, &RGB{W: 2, H: 1, Pix: []uint8{40, 50, 60, 10, 20, 30}}},
		{"cmyk", cmyk, rgbOf(cmyk)},
		// sub-images: the pixels start at the rectangle's corner, not at the origin
		{"ycbcr 4:2:0 sub-image at odd offset", y420sub, ycbcrWant(y420sub)},
		{"ycbcr 4:4:0", y440, ycbcrWant(y440)},
		{"ycbcr 4:1:1 sub-image", y411sub, ycbcrWant(y411sub)},
		{"ycbcr 4:1:0 sub-image", y410sub, ycbcrWant(y410sub)},
		{"gray sub-image", gray.SubImage(image.Rect(1, 1, 3, 2)), &RGB{W: 2, H: 1, Pix: []uint8{128, 128, 128, 255, 255, 255}}},
		{"nrgba sub-image", nrgba.SubImage(image.Rect(2, 0, 3, 1)), &RGB{W: 1, H: 1, Pix: []uint8{51, 51, 51}}},
		{"rgba sub-image", rgba.SubImage(image.Rect(0, 1, 2, 2)), &RGB{W: 2, H: 1, Pix: []uint8{0, 0, 0, 250, 251, 252}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := toRGB(tc.img)
			if got.W != tc.want.W || got.H != tc.want.H || !bytes.Equal(got.Pix, tc.want.Pix) {
				t.Errorf("toRGB = %d×%d %v\nwant %d×%d %v", got.W, got.H, got.Pix, tc.want.W, tc.want.H, tc.want.Pix)
			}
		})
	}
}

// TestOrient turns a 3×2 image with six distinct pixels
//
//	a b c
//	d e f
//
// for every EXIF orientation: the value says how the stored pixels are to be displayed.
func TestOrient(t *testing.T) {
	const a, b, c, d, e, f = 1, 2, 3, 4, 5, 6
	src := &RGB{W: 3, H: 2}
	for _, v := range []uint8{a, b, c, d, e, f} {
		src.Pix = append(src.Pix, v, 10*v, 20*v)
	}
	for _, tc := range []struct {
		orientation int
		w, h        int
		want        []uint8 // the labels row after row
	}{
		{0, 3, 2, []uint8{a, b, c, d, e, f}}, // not a valid value: left alone
		{1, 3, 2, []uint8{a, b, c, d, e, f}},
		{2, 3, 2, []uint8{c, b, a, f, e, d}},     // mirrored horizontally
		{3, 3, 2, []uint8{f, e, d, c, b, a}},     // rotated 180°
		{4, 3, 2, []uint8{d, e, f, a, b, c}},     // mirrored vertically
		{5, 2, 3, []uint8{a, d, b, e, c, f}},     // transposed
		{6, 2, 3, []uint8{d, a, e, b, f, c}},     // displayed turned 90° clockwise
		{7, 2, 3, []uint8{f, c, e, b, d, a}},     // transversed
		{8, 2, 3, []uint8{c, f, b, e, a, d}},     // displayed turned 90° counter-clockwise
		{9, 3, 2, []uint8{a, b, c, d, e, f}},     // not a valid value
		{-1, 3, 2, []uint8{a, b, c, d, e, f}},    // not a valid value
		{65535, 3, 2, []uint8{a, b, c, d, e, f}}, // not a valid value
	} {
		t.Run(fmt.Sprint(tc.orientation), func(t *testing.T) {
			before := bytes.Clone(src.Pix)
			got := src.Orient(tc.orientation)
			if !bytes.Equal(src.Pix, before) {
				t.Fatal("Orient modified its receiver")
			}
			if got.W != tc.w || got.H != tc.h || len(got.Pix) != 3*tc.w*tc.h {
				t.Fatalf("got %d×%d with %d bytes, want %d×%d", got.W, got.H, len(got.Pix), tc.w, tc.h)
			}
			for i, v := range tc.want {
				if p := got.Pix[3*i : 3*i+3]; p[0] != v || p[1] != 10*v || p[2] != 20*v {
					t.Fatalf("pixel (%d,%d) = %v, want label %d; image %v", i%tc.w, i/tc.w, p, v, got.Pix)
				}
			}
		})
	}
}

// TestOrientRoundTrip checks the orientations against each other on a larger image: 6 and 8 undo
// each other, 3 twice is the identity, and the mirrors are involutions.
func TestOrientRoundTrip(t *testing.T) {
	src := toRGB(gradient(5, 3))
	for i := range src.Pix {
		src.Pix[i] += uint8(i) // every pixel distinct
	}
	for _, pair := range [][2]int{{6, 8}, {8, 6}, {3, 3}, {2, 2}, {4, 4}, {5, 5}, {7, 7}} {
		got := src.Orient(pair[0]).Orient(pair[1])
		if got.W != src.W || got.H != src.H || !bytes.Equal(got.Pix, src.Pix) {
			t.Errorf("Orient(%d) then Orient(%d) is not the identity", pair[0], pair[1])
		}
	}
}

func TestJPEGOrientation(t *testing.T) {
	jpg := encodeJPEG(t, gradient(8, 8), 80)
	le, be := binary.LittleEndian, binary.BigEndian
	jfif := segment(0xE0, []byte("JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"))
	xmp := segment(0xE1, []byte("http://ns.adobe.com/xap/1.0/\x00<x:xmpmeta/>"))
	other := ifdEntry{tag: 0x010F, typ: 2, count: 4, value: 0x41424300} // Make, "ABC"
	type tc struct {
		name string
		data []byte
		want int
	}
	var cases []tc
	for v := 1; v <= 8; v++ {
		cases = append(cases,
			tc{fmt.Sprintf("II %d", v), withOrientation(jpg, le, v), v},
			tc{fmt.Sprintf("MM %d", v), withOrientation(jpg, be, v), v})
	}
	tiffLE := tiff(le, orientationEntry(6))
	cases = append(cases, []tc{
		{"no exif", jpg, 1},
		{"after JFIF and XMP", insertAfterSOI(jpg, jfif, xmp, exifAPP1(tiff(be, other, orientationEntry(8)))), 8},
		{"fill bytes before the marker", insertAfterSOI(jpg, []byte{0xFF, 0xFF}, exifAPP1(tiffLE)), 6},
		{"orientation 0", withOrientation(jpg, le, 0), 1},
		{"orientation 9", withOrientation(jpg, be, 9), 1},
		{"orientation 0x0106", withOrientation(jpg, be, 0x0106), 1},
		{"orientation 65535", withOrientation(jpg, le, 65535), 1},
		{"orientation as LONG", insertAfterSOI(jpg, exifAPP1(tiff(le, ifdEntry{tag: 0x0112, typ: 4, count: 1, value: 6}))), 1},
		{"no orientation tag", insertAfterSOI(jpg, exifAPP1(tiff(be, other))), 1},
		{"bad byte order", insertAfterSOI(jpg, exifAPP1(append([]byte("XX"), tiffLE[2:]...))), 1},
		{"bad magic", insertAfterSOI(jpg, exifAPP1(append([]byte("II\x2b\x00"), tiffLE[4:]...))), 1},
		{"IFD offset before the header end", insertAfterSOI(jpg, exifAPP1(append([]byte("II\x2a\x00\x04\x00\x00\x00"), tiffLE[8:]...))), 1},
		{"IFD offset beyond the block", insertAfterSOI(jpg, exifAPP1(append([]byte("II\x2a\x00\xff\xff\xff\x7f"), tiffLE[8:]...))), 1},
		{"IFD offset 2^32-1", insertAfterSOI(jpg, exifAPP1(append([]byte("II\x2a\x00\xff\xff\xff\xff"), tiffLE[8:]...))), 1},
		{"entry count beyond the block", insertAfterSOI(jpg, exifAPP1(append(bytes.Clone(tiffLE[:8]), 0xff, 0xff))), 1},
		{"entry cut short", insertAfterSOI(jpg, exifAPP1(tiffLE[:8+2+11])), 1},
		{"tiff header cut", insertAfterSOI(jpg, exifAPP1(tiffLE[:7])), 1},
		{"exif header only", insertAfterSOI(jpg, segment(0xE1, []byte("Exif\x00\x00"))), 1},
		{"exif header cut", insertAfterSOI(jpg, segment(0xE1, []byte("Exif"))), 1},
		{"segment longer than the file", withOrientation(jpg, le, 6)[:30], 1},
		{"segment length below 2", append([]byte{0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x01}, exifAPP1(tiffLE)...), 1},
		{"no marker where one is due", append([]byte{0xFF, 0xD8, 0x00}, exifAPP1(tiffLE)...), 1},
		{"exif after the scan", append(bytes.Clone(jpg[:len(jpg)-2]), append(exifAPP1(tiffLE), 0xFF, 0xD9)...), 1},
		{"magic only", []byte{0xFF, 0xD8, 0xFF}, 1},
		{"empty", nil, 1},
	}...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := jpegOrientation(c.data); got != c.want {
				t.Errorf("jpegOrientation = %d, want %d", got, c.want)
			}
		})
	}
}

// TestDecodeAppliesOrientation decodes an 8×4 JPEG marked with each orientation: the axes swap
// for 5–8 and a bright corner moves where the orientation says.
func TestDecodeAppliesOrientation(t *testing.T) {
	src := image.NewGray(image.Rect(0, 0, 16, 8))
	for y := range 4 { // a white 4×4 block in the top-left corner, the rest black
		for x := range 4 {
			src.Pix[y*src.Stride+x] = 255
		}
	}
	jpg := encodeJPEG(t, src, 100)
	for _, tc := range []struct {
		orientation int
		w, h        int
		corner      [2]int // a pixel inside the white block after turning upright
	}{
		{1, 16, 8, [2]int{1, 1}},
		{2, 16, 8, [2]int{14, 1}},
		{3, 16, 8, [2]int{14, 6}},
		{4, 16, 8, [2]int{1, 6}},
		{5, 8, 16, [2]int{1, 1}},
		{6, 8, 16, [2]int{6, 1}},
		{7, 8, 16, [2]int{6, 14}},
		{8, 8, 16, [2]int{1, 14}},
	} {
		for _, bo := range []byteOrder{binary.LittleEndian, binary.BigEndian} {
			t.Run(fmt.Sprintf("%d %v", tc.orientation, bo), func(t *testing.T) {
				got, err := Decode(withOrientation(jpg, bo, tc.orientation))
				if err != nil {
					t.Fatal(err)
				}
				if got.W != tc.w || got.H != tc.h {
					t.Fatalf("got %d×%d, want %d×%d", got.W, got.H, tc.w, tc.h)
				}
				white := 0
				for i := 0; i < len(got.Pix); i += 3 {
					if got.Pix[i] > 128 {
						white++
					}
				}
				if p := got.at(tc.corner[0], tc.corner[1]); p[0] < 200 || white != 16 {
					t.Errorf("pixel %v = %v with %d bright pixels, want it inside the 16-pixel white block", tc.corner, p, white)
				}
			})
		}
	}
}

func TestDecodeIgnoresEXIFInPNG(t *testing.T) {
	// PNG carries no orientation the service reads: a PNG is decoded as stored
	got, err := Decode(encodePNG(t, gradient(6, 3)))
	if err != nil || got.W != 6 || got.H != 3 {
		t.Fatalf("Decode = %v, %v", got, err)
	}
}

// TestInspectCost: the decoding cost follows the colour layout and bit depth, not pixels alone.
func TestInspectCost(t *testing.T) {
	const w, h = 40, 30
	rgba64 := image.NewRGBA64(image.Rect(0, 0, w, h))
	gray := image.NewGray(image.Rect(0, 0, w, h))
	nrgba := image.NewNRGBA(image.Rect(0, 0, w, h))
	for _, tc := range []struct {
		name string
		data []byte
		per  int64
	}{
		{"16-bit RGBA PNG", encodePNG(t, rgba64), 8},
		{"8-bit RGBA PNG", encodePNG(t, nrgba), 4},
		{"grey PNG", encodePNG(t, gray), 1},
		{"colour JPEG", encodeJPEG(t, nrgba, 90), 3},
	} {
		hd, err := Inspect(tc.data)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if want := int64(w*h) * (tc.per + 3); hd.DecodeBytes != want || hd.Width != w || hd.Height != h {
			t.Errorf("%s: %d×%d costs %d bytes, want %d", tc.name, hd.Width, hd.Height, hd.DecodeBytes, want)
		}
	}
}
