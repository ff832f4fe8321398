package attr

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hensachi/hensachi/face"
)

func TestStandardizerBoundsOutliers(t *testing.T) {
	s := Standardizer{Mean: []float64{0}, Scale: []float64{1}}
	if z := s.Apply([]float64{1e9}); z[0] != zLimit {
		t.Errorf("z = %v, want %v", z[0], zLimit)
	}
}

// TestCurveApply reads a curve between its knots, at them and beyond its ends.
func TestCurveApply(t *testing.T) {
	c := Curve{X: []float64{1, 2.5, 4, 5.5}, Y: []float64{1, 2.5, 4, 5.5}}
	for v, w := range map[float64]float64{0: 1, 1.75: 1.75, 3: 3, 9: 5.5} {
		if got := c.Apply(v); math.Abs(got-w) > 1e-12 {
			t.Errorf("Apply(%v) = %v, want %v", v, got, w)
		}
	}
}

func features(seed uint64) *face.Features {
	rng := rand.New(rand.NewPCG(seed, 1))
	vec := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	return &face.Features{GenderAge: vec(GenderAgeOutputs), Embedding: vec(8), MirroredGenderAge: vec(GenderAgeOutputs),
		FaceRes: vec(face.FaceResFeatures)}
}

func TestVector(t *testing.T) {
	f := features(1)
	mirrored := Recipe{Mirror: true}
	x, err := Vector(f, mirrored)
	if err != nil {
		t.Fatal(err)
	}
	if len(x) != GenderAgeOutputs+100+2+8 {
		t.Fatalf("%d features", len(x))
	}
	if want := (float64(f.GenderAge[5]) + float64(f.MirroredGenderAge[5])) / 2; x[5] != want {
		t.Errorf("x[5] = %v, want the mean %v", x[5], want)
	}
	soft := 0.0
	for k := range 100 {
		soft += x[GenderAgeOutputs+k]
	}
	if x[GenderAgeOutputs+100] != soft || x[GenderAgeOutputs+101] != math.Log1p(soft) {
		t.Errorf("soft age %v, log %v; want %v", x[GenderAgeOutputs+100], x[GenderAgeOutputs+101], soft)
	}
	if y, _ := Vector(f, Recipe{}); y[5] != float64(f.GenderAge[5]) || y[len(y)-1] != x[len(x)-1] {
		t.Errorf("unmirrored x[5] = %v, want %v; the embedding is not mirrored", y[5], f.GenderAge[5])
	}

	// FaceRes: its outputs as they are, then the mean age of its 100 age probabilities
	clear(f.FaceRes[face.FaceResFeatures-100:])
	f.FaceRes[face.FaceResFeatures-100+30], f.FaceRes[face.FaceResFeatures-100+40] = 0.5, 0.5
	y, err := Vector(f, Recipe{Mirror: true, FaceRes: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(y) != len(x)+face.FaceResFeatures+1 || !slices.Equal(y[:len(x)], x) || y[len(x)] != float64(f.FaceRes[0]) {
		t.Errorf("with FaceRes: %d features, want %d with the others first", len(y), len(x)+face.FaceResFeatures+1)
	}
	if y[len(y)-1] != 35 {
		t.Errorf("FaceRes mean age %v, want 35", y[len(y)-1])
	}
	f.FaceRes = f.FaceRes[:10]
	if _, err := Vector(f, Recipe{FaceRes: true}); err == nil {
		t.Error("no error for short FaceRes outputs")
	}

	f.MirroredGenderAge = nil
	if _, err := Vector(f, mirrored); err == nil {
		t.Error("no error without the mirrored gender-age outputs")
	}
	if _, err := Vector(&face.Features{GenderAge: make([]float32, 10)}, Recipe{}); err == nil {
		t.Error("no error for a short gender-age output")
	}
}

func TestWeightsRoundTrip(t *testing.T) {
	w := Weights{0, -1.5, float32(math.Pi), math.MaxFloat32, float32(math.Inf(-1))}
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	var back Weights
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back) != len(w) {
		t.Fatalf("%d weights back, want %d", len(back), len(w))
	}
	for i := range w {
		if back[i] != w[i] {
			t.Errorf("weight %d: %v, want %v", i, back[i], w[i])
		}
	}
	for _, bad := range []string{`"AAA="`, `"not base64!"`, `[1, 2]`} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("no error for %s", bad)
		}
	}
}

func ones(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

// TestNetworkCheck: Load accepts a network only when its layers fit together.
func TestNetworkCheck(t *testing.T) {
	const d, h = 4, 3
	net := Network{Standardizer: Standardizer{Mean: make([]float64, d), Scale: ones(d)}, Hidden: h,
		W1: make(Weights, d*h), B1: make(Weights, h), W2: make(Weights, h*NumOutputs), B2: make(Weights, NumOutputs)}
	if err := net.check(d); err != nil {
		t.Error(err)
	}
	net.B2 = net.B2[:1]
	if err := net.check(d); err == nil {
		t.Error("check accepts a network without its second output")
	}
}

// BenchmarkAttributes is the heads' share of a face's analysis: the feature vector, the network
// at its trained size and the calibrations, beside the models' inference (face.BenchmarkModels).
func BenchmarkAttributes(b *testing.B) {
	f := features(1)
	f.Embedding = make([]float32, 512)
	recipe := Recipe{Mirror: true, FaceRes: true}
	x, err := Vector(f, recipe)
	if err != nil {
		b.Fatal(err)
	}
	d, h := len(x), 128 // the trained network's hidden layer (training/attributes.DefaultNetwork)
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(n int) Weights {
		w := make(Weights, n)
		for i := range w {
			w[i] = float32(rng.NormFloat64() / 10)
		}
		return w
	}
	m := &Model{Recipe: recipe, AgeCalibrationShare: 0.5,
		Network: Network{Standardizer: Standardizer{Mean: x, Scale: ones(d)}, Hidden: h,
			W1: random(d * h), B1: random(h), W2: random(h * NumOutputs), B2: random(NumOutputs)},
		GenderCalibration: Logistic{Linear{Standardizer: Standardizer{Mean: []float64{0}, Scale: ones(1)}, Weights: []float64{1}}},
		AgeCalibration:    Curve{X: []float64{0, 100}, Y: []float64{0, 100}},
	}
	for b.Loop() {
		if _, _, err := m.Attributes(f); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAgeRanges loads the committed age ranges: every age has a range around it within 0–MaxAge,
// and a file whose bands leave a gap is refused.
func TestAgeRanges(t *testing.T) {
	r, err := LoadAgeRanges("../models/age_range.json")
	if err != nil {
		t.Fatal(err)
	}
	for age := range MaxAge + 1 {
		low, high := r.Range(age)
		if low < 0 || high > MaxAge || low > high || high-low > 40 {
			t.Errorf("age %d: range %d–%d", age, low, high)
		}
	}
	gap := AgeRanges{FormatVersion: AgeRangesFormat, Bands: []AgeRangeBand{{From: 0, To: 10}, {From: 11, To: MaxAge + 1}}}
	b, err := json.Marshal(gap)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "gap.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadAgeRanges(path); err == nil {
		t.Error("bands with a gap at 10 were loaded")
	}
}
