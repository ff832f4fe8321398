package face

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync"

	"github.com/hensachi/hensachi"
)

// Photo is a decoded upload as the analysis reads it: its upright size in the original's pixels,
// and its pixels at the coarsest resolutions the analysis has needed so far. With libjpeg-turbo a
// JPEG is first decoded at the largest DCT reduction that still gives the detector's main pass all
// the pixels it looks at; a finer level (the second detection pass, a face too small for the
// 112×112 alignment at that level) is decoded when it is first asked for. Without the library, and
// for PNG, the photo holds its full-resolution pixels alone. Boxes and landmarks are always in the
// original's pixels.
type Photo struct {
	W, H   int // upright
	Format Format

	mu sync.Mutex
	// levels are the decoded pixels, coarsest first; the last is full-size once decoded.
	levels []level
	// jpeg is the file while finer levels can still be decoded from it: nil for PNG, without
	// libjpeg-turbo and once the full-size level is there.
	jpeg                   []byte
	storedW, storedH       int // the JPEG's size before its EXIF orientation
	orientation            int
	decodedPixels, decodes int // what the decoders produced, for tests and the benchmark
	// ctx is the request the photo is decoded for: a finer level is not decoded once it is done.
	// Each decode is bounded (Inspect's pixel and scan budgets); the decoders cannot be stopped
	// inside one, so the photo stops between them.
	ctx context.Context
}

// DecodePhoto checks and decodes an upload for the analysis: the format by content and the pixel
// count from the header before decoding, as Decode does, then the pixels the detector's main pass
// needs, turned upright according to the EXIF orientation. A damaged or hostile file fails here,
// with the error Decode gives for it.
func DecodePhoto(data []byte) (*Photo, error) {
	h, err := Inspect(data)
	if err != nil {
		return nil, err
	}
	return DecodePhotoContext(context.Background(), data, h)
}

// DecodePhotoContext is DecodePhoto for a request whose upload Inspect has read as h (the caller
// needed the header first, for the decoding budget): nothing is decoded once ctx is done, then or
// when the analysis asks for finer pixels; the error is then ctx's.
func DecodePhotoContext(ctx context.Context, data []byte, h Header) (*Photo, error) {
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	p := &Photo{W: h.Width, H: h.Height, Format: h.Format, ctx: ctx}
	if h.Format != JPEG || turboFactors() == nil {
		img, err := decodeFull(data, h.Format)
		if err != nil {
			return nil, err
		}
		p.W, p.H = img.W, img.H
		p.levels = []level{fullLevel(img)}
		p.decodedPixels, p.decodes = img.W*img.H, 1
		return p, nil
	}
	p.jpeg, p.storedW, p.storedH = data, h.Width, h.Height
	p.orientation = jpegOrientation(data)
	if p.orientation >= 5 { // the four orientations that swap the axes
		p.W, p.H = h.Height, h.Width
	}
	if _, err := p.pixels(detectScales(p.W, p.H)[0]); err != nil {
		return nil, err
	}
	return p, nil
}

// PhotoOf is a photo of pixels already decoded, at full resolution.
func PhotoOf(img *RGB) *Photo {
	return &Photo{W: img.W, H: img.H, levels: []level{fullLevel(img)}}
}

// level is a photo's pixels at one DCT scale, upright, and where the original's pixels fall in
// them: original x (pixel edges) is at x·scale + offX. The offsets are not zero when a side is not
// a multiple of the scale's block and the EXIF orientation flips that side: the decoder's partial
// last block, which it pads, is then on the left or top.
type level struct {
	img        *RGB
	scale      float64
	offX, offY float64
}

func fullLevel(img *RGB) level { return level{img: img, scale: 1} }

// at maps a point of the original (pixel centres at integers, as landmarks are) into the level.
func (l level) at(p Point) Point {
	return Point{X: (p.X+0.5)*l.scale + l.offX - 0.5, Y: (p.Y+0.5)*l.scale + l.offY - 0.5}
}

// scaledLevel places a decode at factor f of a stored ws×hs JPEG, turned upright by orientation.
func scaledLevel(stored *RGB, f scaleFactor, ws, hs, orientation int) level {
	padX := float64(stored.W) - float64(ws)*f.value()
	padY := float64(stored.H) - float64(hs)*f.value()
	l := level{img: stored.Orient(orientation), scale: f.value()}
	switch orientation { // which stored side each upright side is, and whether it is flipped
	case 2:
		l.offX = padX
	case 3:
		l.offX, l.offY = padX, padY
	case 4:
		l.offY = padY
	case 6:
		l.offX = padY
	case 7:
		l.offX, l.offY = padY, padX
	case 8:
		l.offY = padX
	}
	return l
}

