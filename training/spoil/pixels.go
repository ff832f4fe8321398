package spoil

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"

	"golang.org/x/image/draw"

	"github.com/hensachi/hensachi/face"
)

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

// covered hides 35–50 % of the face from one side: the lower face (a scarf, a mask), the upper
// (a cap, a hand over the eyes) or one half (a hand, a microphone, another's head).
func covered(canvas *image.RGBA, b face.Box, rng *rand.Rand) {
	part := Between(rng, 0.35, 0.5)
	r := image.Rect(int(b.X), int(b.Y), int(b.X+b.W+0.5), int(b.Y+b.H+0.5))
	switch rng.IntN(4) {
	case 0:
		r.Min.Y = r.Max.Y - int(part*b.H)
	case 1:
		r.Max.Y = r.Min.Y + int(part*b.H)
	case 2:
		r.Max.X = r.Min.X + int(part*b.W)
	default:
		r.Min.X = r.Max.X - int(part*b.W)
	}
	c := color.RGBA{uint8(rng.IntN(256)), uint8(rng.IntN(256)), uint8(rng.IntN(256)), 255}
	cover(canvas, r, c)
}
