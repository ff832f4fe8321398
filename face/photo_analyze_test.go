package face

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// photoCases are synthetic photos of the sizes the service meets, made of SCUT-FBP5500 portraits
// pasted on grey canvases: a face the main pass finds, faces only the second pass finds, a group,
// and a phone photo stored on its side with an EXIF orientation and sides that are not multiples
// of the DCT blocks.
func photoCases(t testing.TB) []struct {
	name string
	jpeg []byte
} {
	type tile struct {
		name       string
		x, y, side int
	}
	compose := func(w, h int, grey uint8, tiles ...tile) *RGB {
		img := canvas(w, h, grey)
		for _, tl := range tiles {
			paste(img, Resize(scutImage(t, tl.name), tl.side, tl.side), tl.x, tl.y)
		}
		return img
	}
	enc := func(img *RGB) []byte { return encodeJPEG(t, img.image(), 92) }
	phone := compose(3001, 2251, 170, tile{"AF1200.jpg", 1100, 600, 700}, tile{"CM600.jpg", 2300, 1500, 400})
	return []struct {
		name string
		jpeg []byte
	}{
		{"one face 1024×768", enc(compose(1024, 768, 200, tile{"CM4.jpg", 362, 200, 300}))},
		{"group 720×560", enc(compose(720, 560, 100, tile{"CF100.jpg", 0, 0, 320}, tile{"AM20.jpg", 360, 0, 256}, tile{"AF1500.jpg", 0, 340, 200}, tile{"CM600.jpg", 360, 340, 160}))},
		{"small face 2500×1800", enc(compose(2500, 1800, 120, tile{"AF1200.jpg", 1700, 600, 72}))},
		{"large face 1600×1200", enc(compose(1600, 1200, 120, tile{"AM20.jpg", 600, 400, 400}))},
		{"group 2000×1500", enc(compose(2001, 1501, 90, tile{"CF100.jpg", 100, 100, 90}, tile{"AM20.jpg", 700, 300, 110}, tile{"AF1500.jpg", 1300, 900, 100}, tile{"CM600.jpg", 1700, 200, 80}))},
		{"phone 3001×2251 on its side", withOrientation(enc(phone.Orient(8)), binary.LittleEndian, 6)},
	}
}

// TestPhotoFindsFacesAsFullResolution analyses each photo both ways: as the service does
// (DecodePhoto, the coarsest levels that suffice) and as the training commands do (Decode at full
// resolution with image/jpeg). The faces must be the same faces in the same places, with the same
// gender and nearly the same age and embedding.
func TestPhotoFindsFacesAsFullResolution(t *testing.T) {
	requireTurboJPEG(t)
	a := testAnalyzer(t)
	for _, tc := range photoCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			img, err := Decode(tc.jpeg)
			if err != nil {
				t.Fatal(err)
			}
			want := analyze(t, a, img)
			p, err := DecodePhoto(tc.jpeg)
			if err != nil {
				t.Fatal(err)
			}
			if p.W != img.W || p.H != img.H {
				t.Fatalf("photo %d×%d, image %d×%d", p.W, p.H, img.W, img.H)
			}
			got, err := a.AnalyzePhoto(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			checkFaces(t, img, got)
			t.Logf("%d faces; decoded %.3f of the pixels in %d decodes", len(got), float64(p.decodedPixels)/float64(p.W*p.H), p.decodes)
			if len(got) != len(want) {
				t.Fatalf("%d faces, %d at full resolution:\n%+v\n%+v", len(got), len(want), got, want)
			}
			for i := range got {
				g, w := got[i], want[i]
				side, lm, cos := apart(g, w)
				t.Logf("face %d, %.0f px: box %d,%d %d×%d (full resolution %d,%d %d×%d), landmarks %.1f px apart; age %d (%d), P(male) %.2f (%.2f), embedding cosine %.3f",
					i, side, g.X, g.Y, g.W, g.H, w.X, w.Y, w.W, w.H, lm, g.Age, w.Age, g.Male, w.Male, cos)
				// the detector sees slightly different pixels (a DCT-scaled level rather than the
				// full-size image box-averaged); one pixel of its input is 1/scale original pixels
				tol := max(2, 0.02*side)
				if lm > tol || !sameBox(g, w, int(math.Ceil(2*tol))) {
					t.Errorf("face %d: landmarks %.1f px apart, boxes %+v and %+v; want within %.1f px", i, lm, g.Detection.Box, w.Detection.Box, tol)
				}
				if g.Age-w.Age > 4 || w.Age-g.Age > 4 || math.Abs(g.Male-w.Male) > 0.1 || cos < 0.97 {
					t.Errorf("face %d: age %d, P(male) %.2f, embedding cosine %.3f; at full resolution age %d, P(male) %.2f", i, g.Age, g.Male, cos, w.Age, w.Male)
				}
			}
		})
	}
}

