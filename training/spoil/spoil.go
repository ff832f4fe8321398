// Package spoil makes a face hard to see the ways photos taken in the wild do: dark and noisy,
// blurred by motion or a lens focused elsewhere, turned, cut by the frame, partly covered. The
// hard-case set (training/hardcase) pastes faces so spoilt into scenes to measure the service; the
// training (training.HardCopies) fits the age and gender heads on spoilt copies of the faces too.
// Every draw comes from the caller's random source, so a copy is the same on every machine.
package spoil

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"

	"golang.org/x/image/draw"
	"golang.org/x/image/math/f64"

	"github.com/hensachi/hensachi/face"
)

// Kind is one way a face is hard to see.
type Kind string

// The kinds, in the cards' order.
const (
	Dark    Kind = "dark"
	Motion  Kind = "motion"
	Defocus Kind = "defocus"
	Rotated Kind = "rotated"
	Cut     Kind = "cut"
	Covered Kind = "covered"
)

// Kinds lists every kind in order.
var Kinds = []Kind{Dark, Motion, Defocus, Rotated, Cut, Covered}

// How says what each kind does to a face, as the cards of the sets spoilt with it tell it; the
// figures are Apply's and Copy's draws.
var How = map[Kind]string{
	Dark:    "the light scaled to 12–30 % on a gamma of 1.3, Gaussian noise of σ 4–10 grey levels",
	Motion:  "blurred along a line of 8–16 % of the face's width at any angle",
	Defocus: "blurred by a disk of radius 3–6 % of the face's width",
	Rotated: "turned by 15–45° either way",
	Cut:     "the frame's edge (left, right, top or bottom) through the face's centre: half of it visible",
	Covered: "35–50 % of the face's box painted over in a flat colour from one side (mask, cap, hand)",
}

// The face's width in a copy (Copy), as in an everyday photo: the detector's and the aligned crops'
// view of a face of that size, not a portrait's.
const minWidth, maxWidth = 80, 140

// Between draws uniformly from [lo, hi).
func Between(rng *rand.Rand, lo, hi float64) float64 { return lo + (hi-lo)*rng.Float64() }

// Angle draws a turn of 15–45° either way, in radians.
func Angle(rng *rand.Rand) float64 {
	a := Between(rng, 15, 45) * math.Pi / 180
	if rng.IntN(2) == 0 {
		a = -a
	}
	return a
}

// Apply spoils the picture m, in which the face's box is b, in kind's way, its parameters drawn
// from rng: the light and the noise of Dark, the blur of Motion and Defocus, the patch of Covered.
// Rotated and Cut are where a face is placed, not what happens to the picture: m is returned as
// it is (Copy places them). The result may be a new picture.
func Apply(kind Kind, m *image.RGBA, b face.Box, rng *rand.Rand) *image.RGBA {
	switch kind {
	case Dark:
		underexpose(m, Between(rng, 0.12, 0.3), Between(rng, 4, 10), rng)
	case Motion:
		return convolve(m, motionKernel(int(Between(rng, 0.08, 0.16)*b.W), Between(rng, 0, math.Pi)))
	case Defocus:
		return convolve(m, diskKernel(Between(rng, 0.03, 0.06)*b.W))
	case Covered:
		covered(m, b, rng)
	}
	return m
}

// Copy is a face's own image spoilt in kind's way: scaled so that the face (its box b on img) is
// 80–140 pixels wide, then turned about the face's centre on a plain ground (Rotated), cut by an
// edge of the frame through the face's centre so that half of it is left (Cut), or spoilt as Apply
// does.
func Copy(kind Kind, img *face.RGB, b face.Box, rng *rand.Rand) *face.RGB {
	s := Between(rng, minWidth, maxWidth) / b.W
	w, h := max(1, int(math.Round(float64(img.W)*s))), max(1, int(math.Round(float64(img.H)*s)))
	scaled := face.Resize(img, w, h)
	box := face.Box{X: b.X * s, Y: b.Y * s, W: b.W * s, H: b.H * s}
	cx, cy := int(math.Round(box.X+box.W/2)), int(math.Round(box.Y+box.H/2))
	switch kind {
	case Rotated:
		canvas := image.NewRGBA(image.Rect(0, 0, w, h))
		draw.Draw(canvas, canvas.Bounds(), &image.Uniform{C: meanColour(scaled)}, image.Point{}, draw.Src)
		Paste(canvas, scaled.RGBA(), 1, Angle(rng), float64(cx), float64(cy), float64(cx), float64(cy))
		return ToRGB(canvas)
	case Cut:
		keep := image.Rect(0, 0, w, h)
		switch rng.IntN(4) {
		case 0:
			keep.Min.X = cx
		case 1:
			keep.Max.X = cx
		case 2:
			keep.Min.Y = cy
		default:
			keep.Max.Y = cy
		}
		return ToRGB(scaled.RGBA().SubImage(keep).(*image.RGBA))
	}
	return ToRGB(Apply(kind, scaled.RGBA(), box, rng))
}

func meanColour(img *face.RGB) color.RGBA {
	var sum [3]int
	for i, v := range img.Pix {
		sum[i%3] += int(v)
	}
	n := max(1, img.W*img.H)
	return color.RGBA{uint8(sum[0] / n), uint8(sum[1] / n), uint8(sum[2] / n), 255}
}

// ToRGB packs a picture for the analyzer, as face.Decode would have.
func ToRGB(m *image.RGBA) *face.RGB {
	b := m.Bounds()
	out := &face.RGB{W: b.Dx(), H: b.Dy(), Pix: make([]uint8, 3*b.Dx()*b.Dy())}
	for y := range out.H {
		row := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):]
		for x := range out.W {
			copy(out.Pix[3*(y*out.W+x):], row[4*x:4*x+3])
		}
	}
	return out
}

// Paste draws src onto dst through the similarity that takes src's pixels to dst's (scale s,
// rotation by angle radians about src's point (px, py), which lands on (qx, qy)).
func Paste(dst *image.RGBA, src *image.RGBA, s, angle, px, py, qx, qy float64) {
	cos, sin := s*math.Cos(angle), s*math.Sin(angle)
	m := f64.Aff3{
		cos, -sin, qx - cos*px + sin*py,
		sin, cos, qy - sin*px - cos*py,
	}
	draw.BiLinear.Transform(dst, m, src, src.Bounds(), draw.Over, nil)
}
