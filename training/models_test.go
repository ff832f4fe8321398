package training_test

import (
	"bytes"
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/hensachi/hensachi/face/attr"
	"github.com/hensachi/hensachi/face/score"
	"github.com/hensachi/hensachi/internal/testrig/facetest"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
	"github.com/hensachi/hensachi/training"
	"github.com/hensachi/hensachi/training/attractiveness"
	"github.com/hensachi/hensachi/training/attributes"
)

// committed is the directory of the committed model files and cards, which training writes.
const committed = "../face/models"

// datasets are the labelled images of both datasets and the features of all of them and of their
// degraded copies, extracted once per test binary: extraction is most of the slow tier's time, and
// the evaluations and the reproduction read the same faces.
var datasets struct {
	once     sync.Once
	inputs   []training.Sample // UTKFace, then SCUT-FBP5500, as read
	features []training.Sample // each set extracted, then its degraded copies (attributes.Extract)
	missed   map[string]int
	err      error
}

func readDatasets(t *testing.T) (utk, scut []training.Sample) {
	t.Helper()
	utk, err := training.ReadUTKFace(testenv.Shared(t, "datasets/utkface-train"))
	if err != nil {
		t.Fatal(err)
	}
	scut, err = training.ReadSCUT(testenv.Shared(t, "datasets/scut-fbp5500"))
	if err != nil {
		t.Fatal(err)
	}
	return utk, scut
}

// extracted returns what datasets holds, extracting it on the first call.
func extracted(t *testing.T) (inputs, features []training.Sample, missed map[string]int) {
	t.Helper()
	a := facetest.Analyzer(t)
	utk, scut := readDatasets(t)
	datasets.once.Do(func() {
		datasets.inputs = append(utk, scut...)
		datasets.features, datasets.missed, datasets.err = attributes.Extract(context.Background(), a,
			[][]training.Sample{utk, scut}, runtime.NumCPU())
	})
	if datasets.err != nil {
		t.Fatal(datasets.err)
	}
	return datasets.inputs, datasets.features, datasets.missed
}

// scutSplit is the SCUT-FBP5500 images of the extracted features (originals, not the degraded or
// hard copies) laid out for the attractiveness model, in the order of the split's lists.
func scutSplit(features []training.Sample) (train, test []attractiveness.Sample) {
	var tr, te []training.Sample
	for _, s := range features {
		switch {
		case s.Source != training.SourceSCUT || !s.Original():
		case s.HeldOut:
			te = append(te, s)
		default:
			tr = append(tr, s)
		}
	}
	return attractiveness.Samples(tr), attractiveness.Samples(te)
}

