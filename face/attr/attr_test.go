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

// TestFitLogisticSeparates fits P(y) = σ(2·x0 − x1) and checks the recovered direction and the
// calibration of the probabilities.
func TestFitLogisticSeparates(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var x [][]float64
	var y []bool
	for range 4000 {
		v := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		x, y = append(x, v), append(y, rng.Float64() < sigmoid(2*v[0]-v[1]))
	}
	l, err := FitLogistic(x, y, 1e-4)
	if err != nil {
		t.Fatal(err)
	}
	slope := func(j int) float64 { return l.Weights[j] / l.Scale[j] }
	for j, want := range []float64{2, -1, 0} {
		if math.Abs(slope(j)-want) > 0.25 {
			t.Errorf("slope %d = %.3f, want %.1f", j, slope(j), want)
		}
	}
	if p := l.Prob([]float64{0, 0, 0}); math.Abs(p-0.5) > 0.05 {
		t.Errorf("P at the origin %.3f, want 0.5", p)
	}
}

func TestStandardizerBoundsOutliers(t *testing.T) {
	s := Standardizer{Mean: []float64{0}, Scale: []float64{1}}
	if z := s.Apply([]float64{1e9}); z[0] != zLimit {
		t.Errorf("z = %v, want %v", z[0], zLimit)
	}
}

func TestFitIsotonic(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5, 6}
	y := []float64{1, 3, 2, 4, 6, 5}
	c := FitIsotonic(x, y, 1)
	// (3, 2) and (6, 5) violate the order and pool with their predecessors
	want := Curve{X: []float64{1, 2.5, 4, 5.5}, Y: []float64{1, 2.5, 4, 5.5}}
	if len(c.X) != len(want.X) {
		t.Fatalf("curve %+v, want %+v", c, want)
	}
	for i := range c.X {
		if c.X[i] != want.X[i] || c.Y[i] != want.Y[i] {
			t.Fatalf("curve %+v, want %+v", c, want)
		}
	}
	for v, w := range map[float64]float64{0: 1, 1.75: 1.75, 3: 3, 9: 5.5} {
		if got := c.Apply(v); math.Abs(got-w) > 1e-12 {
			t.Errorf("Apply(%v) = %v, want %v", v, got, w)
		}
	}
}

// TestCalibrateRemovesPull feeds a predictor pulled to the middle (raw = 35 + 0.5·(age − 35)):
// the calibrated ages are unbiased in every band.
func TestCalibrateRemovesPull(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var raw, age []float64
	for range 5000 {
		a := float64(rng.IntN(90))
		raw, age = append(raw, 35+0.5*(a-35)+rng.NormFloat64()), append(age, a)
	}
	c := calibrate(raw, age)
	for _, a := range []float64{5, 35, 80} {
		if got := c.Apply(35 + 0.5*(a-35)); math.Abs(got-a) > 2 {
			t.Errorf("true age %v read as %.1f", a, got)
		}
	}
}

