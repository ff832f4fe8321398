package hardcase

import (
	"image"
	"math"
	"math/rand/v2"

	"golang.org/x/image/draw"

	"github.com/hensachi/hensachi/face"
)

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

func clamp01(v float64) float64 { return math.Min(1, math.Max(0, v)) }
