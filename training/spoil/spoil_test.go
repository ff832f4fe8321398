package spoil

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hensachi/hensachi/face"
)

// testImage is a 200×240 picture of fine detail everywhere (each pixel a random grey of 60–240)
// with a face's box in its middle.
func testImage() (*face.RGB, face.Box) {
	img := &face.RGB{W: 200, H: 240, Pix: make([]uint8, 3*200*240)}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < len(img.Pix); i += 3 {
		v := uint8(60 + rng.IntN(181))
		copy(img.Pix[i:], []uint8{v, v, v})
	}
	return img, face.Box{X: 50, Y: 60, W: 100, H: 120}
}

func mean(m *face.RGB) float64 {
	sum := 0
	for _, v := range m.Pix {
		sum += int(v)
	}
	return float64(sum) / float64(len(m.Pix))
}

// detail is the mean difference between horizontal neighbours.
func detail(m *face.RGB) float64 {
	sum := 0.0
	for i := 3; i < len(m.Pix); i += 3 {
		sum += math.Abs(float64(m.Pix[i]) - float64(m.Pix[i-3]))
	}
	return sum / float64(len(m.Pix)/3)
}

// TestCopy checks what each kind does to a copy, that the face comes out 80–140 pixels wide, and
// that the same draws give the same pixels.
func TestCopy(t *testing.T) {
	img, box := testImage()
	for _, k := range Kinds {
		for seed := range uint64(20) {
			c := Copy(k, img, box, rand.New(rand.NewPCG(seed, 1)))
			again := Copy(k, img, box, rand.New(rand.NewPCG(seed, 1)))
			if c.W != again.W || c.H != again.H || !slices.Equal(c.Pix, again.Pix) {
				t.Fatalf("%s: two copies with the same draws differ", k)
			}
			// the picture is scaled with the face: 2 face widths across, 2 face heights down
			s := float64(c.W) / float64(img.W)
			if k == Cut {
				s = math.Max(float64(c.W)/float64(img.W), float64(c.H)/float64(img.H))
			}
			if w := s * box.W; w < minWidth-1 || w > maxWidth+1 {
				t.Fatalf("%s: the face is %.0f pixels wide", k, w)
			}
			whole := float64(img.W*img.H) * s * s
			switch k {
			case Cut: // the frame's edge through the face's centre, which is the picture's
				if got := float64(c.W * c.H); math.Abs(got/whole-0.5) > 0.02 {
					t.Errorf("cut: %d×%d is not half of the scaled picture", c.W, c.H)
				}
			case Dark:
				if mean(c) > 0.4*mean(img) {
					t.Errorf("dark: mean %.0f, the original's %.0f", mean(c), mean(img))
				}
			case Motion, Defocus:
				if detail(c) > detail(img)/2 {
					t.Errorf("%s: neighbour contrast %.1f, the original's %.1f: not blurred", k, detail(c), detail(img))
				}
			case Covered:
				if flat := flatShare(c); flat < 0.35*0.25 || flat > 0.5*0.25+0.02 {
					t.Errorf("covered: %.0f %% of the picture flat, want 35–50 %% of the face's quarter", 100*flat)
				}
			case Rotated: // the turn leaves corners of the plain ground
				if m := mean(c); c.W != int(math.Round(float64(img.W)*s)) || m < 140 || m > 160 {
					t.Errorf("rotated: %d×%d, mean %.0f (the ground is the picture's mean, 150)", c.W, c.H, m)
				}
			}
		}
	}
}

// flatShare is the share of pixels whose right and lower neighbours have their colour exactly:
// a painted patch, where the random greys have almost none.
func flatShare(m *face.RGB) float64 {
	n := 0
	for y := range m.H - 1 {
		for x := range m.W - 1 {
			i := 3 * (y*m.W + x)
			if slices.Equal(m.Pix[i:i+3], m.Pix[i+3:i+6]) && slices.Equal(m.Pix[i:i+3], m.Pix[i+3*m.W:i+3*m.W+3]) {
				n++
			}
		}
	}
	return float64(n) / float64(m.W*m.H)
}
