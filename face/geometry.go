package face

import (
	"math"
	"slices"
)

// Box is a rectangle in upright-image pixels.
type Box struct{ X, Y, W, H float64 }

func (b Box) area() float64 { return max(0, b.W) * max(0, b.H) }

// IoU is the intersection over union of two boxes.
func IoU(a, b Box) float64 {
	x1, y1 := max(a.X, b.X), max(a.Y, b.Y)
	x2, y2 := min(a.X+a.W, b.X+b.W), min(a.Y+a.H, b.Y+b.H)
	inter := max(0, x2-x1) * max(0, y2-y1)
	union := a.area() + b.area() - inter
	if union <= 0 {
		return 0
	}
	return inter / union
}

// Point is a landmark in upright-image pixels.
type Point struct{ X, Y float64 }

// Detection is one face found by the detector.
type Detection struct {
	Box       Box
	Score     float64
	Landmarks [5]Point // subject's right eye, left eye, nose tip, right and left mouth corners
}

// NMS keeps the best-scoring detections, dropping any that overlaps a kept one by more than iou.
func NMS(dets []Detection, iou float64) []Detection {
	sorted := slices.Clone(dets)
	slices.SortStableFunc(sorted, func(a, b Detection) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	var kept []Detection
	for _, d := range sorted {
		overlaps := false
		for _, k := range kept {
			if IoU(d.Box, k.Box) > iou {
				overlaps = true
				break
			}
		}
		if !overlaps {
			kept = append(kept, d)
		}
	}
	return kept
}

// ClipBox rounds a box to whole pixels inside a w×h image.
func ClipBox(b Box, w, h int) (x, y, bw, bh int) {
	x1 := int(math.Round(math.Max(0, b.X)))
	y1 := int(math.Round(math.Max(0, b.Y)))
	x2 := int(math.Round(math.Min(float64(w), b.X+b.W)))
	y2 := int(math.Round(math.Min(float64(h), b.Y+b.H)))
	return x1, y1, max(0, x2-x1), max(0, y2-y1)
}

// Similarity is x' = A·x + t with A = [[a, −b], [b, a]]: rotation, uniform scale, translation.
type Similarity struct{ A, B, TX, TY float64 }

// Apply maps a point.
func (s Similarity) Apply(p Point) Point {
	return Point{s.A*p.X - s.B*p.Y + s.TX, s.B*p.X + s.A*p.Y + s.TY}
}

// Invert returns the inverse transform.
func (s Similarity) Invert() Similarity {
	d := s.A*s.A + s.B*s.B
	a, b := s.A/d, -s.B/d
	return Similarity{A: a, B: b, TX: -(a*s.TX - b*s.TY), TY: -(b*s.TX + a*s.TY)}
}

// EstimateSimilarity fits the least-squares similarity (Umeyama, without reflection) taking src
// onto dst.
func EstimateSimilarity(src, dst []Point) Similarity {
	n := float64(len(src))
	var msx, msy, mdx, mdy float64
	for i := range src {
		msx += src[i].X
		msy += src[i].Y
		mdx += dst[i].X
		mdy += dst[i].Y
	}
	msx, msy, mdx, mdy = msx/n, msy/n, mdx/n, mdy/n
	// For the 2-D similarity the Umeyama solution reduces to closed form sums.
	var sxx, sxy, varSrc float64
	for i := range src {
		x, y := src[i].X-msx, src[i].Y-msy
		u, v := dst[i].X-mdx, dst[i].Y-mdy
		sxx += x*u + y*v
		sxy += x*v - y*u
		varSrc += x*x + y*y
	}
	if varSrc == 0 {
		return Similarity{A: 1, TX: mdx - msx, TY: mdy - msy}
	}
	a, b := sxx/varSrc, sxy/varSrc
	return Similarity{A: a, B: b, TX: mdx - (a*msx - b*msy), TY: mdy - (b*msx + a*msy)}
}

// ArcFaceTemplate is where the five landmarks sit in a 112×112 aligned face.
var ArcFaceTemplate = []Point{
	{38.2946, 51.6963}, {73.5318, 51.5014}, {56.0252, 71.7366}, {41.5493, 92.3655}, {70.7299, 92.2041},
}

// AlignSize is the side of an aligned face.
const AlignSize = 112

// Template is where the five landmarks sit in a square aligned crop of Size pixels.
type Template struct {
	Size   int
	Points []Point
}

// ArcFace112 is the crop the gender-age and embedding models read.
var ArcFace112 = Template{Size: AlignSize, Points: ArcFaceTemplate}

// FaceResTemplate is the looser crop FaceRes reads: the ArcFace template scaled to 160 pixels and
// shrunk by 0.9 about the centre, so that the crop shows the hairline, ears and chin as the
// detector boxes FaceRes was trained on do. 160 rather than its native 224 pixels costs half the
// time; both the zoom and the colour order were chosen by the model's own gender accuracy on
// held-out faces.
var FaceResTemplate = zoomed(ArcFace112, 160, 0.9)

func zoomed(t Template, size int, zoom float64) Template {
	k := float64(size) / float64(t.Size) * zoom
	c, tc := float64(size)/2, float64(t.Size)/2
	out := Template{Size: size, Points: make([]Point, len(t.Points))}
	for i, p := range t.Points {
		out.Points[i] = Point{X: c + (p.X-tc)*k, Y: c + (p.Y-tc)*k}
	}
	return out
}

// Align warps the face with the given landmarks onto the 112×112 ArcFace template.
func Align(img *RGB, landmarks [5]Point) []uint8 { return AlignTo(img, landmarks, ArcFace112) }

// AlignTo warps the face with the given landmarks onto a template: bilinear sampling, black
// outside the image. The result is packed RGB.
func AlignTo(img *RGB, landmarks [5]Point, t Template) []uint8 {
	toTemplate := EstimateSimilarity(landmarks[:], t.Points)
	back := toTemplate.Invert()
	out := make([]uint8, 3*t.Size*t.Size)
	for v := 0; v < t.Size; v++ {
		for u := 0; u < t.Size; u++ {
			p := back.Apply(Point{float64(u), float64(v)})
			o := 3 * (v*t.Size + u)
			sampleBilinear(img, p.X, p.Y, out[o:o+3])
		}
	}
	return out
}

// sampleBilinear writes the colour at (x, y); neighbours outside the image count as black.
func sampleBilinear(img *RGB, x, y float64, dst []uint8) {
	x0, y0 := int(math.Floor(x)), int(math.Floor(y))
	fx, fy := x-float64(x0), y-float64(y0)
	if x0 >= 0 && y0 >= 0 && x0+1 < img.W && y0+1 < img.H {
		// inside: the same weights, products and sums in the same order as below, without the
		// per-neighbour tests, so that a crop is the same to the bit either way
		wx0, wx1, wy0, wy1 := 1-math.Abs(-fx), 1-math.Abs(1-fx), 1-math.Abs(-fy), 1-math.Abs(1-fy)
		w00, w10, w01, w11 := wx0*wy0, wx1*wy0, wx0*wy1, wx1*wy1
		i := 3 * (y0*img.W + x0)
		j := i + 3*img.W
		p := img.Pix[i : i+6 : i+6]
		q := img.Pix[j : j+6 : j+6]
		for c := range 3 {
			v := w00*float64(p[c]) + w10*float64(p[3+c]) + w01*float64(q[c]) + w11*float64(q[3+c])
			dst[c] = uint8(math.Min(255, math.Round(v)))
		}
		return
	}
	sampleNeighbours(img, x0, y0, fx, fy, dst)
}

// sampleNeighbours is sampleBilinear for any position: each neighbour in turn, black outside.
func sampleNeighbours(img *RGB, x0, y0 int, fx, fy float64, dst []uint8) {
	var acc [3]float64
	for dy := 0; dy <= 1; dy++ {
		for dx := 0; dx <= 1; dx++ {
			px, py := x0+dx, y0+dy
			if px < 0 || py < 0 || px >= img.W || py >= img.H {
				continue
			}
			wgt := (1 - math.Abs(float64(dx)-fx)) * (1 - math.Abs(float64(dy)-fy))
			i := 3 * (py*img.W + px)
			acc[0] += wgt * float64(img.Pix[i])
			acc[1] += wgt * float64(img.Pix[i+1])
			acc[2] += wgt * float64(img.Pix[i+2])
		}
	}
	for c := range 3 {
		dst[c] = uint8(math.Min(255, math.Round(acc[c])))
	}
}

// Resize scales an image to w×h: a box average first when shrinking by 2 or more (so the detector
// does not see aliasing), then bilinear sampling with the edge pixels extended. The sampling
// positions and weights are computed once per row and column, and the inner loop is integer
// arithmetic on the packed bytes.
func Resize(img *RGB, w, h int) *RGB {
	if w == img.W && h == img.H {
		return img
	}
	r := newResampler(img, w, h)
	if r.src.W == w && r.src.H == h {
		return r.src
	}
	out := &RGB{W: w, H: h, Pix: make([]uint8, 3*w*h)}
	forRows(h, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			r.row(out.Pix[3*y*w:3*(y+1)*w], y)
		}
	})
	return out
}

