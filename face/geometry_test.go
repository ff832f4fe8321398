package face

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestIoU(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b Box
		want float64
	}{
		{"identical", Box{1, 2, 3, 4}, Box{1, 2, 3, 4}, 1},
		{"disjoint", Box{0, 0, 2, 2}, Box{5, 5, 2, 2}, 0},
		{"touching edges", Box{0, 0, 2, 2}, Box{2, 0, 2, 2}, 0},
		{"half shifted", Box{0, 0, 2, 2}, Box{1, 0, 2, 2}, 2.0 / 6},
		{"contained", Box{0, 0, 4, 4}, Box{1, 1, 2, 2}, 4.0 / 16},
		{"diagonal overlap", Box{0, 0, 2, 2}, Box{1, 1, 2, 2}, 1.0 / 7},
		{"negative coordinates", Box{-3, -3, 2, 2}, Box{-2, -3, 2, 2}, 2.0 / 6},
		{"zero area", Box{0, 0, 0, 0}, Box{0, 0, 0, 0}, 0},
		{"zero width inside", Box{1, 1, 0, 2}, Box{0, 0, 4, 4}, 0},
		{"negative size", Box{0, 0, -2, -2}, Box{-1, -1, 2, 2}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := IoU(tc.a, tc.b); !near(got, tc.want, 1e-12) {
				t.Errorf("IoU(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
			}
			if got := IoU(tc.b, tc.a); !near(got, tc.want, 1e-12) {
				t.Errorf("IoU(%v, %v) = %v, want %v (not symmetric)", tc.b, tc.a, got, tc.want)
			}
		})
	}
}

func TestNMS(t *testing.T) {
	det := func(x, y, w, h, score float64) Detection {
		return Detection{Box: Box{x, y, w, h}, Score: score}
	}
	scores := func(ds []Detection) []float64 {
		var s []float64
		for _, d := range ds {
			s = append(s, d.Score)
		}
		return s
	}
	for _, tc := range []struct {
		name string
		in   []Detection
		iou  float64
		want []float64 // the scores of the kept detections, in order
	}{
		{"empty", nil, 0.3, nil},
		{"one", []Detection{det(0, 0, 10, 10, 0.8)}, 0.3, []float64{0.8}},
		{"overlapping: best kept", []Detection{det(0, 0, 10, 10, 0.8), det(1, 1, 10, 10, 0.95), det(0, 1, 10, 10, 0.9)}, 0.3, []float64{0.95}},
		{"separate: all kept, best first", []Detection{det(0, 0, 10, 10, 0.7), det(50, 0, 10, 10, 0.9), det(100, 0, 10, 10, 0.8)}, 0.3, []float64{0.9, 0.8, 0.7}},
		{"two clusters", []Detection{
			det(0, 0, 10, 10, 0.75), det(100, 100, 20, 20, 0.85), det(1, 0, 10, 10, 0.9), det(101, 102, 20, 20, 0.8),
		}, 0.3, []float64{0.9, 0.85}},
		// a suppressed box does not suppress in turn: the third overlaps only the second
		{"chain", []Detection{det(0, 0, 10, 10, 0.9), det(5, 0, 10, 10, 0.8), det(10, 0, 10, 10, 0.7)}, 0.3, []float64{0.9, 0.7}},
		// IoU of these two is exactly 1/3: kept at 1/3, dropped below
		{"at the threshold", []Detection{det(0, 0, 2, 2, 0.9), det(1, 0, 2, 2, 0.8)}, 1.0 / 3, []float64{0.9, 0.8}},
		{"over the threshold", []Detection{det(0, 0, 2, 2, 0.9), det(1, 0, 2, 2, 0.8)}, 0.3, []float64{0.9}},
		{"small inside large", []Detection{det(0, 0, 100, 100, 0.9), det(40, 40, 10, 10, 0.95)}, 0.3, []float64{0.95, 0.9}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.in)
			got := NMS(in, tc.iou)
			if !slices.Equal(scores(got), tc.want) {
				t.Errorf("NMS kept scores %v, want %v", scores(got), tc.want)
			}
			if !slices.Equal(in, tc.in) {
				t.Error("NMS modified its input")
			}
		})
	}
	t.Run("equal scores keep input order", func(t *testing.T) {
		in := []Detection{det(0, 0, 10, 10, 0.9), det(1, 0, 10, 10, 0.9), det(50, 0, 10, 10, 0.9)}
		got := NMS(in, 0.3)
		if len(got) != 2 || got[0].Box != in[0].Box || got[1].Box != in[2].Box {
			t.Errorf("NMS = %v", got)
		}
	})
}