func bundleModels(t *testing.T) (*score.Model, *attr.Model) {
	t.Helper()
	dir := testenv.Models(t)
	s, err := score.Load(filepath.Join(dir, "attractiveness.json"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := attr.Load(filepath.Join(dir, "attributes.json"))
	if err != nil {
		t.Fatal(err)
	}
	return s, a
}

// pearsonFloor is the test split's Pearson correlation (face/models/ATTRACTIVENESS.md) less a
// margin for numerical differences between machines.
const pearsonFloor = 0.87

// TestCommittedModelOnTestSplit evaluates the committed attractiveness model on the official test
// split with the service's own pipeline.
func TestCommittedModelOnTestSplit(t *testing.T) {
	testenv.Evaluation(t)
	inputs, features, _ := extracted(t)
	m, _ := bundleModels(t)
	_, test := scutSplit(features)
	missed := -len(test)
	for _, s := range inputs {
		if s.Source == training.SourceSCUT && s.HeldOut {
			missed++
		}
	}
	rep := attractiveness.Evaluate(m, test)
	t.Logf("test split: %+v (%d images without a face)", rep.Overall, missed)
	if rep.Overall.PC < pearsonFloor || missed > 10 {
		t.Errorf("Pearson %.4f (floor %.2f), %d images without a face", rep.Overall.PC, pearsonFloor, missed)
	}
	if d := rep.Overall.PC - m.Test.Overall.PC; d > 0.005 || d < -0.005 {
		t.Errorf("Pearson %.4f differs from the model card's %.4f", rep.Overall.PC, m.Test.Overall.PC)
	}
}

// Floors are the held-out figures of the committed model (face/models/GENDER.md, AGE.md) less a
// margin for numerical differences between machines.
const (
	utkGenderFloor      = 0.885 // all ages
	utkAdultGenderFloor = 0.965 // 15 and over
	utkTeenGenderFloor  = 0.83  // 10–19, the weakest band from 10 up, and a small one
	scutGenderFloor     = 0.982
	utkAdultMAECeiling  = 6.7  // years, 15 and over
	bandBiasCeiling     = 5    // years, every band: the most a band's mean age may be off
	eceCeiling          = 0.03 // UTKFace and SCUT-FBP5500
	// the degraded copies of the held-out UTKFace faces (training.Degrade)
	utkDegradedAdultGenderFloor = 0.955 // 15 and over
	utkDegradedAdultMAECeiling  = 7.5   // years, 15 and over
	// the hard copies of the held-out faces (training.HardCopies), all kinds together
	utkHardAdultGenderFloor = 0.93 // UTKFace, 15 and over
	utkHardAdultMAECeiling  = 9.5  // years, UTKFace, 15 and over
	scutHardGenderFloor     = 0.96
)

// TestCommittedModelOnHeldOut evaluates the committed age and gender model on the held-out UTKFace
// windows and the SCUT-FBP5500 test split, and on their degraded and hard copies, with the
// service's own pipeline.
func TestCommittedModelOnHeldOut(t *testing.T) {
	testenv.Evaluation(t)
	inputs, features, _ := extracted(t)
	_, m := bundleModels(t)
	missed := 0 // of the held-out images and their degraded copies (the hard copies' misses are the detection's)
	for _, s := range inputs {
		if s.HeldOut {
			missed += 2
		}
	}
	for _, s := range features {
		if s.HeldOut && s.Hard == "" {
			missed--
		}
	}
	u := attributes.Evaluate(m, features, training.SourceUTKFace, false)
	s := attributes.Evaluate(m, features, training.SourceSCUT, false)
	ud := attributes.Evaluate(m, features, training.SourceUTKFace, true)
	t.Logf("UTKFace held out: %+v adults %+v ECE %.4f; SCUT test: %+v ECE %.4f; UTKFace degraded: %+v adults %+v; %d images without a face",
		u.Overall, u.Adults, u.GenderECE, s.Overall, s.GenderECE, ud.Overall, ud.Adults, missed)
	if u.Overall.GenderAccuracy < utkGenderFloor || u.Adults.GenderAccuracy < utkAdultGenderFloor ||
		s.Overall.GenderAccuracy < scutGenderFloor {
		t.Errorf("gender accuracy %.4f, adults %.4f, SCUT %.4f; floors %.3f, %.3f, %.3f", u.Overall.GenderAccuracy,
			u.Adults.GenderAccuracy, s.Overall.GenderAccuracy, utkGenderFloor, utkAdultGenderFloor, scutGenderFloor)
	}
	if teens := u.Bands["10–19"]; teens.GenderAccuracy < utkTeenGenderFloor {
		t.Errorf("gender accuracy %.4f aged 10–19, floor %.3f", teens.GenderAccuracy, utkTeenGenderFloor)
	}
	if u.Adults.AgeMAE > utkAdultMAECeiling {
		t.Errorf("adult age MAE %.2f, ceiling %.2f", u.Adults.AgeMAE, utkAdultMAECeiling)
	}
	for band, x := range u.Bands {
		if math.Abs(x.AgeBias) > bandBiasCeiling {
			t.Errorf("band %s: mean age bias %+.2f years, ceiling %d", band, x.AgeBias, bandBiasCeiling)
		}
	}
	if u.GenderECE > eceCeiling || s.GenderECE > eceCeiling {
		t.Errorf("gender calibration error %.4f (UTKFace), %.4f (SCUT); ceiling %.2f", u.GenderECE, s.GenderECE, eceCeiling)
	}
	if ud.Adults.GenderAccuracy < utkDegradedAdultGenderFloor || ud.Adults.AgeMAE > utkDegradedAdultMAECeiling {
		t.Errorf("degraded: adult gender accuracy %.4f (floor %.3f), adult age MAE %.2f (ceiling %.2f)",
			ud.Adults.GenderAccuracy, utkDegradedAdultGenderFloor, ud.Adults.AgeMAE, utkDegradedAdultMAECeiling)
	}
	if missed > 40 {
		t.Errorf("%d held-out images without a face", missed)
	}
	uh := attributes.EvaluateHard(m, features, training.SourceUTKFace, "")
	sh := attributes.EvaluateHard(m, features, training.SourceSCUT, "")
	t.Logf("hard copies: UTKFace %+v adults %+v; SCUT %+v", uh.Overall, uh.Adults, sh.Overall)
	if uh.Adults.GenderAccuracy < utkHardAdultGenderFloor || uh.Adults.AgeMAE > utkHardAdultMAECeiling ||
		sh.Overall.GenderAccuracy < scutHardGenderFloor {
		t.Errorf("hard copies: UTKFace adult gender %.4f (floor %.3f), adult age MAE %.2f (ceiling %.2f); SCUT gender %.4f (floor %.3f)",
			uh.Adults.GenderAccuracy, utkHardAdultGenderFloor, uh.Adults.AgeMAE, utkHardAdultMAECeiling, sh.Overall.GenderAccuracy, scutHardGenderFloor)
	}
	if d := u.Adults.AgeMAE - m.Test[training.SourceUTKFace].Adults.AgeMAE; d > 0.1 || d < -0.1 {
		t.Errorf("adult age MAE %.2f differs from the model card's %.2f", u.Adults.AgeMAE, m.Test[training.SourceUTKFace].Adults.AgeMAE)
	}
}

// TestTrainingReproducesCommittedModels retrains both models from the datasets as
// cmd/train-models does and fails unless the committed files are reproduced, by the comparison
// of its -check.
func TestTrainingReproducesCommittedModels(t *testing.T) {
	testenv.Evaluation(t)
	_, features, missed := extracted(t)
	t.Run("attractiveness", func(t *testing.T) {
		path := filepath.Join(committed, "attractiveness.json")
		want, err := score.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		train, test := scutSplit(features)
		// the images without a face are recorded in the file, not compared
		got, err := attractiveness.Train(train, test, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		how, err := attractiveness.Reproduced(want, got, test)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		t.Logf("%s reproduced: %s; byte for byte: %v", path, how, sameFile(t, path, got))
	})
	t.Run("attributes", func(t *testing.T) {
		path := filepath.Join(committed, "attributes.json")
		want, err := attr.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := attributes.Train(features, want.Recipe)
		if err != nil {
			t.Fatal(err)
		}
		// the images without a face are recorded in the file, not compared, and so are the figures
		// of the fit without hard copies, which the command makes (attributes.CompareWithoutHard)
		got.Training.WithoutFace, got.TestHardBefore = missed, want.TestHardBefore
		how, err := attributes.Reproduced(want, got, features)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		t.Logf("%s reproduced: %s; byte for byte: %v", path, how, sameFile(t, path, got))
	})
}

// sameFile reports whether a model's file as training writes it is the one at path: on the
// machine that trained the committed file it is; elsewhere the last bits of ONNX Runtime's kernels
// and of Go's math routines may differ, which the network carries into its weights.
func sameFile(t *testing.T, path string, m any) bool {
	t.Helper()
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := training.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(got, want)
}

// TestAgeRangesReproduced calibrates the age ranges again on the held-out UTKFace faces analysed
// as the server does (an extraction of its own, about 2,000 chips, since the server's quick pass
// gives other features than the training's) and demands the committed file byte for byte.
func TestAgeRangesReproduced(t *testing.T) {
	testenv.Evaluation(t)
	m, err := attr.Load(filepath.Join(committed, "attributes.json"))
	if err != nil {
		t.Fatal(err)
	}
	utk, _ := readDatasets(t)
	var held []training.Sample
	for _, s := range utk {
		if s.HeldOut {
			held = append(held, s)
		}
	}
	r, _, err := attributes.CalibrateServed(context.Background(), facetest.ServingAnalyzer(t), m, held, runtime.NumCPU())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(committed, "age_range.json")
	if !sameFile(t, path, r) {
		t.Errorf("%s is not reproduced: calibrate again with `make calibrate-ages`", path)
	}
	t.Logf("held %.4f of %d held-out faces", r.Calibration.Overall.Coverage, r.Calibration.Evaluated)
}

// sampleSize is how many held-out images of each dataset the fast test reads: enough for floors
// that catch a broken model or pipeline, few enough for seconds.
const sampleSize = 40

// heldOutSample picks n of the held-out samples, spread evenly over the order the reader gives them
// in (UTKFace's list is sorted by age, so the sample spans the ages).
func heldOutSample(samples []training.Sample, n int) []training.Sample {
	var held []training.Sample
	for _, s := range samples {
		if s.HeldOut {
			held = append(held, s)
		}
	}
	out := make([]training.Sample, n)
	for i := range out {
		out[i] = held[i*len(held)/n]
	}
	return out
}

// Floors of the fast test, on sampleSize held-out images of each dataset: what the full evaluations
// measure on thousands, less a margin for so small a sample (the sample is fixed, so its figures are
// too; the test logs them).
const (
	samplePearsonFloor    = 0.7 // with the panel's ratings
	sampleUTKGenderFloor  = 0.8 // all ages
	sampleSCUTGenderFloor = 0.9
	sampleAgeMAECeiling   = 9.0 // years, all ages
	sampleMissedCeiling   = 2   // of the sample's images
)

// TestCommittedModelsOnHeldOutSample is the fast tier's check of the committed models with the
// service's own pipeline, on a few held-out images of each dataset.
func TestCommittedModelsOnHeldOutSample(t *testing.T) {
	a := facetest.Analyzer(t)
	utk, scut := readDatasets(t)
	sm, am := bundleModels(t)
	u, missedU, err := training.Extract(context.Background(), a, heldOutSample(utk, sampleSize), runtime.NumCPU())
	if err != nil {
		t.Fatal(err)
	}
	s, missedS, err := training.Extract(context.Background(), a, heldOutSample(scut, sampleSize), runtime.NumCPU())
	if err != nil {
		t.Fatal(err)
	}
	rating := attractiveness.Evaluate(sm, attractiveness.Samples(s)).Overall
	ur := attributes.Evaluate(am, u, training.SourceUTKFace, false).Overall
	sr := attributes.Evaluate(am, s, training.SourceSCUT, false).Overall
	t.Logf("SCUT-FBP5500: %+v, gender %.3f; UTKFace: gender %.3f, age MAE %.2f; %d and %d without a face",
		rating, sr.GenderAccuracy, ur.GenderAccuracy, ur.AgeMAE, missedS, missedU)
	if rating.PC < samplePearsonFloor {
		t.Errorf("Pearson correlation with the ratings %.3f, floor %.2f", rating.PC, samplePearsonFloor)
	}
	if ur.GenderAccuracy < sampleUTKGenderFloor || sr.GenderAccuracy < sampleSCUTGenderFloor {
		t.Errorf("gender accuracy %.3f (UTKFace), %.3f (SCUT-FBP5500); floors %.2f, %.2f",
			ur.GenderAccuracy, sr.GenderAccuracy, sampleUTKGenderFloor, sampleSCUTGenderFloor)
	}
	if ur.AgeMAE > sampleAgeMAECeiling {
		t.Errorf("age MAE %.2f years, ceiling %.1f", ur.AgeMAE, sampleAgeMAECeiling)
	}
	if missedU+missedS > sampleMissedCeiling {
		t.Errorf("%d of %d images without a face", missedU+missedS, 2*sampleSize)
	}
}

// TestCardsMatchCommittedModels: the committed model cards are what training writes for the
// committed model files, so neither is edited without the other.
func TestCardsMatchCommittedModels(t *testing.T) {
	s, err := score.Load(filepath.Join(committed, "attractiveness.json"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := attr.Load(filepath.Join(committed, "attributes.json"))
	if err != nil {
		t.Fatal(err)
	}
	ranges, err := attr.LoadAgeRanges(filepath.Join(committed, "age_range.json"))
	if err != nil {
		t.Fatal(err)
	}
	for card, write := range map[string]func(io.Writer) error{
		"ATTRACTIVENESS.md": func(w io.Writer) error { return attractiveness.WriteCard(w, s) },
		"GENDER.md":         func(w io.Writer) error { return attributes.WriteGenderCard(w, a) },
		"AGE.md":            func(w io.Writer) error { return attributes.WriteAgeCard(w, a) },
		"AGE_RANGE.md":      func(w io.Writer) error { return attributes.WriteAgeRangeCard(w, ranges, a) },
	} {
		want, err := os.ReadFile(filepath.Join(committed, card))
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := write(&got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s differs from the card of the committed model; retrain with cmd/train-models", card)
		}
	}
}