// resampler produces the rows of an image resized to w×h one at a time, so that a caller that
// converts them (the detector's input planes) needs no resized copy of the whole image.
type resampler struct {
	src    *RGB // the image, box-averaged when shrinking by 2 or more
	xs, ys []tap
}

func newResampler(img *RGB, w, h int) resampler {
	r := resampler{src: img}
	if k := min(img.W/w, img.H/h); k >= 2 {
		r.src = shrink(img, k)
	}
	if r.src.W != w || r.src.H != h {
		r.xs, r.ys = bilinearTaps(r.src.W, w), bilinearTaps(r.src.H, h)
	}
	return r
}

// row returns output row y as packed RGB: a row of the source itself when it has the output's
// size, else the row computed into dst.
func (r resampler) row(dst []uint8, y int) []uint8 {
	src := r.src
	if r.xs == nil {
		return src.Pix[3*y*src.W : 3*(y+1)*src.W]
	}
	const one = 1 << 8
	ty := r.ys[y]
	row0 := src.Pix[3*ty.i0*src.W:]
	row1 := src.Pix[3*ty.i1*src.W:]
	wy0, wy1 := one-ty.f, ty.f
	for x, tx := range r.xs {
		// three-byte views let the compiler drop the bounds checks of the unrolled channels
		a, b := 3*tx.i0, 3*tx.i1
		p00, p01 := row0[a:a+3:a+3], row0[b:b+3:b+3]
		p10, p11 := row1[a:a+3:a+3], row1[b:b+3:b+3]
		q := dst[3*x : 3*x+3 : 3*x+3]
		wx0, wx1 := one-tx.f, tx.f
		q[0] = uint8(((uint32(p00[0])*wx0+uint32(p01[0])*wx1)*wy0 + (uint32(p10[0])*wx0+uint32(p11[0])*wx1)*wy1 + one*one/2) >> 16)
		q[1] = uint8(((uint32(p00[1])*wx0+uint32(p01[1])*wx1)*wy0 + (uint32(p10[1])*wx0+uint32(p11[1])*wx1)*wy1 + one*one/2) >> 16)
		q[2] = uint8(((uint32(p00[2])*wx0+uint32(p01[2])*wx1)*wy0 + (uint32(p10[2])*wx0+uint32(p11[2])*wx1)*wy1 + one*one/2) >> 16)
	}
	return dst[:3*len(r.xs)]
}

