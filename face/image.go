// Package face analyses faces in a photo: decoding with its guards, detection with landmarks,
// alignment, age and gender, and the attractiveness score, on ONNX Runtime.
package face

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"strings"

	"github.com/hensachi/hensachi"
)

// Limits of what the service decodes.
const (
	// MaxPixels bounds the decoded size: a small file can declare a huge image (a decompression
	// bomb), so the header is checked before any pixel is decoded. 40 MP covers phone cameras.
	MaxPixels = 40_000_000
	// MaxSide bounds either side, so a 1×40,000,000 strip is refused too.
	MaxSide = 16384
)

// Format is an accepted image format.
type Format string

const (
	JPEG Format = "jpeg"
	PNG  Format = "png"
)

// Sniff identifies JPEG or PNG from the first bytes, whatever the file is called.
func Sniff(data []byte) (Format, bool) {
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF}):
		return JPEG, true
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return PNG, true
	}
	return "", false
}

// RGB is an upright image as packed 8-bit RGB, row after row.
type RGB struct {
	W, H int
	Pix  []uint8
}

// Header is what an upload's header says about it, read before any pixel is decoded.
type Header struct {
	Format        Format
	Width, Height int
	// DecodeBytes is the memory decoding takes at its peak: the decoder's image, whose size
	// depends on the colour layout and bit depth (16-bit RGBA takes 8 bytes a pixel, grey 1),
	// plus the packed RGB copy the analysis works on.
	DecodeBytes int64
}

// Inspect checks an upload's format by content, its dimensions from the header and, for a JPEG,
// its scans, so that a decompression bomb or a file of thousands of scans is refused and the cost
// of decoding is known, and bounded, before it is paid.
func Inspect(data []byte) (Header, error) {
	format, ok := Sniff(data)
	if !ok {
		return Header{}, hensachi.Errorf(hensachi.EUnsupportedMedia, "the file is neither JPEG nor PNG")
	}
	var cfg image.Config
	var err error
	if format == JPEG {
		cfg, err = jpeg.DecodeConfig(bytes.NewReader(data))
	} else {
		cfg, err = png.DecodeConfig(bytes.NewReader(data))
	}
	if err != nil {
		return Header{}, decodeError(format, "header", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width > MaxSide || cfg.Height > MaxSide || cfg.Width*cfg.Height > MaxPixels {
		return Header{}, hensachi.Errorf(hensachi.EInvalidImage, "the image is %d×%d pixels; the service takes up to %d pixels and %d per side", cfg.Width, cfg.Height, MaxPixels, MaxSide)
	}
	if format == JPEG {
		// the scans, which a small file can repeat thousands of times (jpegscan.go)
		if err := checkJPEGCost(data, cfg.Width, cfg.Height); err != nil {
			return Header{}, err
		}
	}
	pixels := int64(cfg.Width) * int64(cfg.Height)
	return Header{Format: format, Width: cfg.Width, Height: cfg.Height,
		DecodeBytes: pixels * (bytesPerPixel(cfg.ColorModel) + 3)}, nil
}

// bytesPerPixel is what the standard decoders allocate per pixel for a colour model.
func bytesPerPixel(m color.Model) int64 {
	switch m {
	case color.RGBA64Model, color.NRGBA64Model:
		return 8
	case color.RGBAModel, color.NRGBAModel, color.CMYKModel:
		return 4
	case color.Gray16Model:
		return 2
	case color.GrayModel, color.AlphaModel:
		return 1
	case color.YCbCrModel:
		return 3 // 4:4:4 at most; subsampled layouts take less
	}
	if _, ok := m.(color.Palette); ok {
		return 1
	}
	return 8
}

// Decode checks and decodes an upload: the format by content, the pixel count from the header
// before decoding, then the pixels, turned upright according to the EXIF orientation.
// It decodes with the standard library, always at full resolution, whatever decoders the machine
// has: the training and evaluation commands read their images through it, so the committed models
// stay reproducible to the pixel. The service decodes with DecodePhoto.
func Decode(data []byte) (*RGB, error) {
	h, err := Inspect(data)
	if err != nil {
		return nil, err
	}
	return decodeFull(data, h.Format)
}

// decodeFull decodes an inspected upload with the standard library and turns it upright.
func decodeFull(data []byte, format Format) (*RGB, error) {
	var img image.Image
	var err error
	if format == JPEG {
		img, err = jpeg.Decode(bytes.NewReader(data))
	} else {
		img, err = png.Decode(bytes.NewReader(data))
	}
	if err != nil {
		return nil, decodeError(format, "image", err)
	}
	rgb := toRGB(img)
	orientation := 1
	if format == JPEG {
		orientation = jpegOrientation(data)
	}
	return rgb.Orient(orientation), nil
}

// toRGB converts the decoded image with a tight loop for the common layouts.
func toRGB(img image.Image) *RGB {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	out := &RGB{W: w, H: h, Pix: make([]uint8, 3*w*h)}
	switch m := img.(type) {
	case *image.YCbCr:
		// chroma is subsampled horizontally by 1, 2 or 4: index it by shifting x, not per-pixel COffset
		shift := map[image.YCbCrSubsampleRatio]uint{image.YCbCrSubsampleRatio422: 1, image.YCbCrSubsampleRatio420: 1,
			image.YCbCrSubsampleRatio411: 2, image.YCbCrSubsampleRatio410: 2}[m.SubsampleRatio]
		cx0 := b.Min.X >> shift
		forRows(h, func(y0, y1 int) {
			for y := y0; y < y1; y++ {
				o := 3 * y * w
				yi := m.YOffset(b.Min.X, b.Min.Y+y)
				ci := m.COffset(b.Min.X, b.Min.Y+y) - cx0
				for x, lum := range m.Y[yi : yi+w] {
					c := ci + (b.Min.X+x)>>shift
					r, g, bl := color.YCbCrToRGB(lum, m.Cb[c], m.Cr[c])
					out.Pix[o], out.Pix[o+1], out.Pix[o+2] = r, g, bl
					o += 3
				}
			}
		})
	case *image.Gray:
		for y := 0; y < h; y++ {
			row := m.Pix[y*m.Stride : y*m.Stride+w]
			o := 3 * y * w
			for _, v := range row {
				out.Pix[o], out.Pix[o+1], out.Pix[o+2] = v, v, v
				o += 3
			}
		}
	case *image.NRGBA:
		// transparent pixels are composed over black, like the model's padding
		for y := 0; y < h; y++ {
			row := m.Pix[y*m.Stride : y*m.Stride+4*w]
			o := 3 * y * w
			for i := 0; i < len(row); i += 4 {
				a := uint16(row[i+3])
				out.Pix[o] = uint8(uint16(row[i]) * a / 255)
				out.Pix[o+1] = uint8(uint16(row[i+1]) * a / 255)
				out.Pix[o+2] = uint8(uint16(row[i+2]) * a / 255)
				o += 3
			}
		}
	case *image.RGBA:
		for y := 0; y < h; y++ {
			row := m.Pix[y*m.Stride : y*m.Stride+4*w]
			o := 3 * y * w
			for i := 0; i < len(row); i += 4 {
				out.Pix[o], out.Pix[o+1], out.Pix[o+2] = row[i], row[i+1], row[i+2]
				o += 3
			}
		}
	default: // rare layouts (CMYK JPEG, 16-bit PNG, paletted): the generic path
		o := 0
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				out.Pix[o], out.Pix[o+1], out.Pix[o+2] = uint8(r>>8), uint8(g>>8), uint8(bl>>8)
				o += 3
			}
		}
	}
	return out
}