func TestClipBox(t *testing.T) {
	for _, tc := range []struct {
		name         string
		b            Box
		w, h         int
		x, y, bw, bh int
	}{
		{"inside", Box{10, 20, 30, 40}, 100, 100, 10, 20, 30, 40},
		{"rounded", Box{10.4, 19.6, 30.2, 40.5}, 100, 100, 10, 20, 31, 40},
		{"negative origin", Box{-5, -10, 30, 40}, 100, 100, 0, 0, 25, 30},
		{"past the far edges", Box{80, 90, 30, 40}, 100, 100, 80, 90, 20, 10},
		{"larger than the image", Box{-10, -10, 200, 200}, 100, 50, 0, 0, 100, 50},
		{"wholly left", Box{-50, 10, 20, 20}, 100, 100, 0, 10, 0, 20},
		{"wholly above", Box{10, -50, 20, 20}, 100, 100, 10, 0, 20, 0},
		{"wholly right", Box{150, 10, 20, 20}, 100, 100, 150, 10, 0, 20},
		{"wholly below", Box{10, 150, 20, 20}, 100, 100, 10, 150, 20, 0},
		{"negative size", Box{50, 50, -10, -10}, 100, 100, 50, 50, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, y, bw, bh := ClipBox(tc.b, tc.w, tc.h)
			if x != tc.x || y != tc.y || bw != tc.bw || bh != tc.bh {
				t.Errorf("ClipBox(%v, %d, %d) = %d,%d %d×%d; want %d,%d %d×%d", tc.b, tc.w, tc.h, x, y, bw, bh, tc.x, tc.y, tc.bw, tc.bh)
			}
			if bw > 0 && bh > 0 && (x < 0 || y < 0 || x+bw > tc.w || y+bh > tc.h) {
				t.Errorf("non-empty box %d,%d %d×%d leaves the %d×%d image", x, y, bw, bh, tc.w, tc.h)
			}
		})
	}
}

// similarity builds the transform of a rotation by deg degrees, a scale and a translation.
func similarity(deg, scale, tx, ty float64) Similarity {
	r := deg * math.Pi / 180
	return Similarity{A: scale * math.Cos(r), B: scale * math.Sin(r), TX: tx, TY: ty}
}

func TestEstimateSimilarity(t *testing.T) {
	for _, want := range []Similarity{
		similarity(0, 1, 0, 0),
		similarity(0, 1, 12.5, -7),
		similarity(30, 2, 5, 7),
		similarity(-75, 0.4, -100, 300),
		similarity(180, 3.5, 1000, 0.25),
		similarity(137, 0.01, 0, 0),
	} {
		t.Run(fmt.Sprintf("%+v", want), func(t *testing.T) {
			dst := make([]Point, len(ArcFaceTemplate))
			for i, p := range ArcFaceTemplate {
				dst[i] = want.Apply(p)
			}
			got := EstimateSimilarity(ArcFaceTemplate, dst)
			if !near(got.A, want.A, 1e-9) || !near(got.B, want.B, 1e-9) || !near(got.TX, want.TX, 1e-7) || !near(got.TY, want.TY, 1e-7) {
				t.Fatalf("EstimateSimilarity = %+v", got)
			}
			inv := got.Invert()
			for _, p := range append(slices.Clone(ArcFaceTemplate), Point{0, 0}, Point{-40, 900}) {
				if q := inv.Apply(got.Apply(p)); !near(q.X, p.X, 1e-6) || !near(q.Y, p.Y, 1e-6) {
					t.Errorf("Invert(Apply(%v)) = %v", p, q)
				}
				if q := got.Apply(inv.Apply(p)); !near(q.X, p.X, 1e-6) || !near(q.Y, p.Y, 1e-6) {
					t.Errorf("Apply(Invert(%v)) = %v", p, q)
				}
			}
			if ii := inv.Invert(); !near(ii.A, got.A, 1e-9) || !near(ii.B, got.B, 1e-9) || !near(ii.TX, got.TX, 1e-6) || !near(ii.TY, got.TY, 1e-6) {
				t.Errorf("Invert(Invert(s)) = %+v, want %+v", ii, got)
			}
		})
	}
}