// tap is a bilinear sampling position: the two source indices and the weight of the second, in 1/256.
type tap struct {
	i0, i1 int
	f      uint32
}

// bilinearTaps maps n output positions onto a source of length size, centres aligned.
func bilinearTaps(size, n int) []tap {
	taps := make([]tap, n)
	scale := float64(size) / float64(n)
	for i := range taps {
		p := math.Min(math.Max((float64(i)+0.5)*scale-0.5, 0), float64(size-1))
		i0 := int(p)
		taps[i] = tap{i0: i0, i1: min(i0+1, size-1), f: uint32(math.Round((p - float64(i0)) * 256))}
	}
	return taps
}

// shrink averages k×k blocks.
func shrink(img *RGB, k int) *RGB {
	w, h := img.W/k, img.H/k
	out := &RGB{W: w, H: h, Pix: make([]uint8, 3*w*h)}
	n := uint32(k * k)
	forRows(h, func(y0, y1 int) {
		sum := make([]uint32, 3*w)
		for y := y0; y < y1; y++ {
			clear(sum)
			for dy := 0; dy < k; dy++ {
				row := img.Pix[3*(y*k+dy)*img.W:]
				for x := 0; x < w; x++ {
					s := row[3*x*k : 3*(x*k+k)]
					for i := 0; i < len(s); i += 3 {
						sum[3*x] += uint32(s[i])
						sum[3*x+1] += uint32(s[i+1])
						sum[3*x+2] += uint32(s[i+2])
					}
				}
			}
			o := out.Pix[3*y*w : 3*(y+1)*w]
			for i := range o {
				o[i] = uint8((sum[i] + n/2) / n)
			}
		}
	})
	return out
}
