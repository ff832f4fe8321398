package attributes

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/hensachi/hensachi/face"
	"github.com/hensachi/hensachi/face/attr"
	"github.com/hensachi/hensachi/training"
)

// TestFitLogisticSeparates fits P(y) = σ(2·x0 − x1) and checks the recovered direction and the
// calibration of the probabilities.
func TestFitLogisticSeparates(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var x [][]float64
	var y []bool
	for range 4000 {
		v := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		x, y = append(x, v), append(y, rng.Float64() < attr.Sigmoid(2*v[0]-v[1]))
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

func TestFitIsotonic(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5, 6}
	y := []float64{1, 3, 2, 4, 6, 5}
	c := FitIsotonic(x, y, 1)
	// (3, 2) and (6, 5) violate the order and pool with their predecessors
	want := attr.Curve{X: []float64{1, 2.5, 4, 5.5}, Y: []float64{1, 2.5, 4, 5.5}}
	if len(c.X) != len(want.X) {
		t.Fatalf("curve %+v, want %+v", c, want)
	}
	for i := range c.X {
		if c.X[i] != want.X[i] || c.Y[i] != want.Y[i] {
			t.Fatalf("curve %+v, want %+v", c, want)
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

func TestMeasure(t *testing.T) {
	samples := []training.Sample{
		{Source: training.SourceUTKFace, Age: 5, Male: true, Ethnic: "Asian"},
		{Source: training.SourceUTKFace, Age: 30, Male: false, Ethnic: "White"},
		{Source: training.SourceUTKFace, Age: 75, Male: true, Ethnic: "White"},
		{Source: training.SourceSCUT, Male: false, Ethnic: "Asian"},
	}
	preds := []Prediction{{Age: 9, Male: 0.9}, {Age: 28, Male: 0.6}, {Age: 70, Male: 0.55}, {Age: 50, Male: 0.1}}
	r := Measure(samples, preds)
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

// TestFitTrainsBothHeads fits on synthetic features where gender and age are linear in the
// embedding (the gender-age outputs carry nothing), then round-trips the model file.
func TestFitTrainsBothHeads(t *testing.T) {
	defer func(c attr.NetworkConfig, d []float64) { DefaultNetwork, Dropouts = c, d }(DefaultNetwork, Dropouts)
	// a small set: about as many steps as the real one takes, on a smaller network and grid
	DefaultNetwork.Hidden, DefaultNetwork.Epochs, Dropouts = 16, 200, []float64{0.1, 0.3}
	var samples []training.Sample
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range 600 {
		// only the embedding's first two values carry the labels
		f := &face.Features{GenderAge: make([]float32, attr.GenderAgeOutputs), MirroredGenderAge: make([]float32, attr.GenderAgeOutputs),
			FaceRes: make([]float32, face.FaceResFeatures), Embedding: make([]float32, 8)}
		for j := range f.Embedding {
			f.Embedding[j] = float32(rng.NormFloat64())
		}
		age := 40 + 15*float64(f.Embedding[0])
		male := f.Embedding[1] > 0
		samples = append(samples, training.Sample{Source: training.SourceUTKFace, Age: int(math.Max(1, age)), Male: male, Ethnic: "White",
			Group: string(rune('a' + i%50)), HeldOut: i%5 == 0, Features: f})
	}
	m, err := Train(samples, attr.Recipe{Mirror: true, FaceRes: true})
	if err != nil {
		t.Fatal(err)
	}
	r := m.Test[training.SourceUTKFace]
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
	loaded, err := attr.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	a1, m1, err := loaded.Attributes(samples[0].Features)
	a0, m0, _ := m.Attributes(samples[0].Features)
	if err != nil || a1 != a0 || m1 != m0 || !loaded.Mirrored() {
		t.Errorf("loaded model: %v %v %v, want %v %v", a1, m1, err, a0, m0)
	}
	if _, _, err := loaded.Attributes(&face.Features{GenderAge: make([]float32, attr.GenderAgeOutputs), Embedding: make([]float32, 3)}); err == nil {
		t.Error("no error for features of the wrong size")
	}
	loaded.AgeCalibration = attr.Curve{}
	b, _ = json.Marshal(loaded)
	os.WriteFile(path, b, 0o644)
	if _, err := attr.Load(path); err == nil {
		t.Error("Load accepts a model without an age calibration")
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
	cfg := attr.NetworkConfig{Hidden: 32, Epochs: 30, Batch: 64, LearningRate: 3e-3, Seed: 1}
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
}

// TestSameFigures: held-out figures a card's reader could not tell apart agree; a tenth of a year
// more of age error or a point of gender accuracy, overall or of the adults, or a source missing,
// do not.
func TestSameFigures(t *testing.T) {
	card := func(mae, adultMAE, accuracy float64) map[string]*attr.Report {
		return map[string]*attr.Report{training.SourceUTKFace: {
			Overall: attr.Metrics{AgeMAE: mae, GenderAccuracy: accuracy},
			Adults:  attr.Metrics{AgeMAE: adultMAE, GenderAccuracy: accuracy}}}
	}
	committed := card(5.031, 6.368, 0.8936)
	for _, tt := range []struct {
		name  string
		fresh map[string]*attr.Report
		ok    bool
	}{
		{"as retrained on another CPU", card(5.038, 6.389, 0.8906), true},
		{"age error", card(5.2, 6.389, 0.8906), false},
		{"adults' age error", card(5.038, 6.5, 0.8906), false},
		{"gender accuracy", card(5.038, 6.389, 0.88), false},
		{"no figures", map[string]*attr.Report{}, false},
	} {
		if err := sameFigures(committed, tt.fresh); (err == nil) != tt.ok {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}