// apart says how far a face found one way is from the same face found another: the side of the
// second's box, the largest distance between their landmarks, and their embeddings' cosine.
func apart(g, w Face) (side, landmarks, cos float64) {
	for j := range 5 {
		landmarks = math.Max(landmarks, math.Hypot(g.Detection.Landmarks[j].X-w.Detection.Landmarks[j].X, g.Detection.Landmarks[j].Y-w.Detection.Landmarks[j].Y))
	}
	return math.Sqrt(float64(w.W * w.H)), landmarks, cosine(g.Embedding, w.Embedding)
}

func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

// TestQuickPassSameFaces analyses each photo as the server does, with the quick pass
// (Config.QuickPass), and without it as the training extraction does: SCUT-FBP5500 portraits as
// they are, and the photos above. The faces must be the same, with landmarks close enough for the
// same gender and nearly the same age and embedding.
func TestQuickPassSameFaces(t *testing.T) {
	requireTurboJPEG(t)
	a := testAnalyzer(t)
	quick := newTestAnalyzer(t, func(c *Config) { c.QuickPass = true })
	cases := photoCases(t)
	for _, path := range scutSample(t, 5) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct {
			name string
			jpeg []byte
		}{filepath.Base(path), data})
	}
	var quickOnly int
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, want := analyzeUpload(t, a, tc.jpeg)
			p, err := DecodePhoto(tc.jpeg)
			if err != nil {
				t.Fatal(err)
			}
			_, ran, err := quick.detectPasses(context.Background(), p, everyPass)
			if err != nil {
				t.Fatal(err)
			}
			if len(ran) == 1 && ran[0] == quickScale(p.W, p.H) {
				quickOnly++
			}
			_, got := analyzeUpload(t, quick, tc.jpeg)
			if len(got) != len(want) {
				t.Fatalf("%d faces with the quick pass, %d without:\n%+v\n%+v", len(got), len(want), got, want)
			}
			for i := range got {
				g, w := got[i], want[i]
				side, lm, cos := apart(g, w)
				t.Logf("passes %v; face %d, %.0f px: landmarks %.1f px apart (%.3f of the side); age %d (%d), P(male) %.3f (%.3f), embedding cosine %.4f",
					ran, i, side, lm, lm/side, g.Age, w.Age, g.Male, w.Male, cos)
				// YuNet's landmarks move by up to 7 % of the face between input scales, which moves
				// single faces' ages by several years; the held-out effect is cmd/train-models
				// calibrate's to measure, this test catches a pass that finds other faces
				if lm > max(2, 0.08*side) || g.Age-w.Age > 8 || w.Age-g.Age > 8 || math.Abs(g.Male-w.Male) > 0.2 || cos < 0.9 {
					t.Errorf("face %d: landmarks %.1f px apart, age %d, P(male) %.2f, embedding cosine %.3f; without the quick pass age %d, P(male) %.2f",
						i, lm, g.Age, g.Male, cos, w.Age, w.Male)
				}
			}
		})
	}
	if quickOnly < len(cases)/2 {
		t.Errorf("the quick pass alone served %d of %d photos; it should serve the portraits", quickOnly, len(cases))
	}
}