func TestEstimateSimilarityLeastSquares(t *testing.T) {
	// dst is an exact similarity of src plus noise that sums to zero and is orthogonal to the
	// points: the least-squares fit is the exact transform
	src := []Point{{0, 0}, {10, 0}, {0, 10}, {10, 10}}
	want := similarity(10, 1.5, 3, 4)
	// Σ noise, Σ (x, y)·noise and Σ (x, y)×noise all vanish, (x, y) taken from the centroid (5, 5)
	noise := []Point{{1, 0}, {-1, 0}, {-1, 0}, {1, 0}}
	dst := make([]Point, len(src))
	for i, p := range src {
		q := want.Apply(p)
		dst[i] = Point{q.X + noise[i].X, q.Y + noise[i].Y}
	}
	got := EstimateSimilarity(src, dst)
	if !near(got.A, want.A, 1e-9) || !near(got.B, want.B, 1e-9) || !near(got.TX, want.TX, 1e-9) || !near(got.TY, want.TY, 1e-9) {
		t.Errorf("EstimateSimilarity = %+v, want %+v", got, want)
	}
	// all source points equal: nothing to rotate or scale, only the centroids are matched
	same := []Point{{5, 5}, {5, 5}, {5, 5}}
	got = EstimateSimilarity(same, []Point{{1, 2}, {3, 4}, {5, 6}})
	if got != (Similarity{A: 1, TX: -2, TY: -1}) {
		t.Errorf("degenerate source: %+v", got)
	}
}

// TestAlign places a face with known landmarks in an image whose red and green channels are the
// pixel's x and y and whose blue marks the image area. The aligned crop must then show, at each
// template position, the image coordinates of the corresponding landmark, and black outside the
// image.
func TestAlign(t *testing.T) {
	const W, H = 256, 200
	img := &RGB{W: W, H: H, Pix: make([]uint8, 3*W*H)}
	for y := range H {
		for x := range W {
			i := 3 * (y*W + x)
			img.Pix[i], img.Pix[i+1], img.Pix[i+2] = uint8(x), uint8(y), 200
		}
	}
	for _, tc := range []struct {
		name string
		s    Similarity // from template to image
	}{
		{"upright", similarity(0, 1, 70, 40)},
		{"rotated and enlarged", similarity(25, 1.6, 110, 10)},
		{"upside down", similarity(180, 1.2, 190, 180)},
		{"partly outside", similarity(-15, 2.2, -60, 30)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var lm [5]Point
			for i, p := range ArcFaceTemplate {
				lm[i] = tc.s.Apply(p)
			}
			out := Align(img, lm)
			if len(out) != 3*AlignSize*AlignSize {
				t.Fatalf("Align returned %d bytes", len(out))
			}
			px := func(u, v int) []uint8 { i := 3 * (v*AlignSize + u); return out[i : i+3] }
			// the landmarks land on the template positions
			for i, p := range ArcFaceTemplate {
				u, v := int(math.Round(p.X)), int(math.Round(p.Y))
				src := tc.s.Apply(Point{float64(u), float64(v)})
				if src.X < 0 || src.Y < 0 || src.X > W-1 || src.Y > H-1 {
					continue
				}
				if c := px(u, v); !near(float64(c[0]), src.X, 1) || !near(float64(c[1]), src.Y, 1) || c[2] != 200 {
					t.Errorf("landmark %d at template (%d,%d) shows image (%d,%d), want (%.1f,%.1f)", i, u, v, c[0], c[1], src.X, src.Y)
				}
			}
			// every pixel: the image coordinates it came from, or black outside the image
			inside, outside := 0, 0
			for v := range AlignSize {
				for u := range AlignSize {
					src := tc.s.Apply(Point{float64(u), float64(v)})
					c := px(u, v)
					switch {
					case src.X >= 0 && src.Y >= 0 && src.X <= W-1 && src.Y <= H-1:
						inside++
						if !near(float64(c[0]), src.X, 1) || !near(float64(c[1]), src.Y, 1) || c[2] != 200 {
							t.Fatalf("(%d,%d) = %v, want image (%.2f,%.2f)", u, v, c, src.X, src.Y)
						}
					case src.X <= -1 || src.Y <= -1 || src.X >= W || src.Y >= H:
						outside++
						if c[0] != 0 || c[1] != 0 || c[2] != 0 {
							t.Fatalf("(%d,%d) maps outside the image to (%.2f,%.2f) but is %v, not black", u, v, src.X, src.Y, c)
						}
					}
				}
			}
			if tc.name == "partly outside" && (inside == 0 || outside == 0) {
				t.Errorf("%d pixels inside, %d outside: the case does not straddle the edge", inside, outside)
			}
		})
	}
}