// pixels returns the coarsest pixels that keep at least scale of the original's resolution (all
// of it for a scale of 1 or more): a level already decoded when one is fine enough, else a new
// decode at the coarsest DCT factor that is.
func (p *Photo) pixels(scale float64) (level, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	scale = math.Min(scale, 1)
	for _, l := range p.levels {
		if l.scale >= scale {
			return l, nil
		}
	}
	if p.jpeg == nil { // no finer pixels than the full-size ones
		return p.levels[len(p.levels)-1], nil
	}
	if p.ctx != nil {
		if err := context.Cause(p.ctx); err != nil {
			return level{}, err
		}
	}
	f := coarsestFactor(turboFactors(), scale)
	stored, err := turboDecode(p.jpeg, p.storedW, p.storedH, f)
	if errors.Is(err, errTooCostly) {
		// refused for its cost, not found damaged: image/jpeg, which has no limit, must not try
		return level{}, &hensachi.Error{Code: hensachi.EInvalidImage, Message: "the JPEG file has more scans than the service decodes: save it again as a baseline or standard progressive JPEG", Cause: err}
	}
	if err != nil {
		// libjpeg-turbo found the file damaged, or is switched off: image/jpeg decodes it in full
		// and gives the verdict the service has always given
		full, err := decodeFull(p.jpeg, JPEG)
		if err != nil {
			return level{}, err
		}
		p.levels, p.jpeg = []level{fullLevel(full)}, nil
		p.decodedPixels += full.W * full.H
		p.decodes++
		return p.levels[0], nil
	}
	p.decodedPixels += stored.W * stored.H
	p.decodes++
	l := scaledLevel(stored, f, p.storedW, p.storedH, p.orientation)
	if f == fullScale {
		p.jpeg = nil
	}
	i := 0
	for i < len(p.levels) && p.levels[i].scale < l.scale {
		i++
	}
	p.levels = append(p.levels[:i], append([]level{l}, p.levels[i:]...)...)
	return l, nil
}

// Preview is the photo at most side pixels on its longer side, from the coarsest level that has
// them, for showing it back to the user.
func (p *Photo) Preview(side int) (*RGB, error) {
	longer := max(p.W, p.H)
	l, err := p.pixels(float64(side) / float64(longer))
	if err != nil {
		return nil, err
	}
	w, h := p.W, p.H
	if longer > side {
		w, h = max(1, p.W*side/longer), max(1, p.H*side/longer)
	}
	if l.scale == 1 && w == l.img.W && h == l.img.H {
		return l.img, nil
	}
	return Resize(l.crop(p.W, p.H), w, h), nil
}

// crop is the level without the padding of a partial last block: the original's w×h pixels.
func (l level) crop(w, h int) *RGB {
	x0, y0 := int(math.Round(l.offX)), int(math.Round(l.offY))
	cw := min(l.img.W-x0, max(1, int(math.Round(float64(w)*l.scale))))
	ch := min(l.img.H-y0, max(1, int(math.Round(float64(h)*l.scale))))
	if x0 == 0 && y0 == 0 && cw == l.img.W && ch == l.img.H {
		return l.img
	}
	out := &RGB{W: cw, H: ch, Pix: make([]uint8, 3*cw*ch)}
	for y := range ch {
		copy(out.Pix[3*y*cw:3*(y+1)*cw], l.img.Pix[3*((y0+y)*l.img.W+x0):])
	}
	return out
}

// alignFrom warps the face with the given landmarks (in the original's pixels) onto a template,
// sampling the coarsest level that still has a pixel for every template pixel: the crop holds no
// more detail than that, and a level decoded at a reduced DCT scale is a low-pass copy, so a large
// face is not aliased as it is when every third or eighth full-size pixel is sampled.
func alignFrom(p *Photo, landmarks [5]Point, tpl Template) ([]uint8, error) {
	t := EstimateSimilarity(landmarks[:], tpl.Points)
	l, err := p.pixels(math.Hypot(t.A, t.B)) // template pixels per original pixel
	if err != nil {
		return nil, err
	}
	if l.scale == 1 && l.offX == 0 && l.offY == 0 {
		return AlignTo(l.img, landmarks, tpl), nil
	}
	var at [5]Point
	for i, lm := range landmarks {
		at[i] = l.at(lm)
	}
	return AlignTo(l.img, at, tpl), nil
}