// TestSecondLookFindsDarkFaces darkens SCUT-FBP5500 portraits to a sixth of their light and adds
// sensor noise: the second look (Config.SecondLook) finds faces there that the passes alone miss,
// and changes nothing on the portraits as they are, where the passes find them.
func TestSecondLookFindsDarkFaces(t *testing.T) {
	plain := newTestAnalyzer(t, func(c *Config) { c.QuickPass = true })
	second := newTestAnalyzer(t, func(c *Config) { c.QuickPass, c.SecondLook = true, true })
	rng := rand.New(rand.NewPCG(7, 8))
	var without, with int
	for _, path := range scutSample(t, 4) {
		img := scutImage(t, filepath.Base(path))
		dark := &RGB{W: img.W, H: img.H, Pix: make([]uint8, len(img.Pix))}
		for i, v := range img.Pix {
			dark.Pix[i] = uint8(min(255, max(0, math.Round(float64(v)/6+10*rng.NormFloat64()))))
		}
		if len(analyze(t, plain, dark)) > 0 {
			without++
		}
		if len(analyze(t, second, dark)) > 0 {
			with++
		}
		a, b := analyze(t, plain, img), analyze(t, second, img)
		if len(a) != 1 || len(b) != 1 || a[0].Detection != b[0].Detection || a[0].Age != b[0].Age {
			t.Errorf("%s as it is: %+v without the second look, %+v with it; want the same face", path, a, b)
		}
	}
	t.Logf("dark, noisy portraits: faces found in %d of 16 without the second look, %d with it", without, with)
	if with < without+4 {
		t.Errorf("the second look found faces in %d of 16 dark portraits, the passes alone in %d; want at least 4 more", with, without)
	}
}

// TestBoxBlurAndStretch: a flat image stays flat under the blur, a lone bright pixel spreads
// evenly over its box, and the stretch takes a dark image's range to 0–255.
func TestBoxBlurAndStretch(t *testing.T) {
	img := canvas(9, 9, 40)
	boxBlur(img, 2)
	if img.Pix[0] != 40 || img.Pix[3*40] != 40 {
		t.Errorf("flat image blurred to %d, %d", img.Pix[0], img.Pix[3*40])
	}
	img = canvas(9, 9, 0)
	img.Pix[3*(4*9+4)] = 250
	boxBlur(img, 1)
	if got := img.Pix[3*(3*9+3)]; got != 28 || img.Pix[3*(4*9+4)] != 28 || img.Pix[3*(2*9+2)] != 0 {
		t.Errorf("impulse of 250 blurred to %d at the centre, %d beside, %d two away; want 28, 28, 0", img.Pix[3*(4*9+4)], got, img.Pix[3*(2*9+2)])
	}
	pix := make([]uint8, 1000)
	for i := range pix {
		pix[i] = uint8(20 + i%41) // 20–60
	}
	stretchContrast(pix)
	if slices.Min(pix) != 0 || slices.Max(pix) != 255 {
		t.Errorf("stretched to %d–%d, want 0–255", slices.Min(pix), slices.Max(pix))
	}
	// a large photo's view is shrunk to the main pass's size and given a mirrored border of
	// secondLookPad of its longer side (96 px); the photo is left as it was
	big := PhotoOf(canvas(2000, 1500, 30))
	view, err := big.secondLook(0.32)
	if err != nil {
		t.Fatal(err)
	}
	if l := view.levels[0]; l.img.W != 640+2*96 || l.img.H != 480+2*96 || l.offX != 96 || l.offY != 96 || l.scale != 0.32 ||
		view.W != 2000 || big.levels[0].img.Pix[0] != 30 {
		t.Errorf("view of %d×%d at scale %g, offset %g,%g, for a %d×%d photo", l.img.W, l.img.H, l.scale, l.offX, l.offY, view.W, view.H)
	}
}