func constantRGB(w, h int, c [3]uint8) *RGB {
	m := &RGB{W: w, H: h, Pix: make([]uint8, 3*w*h)}
	for i := 0; i < len(m.Pix); i += 3 {
		copy(m.Pix[i:], c[:])
	}
	return m
}

func TestResizeConstant(t *testing.T) {
	c := [3]uint8{17, 140, 255}
	for _, sz := range [][4]int{
		{10, 10, 10, 10}, {10, 10, 37, 23}, {64, 48, 32, 24}, {100, 80, 7, 5}, {99, 101, 33, 10}, {5, 3, 1, 1}, {1, 1, 9, 4}, {640, 10, 64, 1},
	} {
		t.Run(fmt.Sprint(sz), func(t *testing.T) {
			got := Resize(constantRGB(sz[0], sz[1], c), sz[2], sz[3])
			if got.W != sz[2] || got.H != sz[3] || len(got.Pix) != 3*sz[2]*sz[3] {
				t.Fatalf("got %d×%d with %d bytes", got.W, got.H, len(got.Pix))
			}
			for i := 0; i < len(got.Pix); i += 3 {
				if [3]uint8(got.Pix[i:i+3]) != c {
					t.Fatalf("pixel %d = %v, want %v", i/3, got.Pix[i:i+3], c)
				}
			}
		})
	}
}

func TestResizeShrinkAverages(t *testing.T) {
	// 2×2 blocks of four different values: halving gives each block's mean
	img := &RGB{W: 4, H: 4, Pix: make([]uint8, 3*16)}
	blocks := [4][4]uint8{{0, 10, 20, 30}, {100, 100, 100, 101}, {255, 255, 0, 0}, {1, 2, 3, 4}}
	for b, vals := range blocks {
		bx, by := 2*(b%2), 2*(b/2)
		for k, v := range vals {
			i := 3 * ((by+k/2)*4 + bx + k%2)
			img.Pix[i], img.Pix[i+1], img.Pix[i+2] = v, 255-v, v/2
		}
	}
	got := Resize(img, 2, 2)
	for b, vals := range blocks {
		sum := 0
		for _, v := range vals {
			sum += int(v)
		}
		mean := uint8((sum + 2) / 4)
		if p := got.at(b%2, b/2); p[0] != mean {
			t.Errorf("block %d: %v, want red %d (the mean of %v)", b, p, mean, vals)
		}
	}

	// a one-pixel checkerboard must not alias when shrunk: every output pixel is mid-grey
	for _, k := range []int{2, 3, 4} {
		n := 12 * k
		board := &RGB{W: n, H: n, Pix: make([]uint8, 3*n*n)}
		for y := range n {
			for x := range n {
				if (x+y)%2 == 0 {
					i := 3 * (y*n + x)
					board.Pix[i], board.Pix[i+1], board.Pix[i+2] = 255, 255, 255
				}
			}
		}
		small := Resize(board, 12, 12)
		for i, v := range small.Pix {
			if v < 110 || v > 145 {
				t.Fatalf("shrink by %d: byte %d = %d, want mid-grey", k, i, v)
			}
		}
	}
}

func TestResizeBilinear(t *testing.T) {
	// doubling a horizontal ramp keeps it a ramp, monotonic, with the ends held
	img := &RGB{W: 4, H: 1, Pix: []uint8{0, 0, 0, 80, 0, 0, 160, 0, 0, 240, 0, 0}}
	got := Resize(img, 8, 1)
	want := []uint8{0, 20, 60, 100, 140, 180, 220, 240}
	for x := range 8 {
		if p := got.at(x, 0); p[0] != want[x] {
			t.Errorf("x=%d: %d, want %d (row %v)", x, p[0], want[x], got.Pix)
		}
	}
}