// secondLook is the photo as the second look sees it (Config.SecondLook): the pixels of the level
// the main pass at scale reads, smoothed by a box of about two original pixels either way and
// stretched so that their 0.5th and 99.5th percentiles become 0 and 255, the same for the three
// colours. A dark photo's grain, once stretched, hides its faces from YuNet and the embedding, so
// it is smoothed first. A level much finer than the main pass reads (a PNG, or a JPEG
// without libjpeg-turbo) is shrunk to its size first, so that a large photo's second look costs
// what a small one's does; the detector's finer passes are not run on it (secondLookPasses). A
// mirrored border goes round it (secondLookPad). The view has that one level, offset by the
// border; boxes found in it are in the original's pixels.
func (p *Photo) secondLook(scale float64) (*Photo, error) {
	l, err := p.pixels(scale)
	if err != nil {
		return nil, err
	}
	if l.scale > 1.5*scale {
		w, h := max(1, int(math.Round(float64(p.W)*scale))), max(1, int(math.Round(float64(p.H)*scale)))
		l = level{img: Resize(l.crop(p.W, p.H), w, h), scale: float64(w) / float64(p.W)}
	} else {
		l.img = &RGB{W: l.img.W, H: l.img.H, Pix: slices.Clone(l.img.Pix)}
	}
	boxBlur(l.img, int(min(4, max(1, math.Round(2*l.scale)))))
	stretchContrast(l.img.Pix)
	pad := min(int(math.Round(secondLookPad*float64(max(l.img.W, l.img.H)))), l.img.W-1, l.img.H-1)
	l.img = mirrorPad(l.img, pad)
	l.offX, l.offY = l.offX+float64(pad), l.offY+float64(pad)
	return &Photo{W: p.W, H: p.H, Format: p.Format, levels: []level{l}, ctx: p.ctx}, nil
}

// boxBlur replaces each pixel by the mean of the (2r+1)² around it, per colour; at the edges the
// mean of those inside. It averages along rows, then down columns, rounding after each.
func boxBlur(img *RGB, r int) {
	row := make([]uint8, 3*img.W)
	sum := make([]int, 3*img.W)
	for y := range img.H {
		out := img.Pix[3*y*img.W : 3*(y+1)*img.W]
		copy(row, out)
		boxMeans(out, row, img.W, 3, r, sum)
	}
	// down the columns, all at once: a row at a time, which reads the pixels in order
	boxMeans(img.Pix, slices.Clone(img.Pix), img.H, 3*img.W, r, sum)
}

// boxMeans reads in as n steps of width values each and writes into out, per value, the rounded
// mean over the steps within r of each step. sum has room for width values.
func boxMeans(out, in []uint8, n, width, r int, sum []int) {
	sum = sum[:width]
	clear(sum)
	add := func(step, sign int) {
		for k, v := range in[step*width : (step+1)*width] {
			sum[k] += sign * int(v)
		}
	}
	for i := range min(r, n) {
		add(i, 1)
	}
	for i := range n {
		if j := i + r; j < n {
			add(j, 1)
		}
		if j := i - r - 1; j >= 0 {
			add(j, -1)
		}
		count := min(n-1, i+r) - max(0, i-r) + 1
		for k, v := range sum {
			out[i*width+k] = uint8((v + count/2) / count)
		}
	}
}

// stretchContrast stretches values so that their 0.5th percentile becomes 0 and their 99.5th
// 255; a nearly flat picture is left as it is.
func stretchContrast(pix []uint8) {
	var hist [256]int
	for _, v := range pix {
		hist[v]++
	}
	lo, hi := percentile(&hist, len(pix), 0.005), percentile(&hist, len(pix), 0.995)
	if hi-lo < 8 {
		return
	}
	var stretched [256]uint8
	for v := range stretched {
		stretched[v] = uint8(min(255, max(0, (v-lo)*255/(hi-lo))))
	}
	for i, v := range pix {
		pix[i] = stretched[v]
	}
}

// percentile is the least value with at least q of the n counted values at or below it.
func percentile(hist *[256]int, n int, q float64) int {
	seen := 0
	for v, c := range hist {
		if seen += c; float64(seen) >= q*float64(n) {
			return v
		}
	}
	return 255
}