// TestCalibrationShare: an unbiased reading needs none of the calibration; one pulled to the
// middle needs as much as brings the bands within maxBandBias, and no more.
func TestCalibrationShare(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	var fair, pulled, age []float64
	for range 5000 {
		a := float64(rng.IntN(90))
		noise := rng.NormFloat64()
		fair, pulled, age = append(fair, a+noise), append(pulled, 35+0.8*(a-35)+noise), append(age, a)
	}
	if s := calibrationShare(fair, age, calibrate(fair, age)); s != 0 {
		t.Errorf("share %v for an unbiased reading, want 0", s)
	}
	c := calibrate(pulled, age)
	s := calibrationShare(pulled, age, c)
	// the 80–89 band is read 9 years too young: about two thirds of the way must go
	if s < 0.5 || s > 0.8 {
		t.Errorf("share %v, want about 2/3", s)
	}
	if b := worstBandBias(pulled, age, c, s); b > maxBandBias {
		t.Errorf("worst band bias %.2f at share %v, want ≤ %d", b, s, maxBandBias)
	}
	if b := worstBandBias(pulled, age, c, s-0.05); b <= maxBandBias {
		t.Errorf("a smaller share (%v) is enough already: bias %.2f", s-0.05, b)
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
	return &face.Features{GenderAge: vec(genderAgeOutputs), Embedding: vec(8), MirroredGenderAge: vec(genderAgeOutputs),
		FaceRes: vec(face.FaceResFeatures)}
}

func TestVector(t *testing.T) {
	f := features(1)
	mirrored := Recipe{Mirror: true}
	x, err := Vector(f, mirrored)
	if err != nil {
		t.Fatal(err)
	}
	if len(x) != genderAgeOutputs+100+2+8 {
		t.Fatalf("%d features", len(x))
	}
	if want := (float64(f.GenderAge[5]) + float64(f.MirroredGenderAge[5])) / 2; x[5] != want {
		t.Errorf("x[5] = %v, want the mean %v", x[5], want)
	}
	soft := 0.0
	for k := range 100 {
		soft += x[genderAgeOutputs+k]
	}
	if x[genderAgeOutputs+100] != soft || x[genderAgeOutputs+101] != math.Log1p(soft) {
		t.Errorf("soft age %v, log %v; want %v", x[genderAgeOutputs+100], x[genderAgeOutputs+101], soft)
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

func TestEvaluate(t *testing.T) {
	samples := []Sample{
		{Source: SourceUTKFace, Age: 5, Male: true, Ethnic: "Asian"},
		{Source: SourceUTKFace, Age: 30, Male: false, Ethnic: "White"},
		{Source: SourceUTKFace, Age: 75, Male: true, Ethnic: "White"},
		{Source: SourceSCUT, Male: false, Ethnic: "Asian"},
	}
	preds := []Prediction{{Age: 9, Male: 0.9}, {Age: 28, Male: 0.6}, {Age: 70, Male: 0.55}, {Age: 50, Male: 0.1}}
	r := Evaluate(samples, preds)
	if r.Overall.N != 4 || r.Overall.GenderAccuracy != 0.75 || r.Overall.AgeN != 3 {
		t.Errorf("overall %+v", r.Overall)
	}
	// adults: errors −2 and −5
	if r.Adults.AgeN != 2 || r.Adults.AgeMAE != 3.5 || r.Adults.AgeBias != -3.5 {
		t.Errorf("adults %+v", r.Adults)
	}
	if b := r.Bands["0–9"]; b.AgeBias != 4 || b.GenderAccuracy != 1 {
		t.Errorf("band 0–9 %+v", b)
	}
	if r.Ethnicities["White"].N != 2 || r.Genders["female"].GenderAccuracy != 0.5 {
		t.Errorf("groups %+v %+v", r.Ethnicities, r.Genders)
	}
	// one face per bin: |1 − 0.9| + |0 − 0.6| + |1 − 0.55| + |0 − 0.1| = 1.25 over 4 faces
	if math.Abs(r.GenderECE-0.3125) > 1e-9 {
		t.Errorf("ECE %v, want 0.3125", r.GenderECE)
	}
}

func TestBand(t *testing.T) {
	for age, want := range map[int]string{0: "0–9", 9: "0–9", 10: "10–19", 69: "60–69", 70: "70+", 110: "70+"} {
		if got := Band(age); got != want {
			t.Errorf("Band(%d) = %q, want %q", age, got, want)
		}
	}
}

func TestReadUTKFace(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) {
		if err := os.WriteFile(filepath.Join(dir, "labels.csv"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("file,age,gender,race\n26_1_2_20170116174525125.jpg.chip.jpg,26,female,2\n26_0_0_20170116174533125.jpg.chip.jpg,26,male,0\n")
	s, err := ReadUTKFace(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 2 || s[0].Age != 26 || s[0].Male || s[0].Ethnic != "Asian" || s[1].Ethnic != "White" || !s[1].Male {
		t.Errorf("samples %+v", s)
	}
	// one ten-minute window: both on the same side of the split
	if s[0].Group != "20170116174" || s[0].Group != s[1].Group || s[0].HeldOut != s[1].HeldOut {
		t.Errorf("groups %q %q, held out %v %v", s[0].Group, s[1].Group, s[0].HeldOut, s[1].HeldOut)
	}
	for _, bad := range []string{
		"f,age,gender,race\nx_1_1_2017.jpg,1,female,0\n",                  // no time stamp
		"file,age,gender,race\n1_1_1_20170116174525125.jpg,1,other,0\n",   // gender
		"file,age,gender,race\n1_1_1_20170116174525125.jpg,-1,female,0\n", // age
		"file,age,gender,race\n1_1_1_20170116174525125.jpg,1,female,7\n",  // race
		"file,age,gender,race\n1_1_1_20170116174525125.jpg,1,female\n",    // columns
	} {
		write(bad)
		if _, err := ReadUTKFace(dir); err == nil {
			t.Errorf("no error for %q", bad)
		}
	}
}

// TestHeldOutShare checks the split's size on many synthetic windows.
func TestHeldOutShare(t *testing.T) {
	n := 0
	for i := range 10000 {
		if bucket("", string(rune(i))+"window", heldOutShare) == 0 {
			n++
		}
	}
	if n < 1800 || n > 2200 {
		t.Errorf("%d of 10000 groups held out, want about 2000", n)
	}
}

// TestFitTrainsBothHeads fits on synthetic features where gender and age are linear in the
// embedding (the gender-age outputs carry nothing), then round-trips the model file.
func TestFitTrainsBothHeads(t *testing.T) {
	defer func(c NetworkConfig, d []float64) { DefaultNetwork, Dropouts = c, d }(DefaultNetwork, Dropouts)
	// a small set: about as many steps as the real one takes, on a smaller network and grid
	DefaultNetwork.Hidden, DefaultNetwork.Epochs, Dropouts = 16, 200, []float64{0.1, 0.3}
	var samples []Sample
	for i := range 600 {
		f := features(uint64(i))
		clear(f.GenderAge) // only the embedding's first two values carry the labels
		clear(f.MirroredGenderAge)
		clear(f.FaceRes)
		age := 40 + 15*float64(f.Embedding[0])
		male := f.Embedding[1] > 0
		samples = append(samples, Sample{Source: SourceUTKFace, Age: int(math.Max(1, age)), Male: male, Ethnic: "White",
			Group: string(rune('a' + i%50)), HeldOut: i%5 == 0, Features: f})
	}
	m, err := Train(samples, Recipe{Mirror: true, FaceRes: true})
	if err != nil {
		t.Fatal(err)
	}
	r := m.Test[SourceUTKFace]
	if r.Overall.N != 120 || r.Overall.GenderAccuracy < 0.9 || r.Overall.AgeMAE > 5 {
		t.Errorf("held-out %+v", r.Overall)
	}
	path := filepath.Join(t.TempDir(), "attributes.json")
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	a1, m1, err := loaded.Attributes(samples[0].Features)
	a0, m0, _ := m.Attributes(samples[0].Features)
	if err != nil || a1 != a0 || m1 != m0 || !loaded.Mirrored() {
		t.Errorf("loaded model: %v %v %v, want %v %v", a1, m1, err, a0, m0)
	}
	if _, _, err := loaded.Attributes(&face.Features{GenderAge: make([]float32, genderAgeOutputs), Embedding: make([]float32, 3)}); err == nil {
		t.Error("no error for features of the wrong size")
	}
	loaded.AgeCalibration = Curve{}
	b, _ = json.Marshal(loaded)
	os.WriteFile(path, b, 0o644)
	if _, err := Load(path); err == nil {
		t.Error("Load accepts a model without an age calibration")
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

// TestFitNetworkLearnsWhatALineCannot trains on a gender that is the sign of x0·x1 (no linear
// separation exists) and an age that grows with |x2|, twice with the same seed.
func TestFitNetworkLearnsWhatALineCannot(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	draw := func(n int) ([][]float64, []Target) {
		var x [][]float64
		var y []Target
		for range n {
			v := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			x = append(x, v)
			y = append(y, Target{Male: v[0]*v[1] > 0, Age: 20 + 20*math.Abs(v[2]), HasAge: true})
		}
		return x, y
	}
	x, y := draw(3000)
	cfg := NetworkConfig{Hidden: 32, Epochs: 30, Batch: 64, LearningRate: 3e-3, Seed: 1}
	net, err := FitNetwork(x, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	tx, ty := draw(500)
	right, absErr := 0, 0.0
	for i := range tx {
		logit, age := net.Outputs(tx[i])
		if (logit > 0) == ty[i].Male {
			right++
		}
		absErr += math.Abs(age - ty[i].Age)
	}
	if acc, mae := float64(right)/500, absErr/500; acc < 0.9 || mae > 3 {
		t.Errorf("held-out accuracy %.3f (want ≥ 0.9), age error %.2f (want ≤ 3)", acc, mae)
	}
	again, err := FitNetwork(x, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	l0, a0 := net.Outputs(tx[0])
	if l1, a1 := again.Outputs(tx[0]); l1 != l0 || a1 != a0 {
		t.Errorf("the same seed gave (%v, %v), then (%v, %v)", l0, a0, l1, a1)
	}
	if err := net.check(4); err != nil {
		t.Error(err)
	}
	net.B2 = net.B2[:1]
	if err := net.check(4); err == nil {
		t.Error("check accepts a network without its second output")
	}
}

// BenchmarkAttributes is the heads' share of a face's analysis: the feature vector, the network
// at its trained size and the calibrations (the models' inference is some 6 ms a face).
func BenchmarkAttributes(b *testing.B) {
	f := features(1)
	f.Embedding = make([]float32, 512)
	recipe := Recipe{Mirror: true, FaceRes: true}
	x, err := Vector(f, recipe)
	if err != nil {
		b.Fatal(err)
	}
	d, h := len(x), DefaultNetwork.Hidden
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(n int) Weights {
		w := make(Weights, n)
		for i := range w {
			w[i] = float32(rng.NormFloat64() / 10)
		}
		return w
	}
	m := &Model{Recipe: recipe, AgeCalibrationShare: 0.5,
		Network: Network{Standardizer: NewStandardizer([][]float64{x}), Hidden: h,
			W1: random(d * h), B1: random(h), W2: random(h * outputs), B2: random(outputs)},
		GenderCalibration: Logistic{Linear{Standardizer: Standardizer{Mean: []float64{0}, Scale: []float64{1}}, Weights: []float64{1}}},
		AgeCalibration:    Curve{X: []float64{0, 100}, Y: []float64{0, 100}},
	}
	for b.Loop() {
		if _, _, err := m.Attributes(f); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDegrade: the copy keeps the size, loses the fine detail, and is drawn from the file's name
// alone (the same on every machine, whatever directory the dataset is in).
func TestDegrade(t *testing.T) {
	img := &face.RGB{W: 120, H: 90, Pix: make([]uint8, 3*120*90)}
	for y := range img.H {
		for x := range img.W {
			if (x+y)%2 == 0 { // a one-pixel checkerboard: all detail, no content
				copy(img.Pix[3*(y*img.W+x):], []uint8{255, 255, 255})
			}
		}
	}
	a, err := Degrade(img, "/data/one/5_1_0_20170109.jpg")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Degrade(img, "elsewhere/5_1_0_20170109.jpg")
	if err != nil {
		t.Fatal(err)
	}
	if a.W != img.W || a.H != img.H || !slices.Equal(a.Pix, b.Pix) {
		t.Fatalf("copies %d×%d and %d×%d differ, or differ in size from %d×%d", a.W, a.H, b.W, b.H, img.W, img.H)
	}
	contrast := func(m *face.RGB) float64 {
		sum := 0.0
		for i := 3; i < len(m.Pix); i += 3 {
			sum += math.Abs(float64(m.Pix[i]) - float64(m.Pix[i-3]))
		}
		return sum / float64(len(m.Pix)/3)
	}
	if before, after := contrast(img), contrast(a); after > before/10 {
		t.Errorf("neighbour contrast %.1f after degrading, %.1f before: the detail is still there", after, before)
	}
}
