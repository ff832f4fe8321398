package face

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
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
// secondLookAllPassesSide to the bit: models are fitted on features extracted from such views, so
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

// TestSecondLookPasses: the second look's view runs the detector's passes as the photo does up to
// secondLookAllPassesSide, so that the faces and features found there stay as they were, and the
// main pass alone beyond it.
func TestSecondLookPasses(t *testing.T) {
	a := newTestAnalyzer(t, func(c *Config) { c.QuickPass, c.SecondLook = true, true })
	for _, c := range []struct {
		w, h int
		want []float64
	}{
		{640, 480, []float64{quickScale(640, 480), 1}},
		{1024, 768, []float64{quickScale(1024, 768), detectSide / 1024.0, 1}},
		{1025, 769, []float64{detectSide / 1025.0}},
		{1600, 1200, []float64{detectSide / 1600.0}},
	} {
		p := PhotoOf(canvas(c.w, c.h, 60))
		view, err := p.secondLook(detectScales(c.w, c.h)[0])
		if err != nil {
			t.Fatal(err)
		}
		_, ran, err := a.detectPasses(context.Background(), view, secondLookPasses(c.w, c.h))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ran, c.want) {
			t.Errorf("%d×%d: the view's passes ran at %v, want %v", c.w, c.h, ran, c.want)
		}
	}
}

// TestSecondLookLargePhotos pastes SCUT-FBP5500 portraits 140 px wide into 1,600×1,200 pictures
// darkened to an eighth of their light, with sensor noise: the second look, whose view gets the
// main pass alone there, still finds faces that the passes miss, where they were pasted.
func TestSecondLookLargePhotos(t *testing.T) {
	plain := newTestAnalyzer(t, func(c *Config) { c.QuickPass = true })
	second := newTestAnalyzer(t, func(c *Config) { c.QuickPass, c.SecondLook = true, true })
	rng := rand.New(rand.NewPCG(7, 8))
	const side = 140
	var without, with int
	for _, path := range scutSample(t, 4) {
		img := canvas(1600, 1200, 120)
		x, y := 200+rng.IntN(1200), 200+rng.IntN(800)
		paste(img, Resize(scutImage(t, filepath.Base(path)), side, side), x, y)
		for i, v := range img.Pix {
			img.Pix[i] = uint8(min(255, max(0, math.Round(float64(v)/8+10*rng.NormFloat64()))))
		}
		data := encodeJPEG(t, img.image(), 90)
		if _, faces := analyzeUpload(t, plain, data); len(faces) > 0 {
			without++
		}
		_, faces := analyzeUpload(t, second, data)
		if len(faces) > 0 {
			with++
		}
		for _, f := range faces {
			if f.X+f.W < x || f.X > x+side || f.Y+f.H < y || f.Y > y+side {
				t.Errorf("%s pasted at %d,%d: face found at %d,%d %d×%d", filepath.Base(path), x, y, f.X, f.Y, f.W, f.H)
			}
		}
	}
	t.Logf("dark, noisy 1,600×1,200 pictures: faces found in %d of 16 without the second look, %d with it", without, with)
	if with < without+4 {
		t.Errorf("the second look found faces in %d of 16 dark pictures, the passes alone in %d; want at least 4 more", with, without)
	}
}
