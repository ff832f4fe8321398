package hardcase

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"

	"golang.org/x/image/draw"
	"golang.org/x/image/math/f64"

	"github.com/hensachi/hensachi/face"
)

// toRGB packs a scene for the analyzer, as face.Decode would have.
func toRGB(m *image.RGBA) *face.RGB {
	b := m.Bounds()
	out := &face.RGB{W: b.Dx(), H: b.Dy(), Pix: make([]uint8, 3*b.Dx()*b.Dy())}
	for y := range out.H {
		row := m.Pix[y*m.Stride:]
		for x := range out.W {
			copy(out.Pix[3*(y*out.W+x):], row[4*x:4*x+3])
		}
	}
	return out
}

// feathered returns the face's image with an alpha that falls from 1 to 0 over the outer eighth
// of the image, so that a pasted face has no straight edge for the detector to key on, and keeps
// what is around it (hair, ears, neck), which gender and age are read from too.
func feathered(img *face.RGB) *image.RGBA {
	out := img.RGBA()
	fade := float64(min(img.W, img.H)) / 8
	for y := range img.H {
		for x := range img.W {
			d := math.Min(math.Min(float64(x)+0.5, float64(img.W-x)-0.5), math.Min(float64(y)+0.5, float64(img.H-y)-0.5))
			a := clamp01(d / fade)
			i := y*out.Stride + 4*x
			for c := range 3 {
				out.Pix[i+c] = uint8(float64(out.Pix[i+c])*a + 0.5)
			}
			out.Pix[i+3] = uint8(255*a + 0.5)
		}
	}
	return out
}

// paste draws src onto dst through the similarity that takes src's pixels to dst's (scale s,
// rotation by angle radians about src's point (px, py), which lands on (qx, qy)).
func paste(dst *image.RGBA, src *image.RGBA, s, angle, px, py, qx, qy float64) {
	cos, sin := s*math.Cos(angle), s*math.Sin(angle)
	m := f64.Aff3{
		cos, -sin, qx - cos*px + sin*py,
		sin, cos, qy - sin*px - cos*py,
	}
	draw.BiLinear.Transform(dst, m, src, src.Bounds(), draw.Over, nil)
}

// background fills a w×h canvas from a window of a photo without people, scaled to cover it.
func background(photo *face.RGB, w, h int, rng *rand.Rand) *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	// the window: as large as the photo allows at the canvas's aspect, at 60–100 % of that
	full := math.Min(float64(photo.W)/float64(w), float64(photo.H)/float64(h))
	k := full * (0.6 + 0.4*rng.Float64())
	ww, wh := int(float64(w)*k), int(float64(h)*k)
	x0, y0 := rng.IntN(photo.W-ww+1), rng.IntN(photo.H-wh+1)
	draw.ApproxBiLinear.Scale(out, out.Bounds(), photo.RGBA(), image.Rect(x0, y0, x0+ww, y0+wh), draw.Src, nil)
	return out
}

// convolve filters the image with a normalised kernel of odd side, the edge pixels extended.
func convolve(m *image.RGBA, k [][]float64) *image.RGBA {
	b := m.Bounds()
	out := image.NewRGBA(b)
	r := len(k) / 2
	type tap struct {
		dx, dy int
		w      float64
	}
	var taps []tap
	sum := 0.0
	for y, row := range k {
		for x, w := range row {
			if w != 0 {
				taps = append(taps, tap{x - r, y - r, w})
				sum += w
			}
		}
	}
	for y := range b.Dy() {
		for x := range b.Dx() {
			var acc [3]float64
			for _, t := range taps {
				sx, sy := min(max(x+t.dx, 0), b.Dx()-1), min(max(y+t.dy, 0), b.Dy()-1)
				i := sy*m.Stride + 4*sx
				acc[0] += t.w * float64(m.Pix[i])
				acc[1] += t.w * float64(m.Pix[i+1])
				acc[2] += t.w * float64(m.Pix[i+2])
			}
			o := y*out.Stride + 4*x
			for c := range 3 {
				out.Pix[o+c] = uint8(math.Round(acc[c] / sum))
			}
			out.Pix[o+3] = 255
		}
	}
	return out
}

// motionKernel is a line of the given length through the centre at the angle: the camera or the
// subject moving during the exposure.
func motionKernel(length int, angle float64) [][]float64 {
	k := square(length | 1)
	r := float64(len(k) / 2)
	for i := range 4 * length {
		t := float64(i)/float64(4*length-1) - 0.5
		x, y := r+t*float64(length-1)*math.Cos(angle), r+t*float64(length-1)*math.Sin(angle)
		k[int(math.Round(y))][int(math.Round(x))] = 1
	}
	return k
}

// diskKernel is a disk of the radius: a lens focused elsewhere.
func diskKernel(radius float64) [][]float64 {
	k := square(2*int(math.Ceil(radius)) + 1)
	c := float64(len(k) / 2)
	for y := range k {
		for x := range k[y] {
			if math.Hypot(float64(x)-c, float64(y)-c) <= radius {
				k[y][x] = 1
			}
		}
	}
	return k
}

func square(n int) [][]float64 {
	k := make([][]float64, n)
	for i := range k {
		k[i] = make([]float64, n)
	}
	return k
}

// underexpose scales the light down by gain on a gamma curve and adds the sensor noise an
// underexposed photo has once brightened: Gaussian, of sigma grey levels, per channel.
func underexpose(m *image.RGBA, gain, sigma float64, rng *rand.Rand) {
	for i := 0; i < len(m.Pix); i += 4 {
		for c := range 3 {
			v := 255 * gain * math.Pow(float64(m.Pix[i+c])/255, 1.3)
			m.Pix[i+c] = uint8(math.Round(math.Min(255, math.Max(0, v+sigma*rng.NormFloat64()))))
		}
	}
}

// cover paints a rectangle in a flat colour over the scene: a hand, a scarf, a microphone.
func cover(m *image.RGBA, r image.Rectangle, c color.RGBA) {
	draw.Draw(m, r, &image.Uniform{C: c}, image.Point{}, draw.Src)
}

func clamp01(v float64) float64 { return math.Min(1, math.Max(0, v)) }