func TestDetectScales(t *testing.T) {
	for _, tc := range []struct {
		w, h int
		want []float64
	}{
		{100, 80, []float64{2}},  // small: enlarged at most twice
		{256, 256, []float64{2}}, // a SCUT-FBP5500 image
		{320, 200, []float64{2}},
		{400, 300, []float64{1.6}},
		{640, 480, []float64{1}},
		{480, 640, []float64{1}},
		{960, 720, []float64{640.0 / 960}}, // at the threshold: one pass
		{1000, 500, []float64{0.64, 1}},    // just over: a second pass at full size
		{1280, 960, []float64{0.5, 1}},
		{2500, 1800, []float64{0.256, 0.512}},
		{1800, 2500, []float64{0.256, 0.512}},
		{4000, 3000, []float64{0.16, 0.32}},
	} {
		got := detectScales(tc.w, tc.h)
		if len(got) != len(tc.want) {
			t.Errorf("detectScales(%d, %d) = %v, want %v", tc.w, tc.h, got, tc.want)
			continue
		}
		for i := range got {
			if !near(got[i], tc.want[i], 1e-12) {
				t.Errorf("detectScales(%d, %d) = %v, want %v", tc.w, tc.h, got, tc.want)
			}
		}
	}
}

func TestYuNetInput(t *testing.T) {
	img := constantRGB(50, 30, [3]uint8{10, 20, 30})
	data, w, h, pw, ph := yunetInput(img, 1.5)
	if w != 75 || h != 45 || pw != 96 || ph != 64 || len(data) != 3*pw*ph {
		t.Fatalf("yunetInput = %d values, %d×%d padded to %d×%d", len(data), w, h, pw, ph)
	}
	plane := pw * ph
	for _, p := range [][2]int{{0, 0}, {74, 44}, {30, 20}} {
		o := p[1]*pw + p[0]
		if data[o] != 30 || data[plane+o] != 20 || data[2*plane+o] != 10 {
			t.Errorf("(%d,%d) = B %v G %v R %v, want BGR 30 20 10", p[0], p[1], data[o], data[plane+o], data[2*plane+o])
		}
	}
	for _, p := range [][2]int{{75, 0}, {95, 63}, {0, 45}} {
		o := p[1]*pw + p[0]
		if data[o] != 0 || data[plane+o] != 0 || data[2*plane+o] != 0 {
			t.Errorf("padding (%d,%d) is not zero", p[0], p[1])
		}
	}
}

// yunetZeros returns empty outputs for a pw×ph input: every anchor scores zero.
func yunetZeros(pw, ph int) [3]yunetOutputs {
	var outs [3]yunetOutputs
	for si, s := range yunetStrides {
		n := (pw / s) * (ph / s)
		outs[si] = yunetOutputs{cls: make([]float32, n), obj: make([]float32, n), bbox: make([]float32, 4*n), kps: make([]float32, 10*n)}
	}
	return outs
}

