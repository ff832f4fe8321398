package face

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestMirrorPad(t *testing.T) {
	img := &RGB{W: 3, H: 2, Pix: make([]uint8, 18)}
	for i := range img.Pix {
		img.Pix[i] = uint8(i)
	}
	out := mirrorPad(img, 2) // pad clipped to 1: a 2-pixel-high image mirrors one row at most
	if out.W != 5 || out.H != 4 {
		t.Fatalf("padded to %d×%d, want 5×4", out.W, out.H)
	}
	for _, c := range []struct{ x, y, sx, sy int }{
		{1, 1, 0, 0}, // the image itself, moved by the pad
		{0, 1, 1, 0}, // left border: column 1 mirrored about column 0
		{4, 2, 1, 1}, // right border: column 1 mirrored about column 2
		{1, 0, 0, 1}, // top border: row 1
		{0, 3, 1, 0}, // bottom-left corner: mirrored both ways
	} {
		if got, want := out.at(c.x, c.y), img.at(c.sx, c.sy); got != want {
			t.Errorf("(%d,%d) = %v, want the image's (%d,%d) %v", c.x, c.y, got, c.sx, c.sy, want)
		}
	}
}

// TestSecondLookFindsCutFaces cuts portraits by the frame's top edge through the face's centre, in
// good and in poor light: the second look (its mirrored border) finds faces there that the passes miss, in the
// right place, and nothing else.
func TestSecondLookFindsCutFaces(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the models")
	}
	first := newTestAnalyzer(t, func(c *Config) { c.QuickPass = true })
	service := newTestAnalyzer(t, func(c *Config) { c.QuickPass, c.SecondLook = true, true })
	ctx := context.Background()
	var foundFirst, foundBoth, pictures int
	for _, name := range []string{"AF1.jpg", "AM2.jpg", "CF3.jpg", "CM4.jpg"} {
		portrait := scutImage(t, name)
		dets, err := first.Detect(ctx, portrait)
		if err != nil || len(dets) != 1 {
			t.Fatalf("%s: %d faces on the portrait, %v", name, len(dets), err)
		}
		// the portrait's lower part from the face's centre down, at the top edge of a grey picture
		cy := int(dets[0].Box.Y + dets[0].Box.H/2)
		lower := &RGB{W: portrait.W, H: portrait.H - cy, Pix: slices.Clone(portrait.Pix[3*cy*portrait.W:])}
		for _, light := range []float64{1, 0.25} {
			img := canvas(640, 480, 120)
			paste(img, lower, 100, 0)
			for i, v := range img.Pix {
				img.Pix[i] = uint8(float64(v) * light)
			}
			pictures++
			firstFaces, err := first.Analyze(ctx, img)
			if err != nil {
				t.Fatal(err)
			}
			faces, err := service.Analyze(ctx, img)
			if err != nil {
				t.Fatal(err)
			}
			foundFirst += len(firstFaces)
			foundBoth += len(faces)
			for _, f := range faces {
				// the visible half: from the top edge to about half the face's height
				if f.Y > 5 || f.H > int(0.8*dets[0].Box.H) || f.X+f.W < 100 || f.X > 100+portrait.W {
					t.Errorf("%s at light %g: face at %d,%d %d×%d, want the visible half at the top edge", name, light, f.X, f.Y, f.W, f.H)
				}
			}
		}
	}
	t.Logf("%d pictures: %d faces found by the first pass, %d with the second look", pictures, foundFirst, foundBoth)
	if foundBoth < pictures*3/4 || foundBoth <= foundFirst {
		t.Errorf("%d of %d cut faces found with the second look, %d by the first pass alone", foundBoth, pictures, foundFirst)
	}
}

// TestSecondLookViewUnchanged pins the second look's view of pictures whose longer side is at most
// 1,024 px to the bit: models are fitted on features extracted from such views, so
// a faster blur, stretch or border must give the same pixels. The pictures are dark and grainy, as
// the view is made for: one read at full resolution (a blur of two pixels) and one whose coarsest
// level is half its size, with odd sides (a blur of one).
func TestSecondLookViewUnchanged(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 1))
	dark := func(w, h int) *RGB {
		img := &RGB{W: w, H: h, Pix: make([]uint8, 3*w*h)}
		for i := range img.Pix {
			img.Pix[i] = uint8(min(255, 10+(i/3%w)*40/w+rng.IntN(24)))
		}
		return img
	}
	half := &Photo{W: 1001, H: 751, levels: []level{{img: dark(501, 376), scale: 0.5}}}
	for _, c := range []struct {
		name  string
		photo *Photo
		want  string
	}{
		{"640×480 at full resolution", PhotoOf(dark(640, 480)), "832×672+96,96 e512fc6c58c159a620d6445597899af57fb4d503c5172d7f7e45c18d322ccacc"},
		{"1001×751 from a level of half its size", half, "651×526+75,75 d0b2df9547dca44e365c1808672a3f9d388480639b5ee125da9160dcf86c110b"},
	} {
		view, err := c.photo.secondLook(detectScales(c.photo.W, c.photo.H)[0])
		if err != nil {
			t.Fatal(err)
		}
		l := view.levels[0]
		got := fmt.Sprintf("%d×%d+%g,%g %x", l.img.W, l.img.H, l.offX, l.offY, sha256.Sum256(l.img.Pix))
		if got != c.want {
			t.Errorf("%s: view %s, want %s", c.name, got, c.want)
		}
	}
}