// Orient returns the image turned upright for an EXIF orientation (1–8); other values leave it.
func (m *RGB) Orient(orientation int) *RGB {
	if orientation < 2 || orientation > 8 {
		return m
	}
	w, h := m.W, m.H
	nw, nh := w, h
	if orientation >= 5 { // the four that swap the axes
		nw, nh = h, w
	}
	out := &RGB{W: nw, H: nh, Pix: make([]uint8, len(m.Pix))}
	for y := 0; y < nh; y++ {
		for x := 0; x < nw; x++ {
			var sx, sy int
			switch orientation {
			case 2: // mirrored
				sx, sy = w-1-x, y
			case 3: // rotated 180°
				sx, sy = w-1-x, h-1-y
			case 4: // mirrored vertically
				sx, sy = x, h-1-y
			case 5: // transposed
				sx, sy = y, x
			case 6: // stored rotated 90° counter-clockwise: turn clockwise
				sx, sy = y, h-1-x
			case 7: // transversed
				sx, sy = w-1-y, h-1-x
			case 8: // stored rotated 90° clockwise: turn counter-clockwise
				sx, sy = w-1-y, x
			}
			s, d := 3*(sy*w+sx), 3*(y*nw+x)
			out.Pix[d], out.Pix[d+1], out.Pix[d+2] = m.Pix[s], m.Pix[s+1], m.Pix[s+2]
		}
	}
	return out
}

// decodeError says in the service's own words why a file could not be decoded; the decoder's
// message ("unexpected EOF", "invalid JPEG format: short Huffman data") stays in the cause, for
// the log.
func decodeError(format Format, part string, err error) error {
	name := strings.ToUpper(string(format))
	var why string
	var unsupportedJPEG jpeg.UnsupportedError
	var unsupportedPNG png.UnsupportedError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		why = "the file ends before the " + part + " does; was the upload cut short?"
	case errors.As(err, &unsupportedJPEG) || errors.As(err, &unsupportedPNG):
		why = "the " + part + " uses a " + name + " feature this service does not read (e.g. arithmetic coding or an unusual colour layout); save it again as a baseline or progressive " + name
	default:
		why = "the " + part + " is damaged: its data does not follow the " + name + " format"
	}
	return &hensachi.Error{Code: hensachi.EInvalidImage, Message: "the " + name + " file cannot be decoded: " + why, Cause: err}
}

// RGBA returns the image as an image.RGBA, e.g. for encoding it.
func (m *RGB) RGBA() *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, m.W, m.H))
	for i, j := 0, 0; i < len(m.Pix); i, j = i+3, j+4 {
		out.Pix[j], out.Pix[j+1], out.Pix[j+2], out.Pix[j+3] = m.Pix[i], m.Pix[i+1], m.Pix[i+2], 255
	}
	return out
}