func TestDecodeYuNet(t *testing.T) {
	const pw, ph = 64, 32
	// stride 16: 4 columns × 2 rows; the anchor at row 1, column 2 is index 6
	outs := yunetZeros(pw, ph)
	o := outs[1]
	o.cls[6], o.obj[6] = 0.81, 1 // score 0.9
	copy(o.bbox[4*6:], []float32{0.5, 0.25, float32(math.Log(2)), float32(math.Log(3))})
	for j := range 5 {
		o.kps[10*6+2*j], o.kps[10*6+2*j+1] = float32(j)/10, 0.2
	}
	// below the threshold once clamped: cls above 1 counts as 1
	o.cls[1], o.obj[1] = 5, 0.45 // sqrt(0.45) < 0.7
	o.cls[2], o.obj[2] = -3, 1
	// stride 8: 8×4 anchors; a second detection at row 3, column 7 (index 31) just over the threshold
	outs[0].cls[31], outs[0].obj[31] = 1.5, 0.5 // sqrt(0.5) ≈ 0.707
	outs[0].cls[30], outs[0].obj[30] = 0.48, 1  // sqrt(0.48) ≈ 0.693

	const scale = 0.5
	dets, err := decodeYuNet(outs, pw, ph, scaledBy(scale))
	if err != nil {
		t.Fatal(err)
	}
	if len(dets) != 2 {
		t.Fatalf("%d detections, want 2: %+v", len(dets), dets)
	}
	// centre ((2+0.5)·16, (1+0.25)·16) = (40, 20), size (2·16, 3·16) = (32, 48), all divided by the scale
	d := dets[1] // stride 16 comes after stride 8
	if !near(d.Score, 0.9, 1e-6) {
		t.Errorf("score %v, want 0.9", d.Score)
	}
	if b := d.Box; !near(b.X, 48, 1e-4) || !near(b.Y, -8, 1e-4) || !near(b.W, 64, 1e-4) || !near(b.H, 96, 1e-4) {
		t.Errorf("box %+v, want {48 -8 64 96}", b)
	}
	for j, p := range d.Landmarks {
		wx, wy := (float64(j)/10+2)*16/scale, (0.2+1)*16/scale
		if !near(p.X, wx, 1e-4) || !near(p.Y, wy, 1e-4) {
			t.Errorf("landmark %d = %v, want (%v, %v)", j, p, wx, wy)
		}
	}
	// the stride-8 anchor: centre (7·8, 3·8) = (56, 24), size 8×8
	d = dets[0]
	if !near(d.Score, math.Sqrt(0.5), 1e-6) {
		t.Errorf("clamped score %v, want sqrt(0.5)", d.Score)
	}
	if b := d.Box; !near(b.X, 104, 1e-4) || !near(b.Y, 40, 1e-4) || !near(b.W, 16, 1e-4) || !near(b.H, 16, 1e-4) {
		t.Errorf("box %+v, want {104 40 16 16}", b)
	}
	if p := d.Landmarks[4]; !near(p.X, 112, 1e-4) || !near(p.Y, 48, 1e-4) {
		t.Errorf("landmark at the cell corner = %v, want (112, 48)", p)
	}

	// the same outputs at scale 1 are in input pixels
	dets, err = decodeYuNet(outs, pw, ph, scaledBy(1))
	if err != nil || len(dets) != 2 || !near(dets[1].Box.X, 24, 1e-4) || !near(dets[1].Box.W, 32, 1e-4) {
		t.Errorf("scale 1: %+v, %v", dets, err)
	}

	if dets, err := decodeYuNet(yunetZeros(pw, ph), pw, ph, scaledBy(1)); err != nil || len(dets) != 0 {
		t.Errorf("all-zero outputs: %v, %v", dets, err)
	}
}

func TestDecodeYuNetSizes(t *testing.T) {
	const pw, ph = 64, 32
	for _, tc := range []struct {
		name string
		edit func(*[3]yunetOutputs)
	}{
		{"cls short", func(o *[3]yunetOutputs) { o[0].cls = o[0].cls[1:] }},
		{"obj long", func(o *[3]yunetOutputs) { o[1].obj = append(o[1].obj, 0) }},
		{"bbox short", func(o *[3]yunetOutputs) { o[2].bbox = o[2].bbox[:7] }},
		{"kps missing", func(o *[3]yunetOutputs) { o[2].kps = nil }},
		{"strides swapped", func(o *[3]yunetOutputs) { o[0], o[2] = o[2], o[0] }},
		{"for another input size", func(o *[3]yunetOutputs) { *o = yunetZeros(pw, 2*ph) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			outs := yunetZeros(pw, ph)
			tc.edit(&outs)
			if dets, err := decodeYuNet(outs, pw, ph, scaledBy(1)); err == nil {
				t.Errorf("decodeYuNet = %v, want an error", dets)
			}
		})
	}
}

func TestDecodeGenderAge(t *testing.T) {
	fc1 := func(female, male float32, age int) []float32 {
		v := make([]float32, 202)
		v[0], v[1] = female, male
		for k := range 100 {
			if k < age {
				v[2+2*k], v[2+2*k+1] = -1, 2
			} else {
				v[2+2*k], v[2+2*k+1] = 3, 0.5
			}
		}
		return v
	}
	for _, tc := range []struct {
		name string
		fc1  []float32
		age  int
		male float64
	}{
		{"male 37", fc1(0, float32(math.Log(3)), 37), 37, 0.75},
		{"female 0", fc1(2, -2, 0), 0, 1 / (1 + math.Exp(4))},
		{"undecided 100", fc1(1, 1, 100), 100, 0.5},
		{"huge logits", fc1(-1000, 1000, 64), 64, 1},
		{"too short", make([]float32, 201), 0, 0.5},
		{"empty", nil, 0, 0.5},
		// the age counts the pairs whose second value wins, wherever they are; ties do not count
		{"scattered", func() []float32 {
			v := make([]float32, 202)
			for _, k := range []int{0, 5, 50, 99} {
				v[3+2*k] = 1
			}
			return v
		}(), 4, 0.5},
		{"extra values ignored", append(fc1(0, 0, 20), 9, 9, 9), 20, 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			age, male := decodeGenderAge(tc.fc1)
			if age != tc.age || !near(male, tc.male, 1e-6) {
				t.Errorf("decodeGenderAge = %d, %v; want %d, %v", age, male, tc.age, tc.male)
			}
		})
	}
}

// BenchmarkResize measures the detector's usual resize, a 1024×768 photo to 640×480.
func BenchmarkResize(b *testing.B) {
	img := &RGB{W: 1024, H: 768, Pix: make([]uint8, 3*1024*768)}
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	b.SetBytes(int64(len(img.Pix)))
	for b.Loop() {
		Resize(img, 640, 480)
	}
}

// TestYuNetInputMatchesResize: the detector's planes, made row by row, are the image resized by
// Resize and laid out as BGR, to the last value, for enlargements, reductions with and without the
// box average, and the image's own size.
func TestYuNetInputMatchesResize(t *testing.T) {
	img := toRGB(gradient(301, 203))
	for i := range img.Pix {
		img.Pix[i] ^= uint8(i * 7) // detail, so that a wrong tap shows
	}
	for _, scale := range []float64{1, 1.5, 2, 0.625, 0.5, 0.3, 0.16} {
		data, w, h, pw, ph := yunetInput(img, scale)
		want := Resize(img, w, h)
		plane := pw * ph
		for y := range ph {
			for x := range pw {
				o := y*pw + x
				var p [3]uint8
				if x < w && y < h {
					p = want.at(x, y)
				}
				if data[o] != float32(p[2]) || data[plane+o] != float32(p[1]) || data[2*plane+o] != float32(p[0]) {
					t.Fatalf("scale %v: (%d,%d) = BGR %v %v %v, Resize gives RGB %v", scale, x, y, data[o], data[plane+o], data[2*plane+o], p)
				}
			}
		}
	}
}

// TestFaceResTemplate: the looser crop is the ArcFace template scaled to 160 pixels and shrunk by
// 0.9 about the centre, and a face aligned to it keeps its shape.
func TestFaceResTemplate(t *testing.T) {
	if FaceResTemplate.Size != 160 {
		t.Fatalf("size %d", FaceResTemplate.Size)
	}
	k := 160.0 / 112 * 0.9
	for i, p := range FaceResTemplate.Points {
		q := ArcFaceTemplate[i]
		if math.Abs(p.X-(80+(q.X-56)*k)) > 1e-9 || math.Abs(p.Y-(80+(q.Y-56)*k)) > 1e-9 {
			t.Errorf("point %d at %v, want %v zoomed", i, p, q)
		}
	}
	// a similarity from one template to the other is a pure scale about the centres
	s := EstimateSimilarity(ArcFaceTemplate, FaceResTemplate.Points)
	if math.Abs(s.A-k) > 1e-9 || math.Abs(s.B) > 1e-9 {
		t.Errorf("ArcFace → FaceRes template is %+v, want a scale of %v", s, k)
	}
}

// TestSampleBilinearInside: the inside fast path gives the same bytes as summing the four
// weighted neighbours one by one, so aligned crops (and the features fitted on them) stay the
// same to the bit.
func TestSampleBilinearInside(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	img := &RGB{W: 37, H: 29, Pix: make([]uint8, 3*37*29)}
	for i := range img.Pix {
		img.Pix[i] = uint8(rng.IntN(256))
	}
	for range 100000 {
		x, y := rng.Float64()*float64(img.W+4)-2, rng.Float64()*float64(img.H+4)-2
		var got [3]uint8
		sampleBilinear(img, x, y, got[:])
		var want [3]uint8
		x0, y0 := int(math.Floor(x)), int(math.Floor(y))
		sampleNeighbours(img, x0, y0, x-float64(x0), y-float64(y0), want[:])
		if got != want {
			t.Fatalf("(%v, %v): %v, want %v", x, y, got, want)
		}
	}
}
