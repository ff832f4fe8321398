package attributes

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hensachi/hensachi/face/attr"
	"github.com/hensachi/hensachi/training"
)

// TestCalibrateAgeRanges calibrates on synthetic held-out faces of 10–79 whose reported age errs by
// up to 8 years either way: the ranges must be about 13 years wide around the reported age and
// hold about 80 % of the faces in every band, measured on faces they were not fitted on.
func TestCalibrateAgeRanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var samples []training.Sample
	var preds []Prediction
	for i := range 3000 {
		truth := 10 + rng.IntN(70)
		samples = append(samples, training.Sample{Path: fmt.Sprint(i), Source: training.SourceUTKFace, Age: truth, HeldOut: true,
			Group: fmt.Sprint(i / 5)})
		preds = append(preds, Prediction{Age: float64(truth) + 8*(2*rng.Float64()-1)})
	}
	// hard copies of the first 1,000, read twice as far off: measured, never fitted on
	hard := training.HardCopies(samples[:1000])
	var hardPreds []Prediction
	for _, s := range hard {
		hardPreds = append(hardPreds, Prediction{Age: float64(s.Age) + 16*(2*rng.Float64()-1)})
	}
	r, err := CalibrateAgeRanges(&attr.Model{Name: "synthetic"}, samples, preds, hard, hardPreds)
	if err != nil {
		t.Fatal(err)
	}
	// the ranges hold ±6.5 of errors spread evenly over ±16: about 40 %
	if h := r.Calibration.Hard[AllHard]; h.N != len(hard) || h.Coverage < 0.3 || h.Coverage > 0.5 {
		t.Errorf("the hard copies: %+v, want about 0.4 of %d", h, len(hard))
	}
	if low, high := r.Range(45); high-low < 11 || high-low > 16 || low > 40 || high < 50 {
		t.Errorf("the range of 45 is %d–%d, want about ±6.5 years", low, high)
	}
	c := r.Calibration
	// at least 80 % (less sampling noise), and not much more: whole years, so a range that reaches
	// a residual holds all the faces with it
	held := func(cov attr.RangeCoverage) bool { return cov.Coverage >= 0.76 && cov.Coverage <= 0.88 }
	if c.Evaluated != len(samples) || !held(c.Overall) {
		t.Errorf("held %.3f of %d faces, want about 0.8 of all %d", c.Overall.Coverage, c.Evaluated, len(samples))
	}
	for _, band := range Bands[2:7] { // inside the ages, away from the edges the errors are cut at
		if cov := c.ByReported[band]; cov.N < 200 || !held(cov) {
			t.Errorf("band %s of the reported age held %.3f of %d faces, want about 0.8", band, cov.Coverage, cov.N)
		}
	}
	// the bands follow on from each other up to the oldest age, as LoadAgeRanges demands
	next := 0
	for _, b := range r.Bands {
		if b.From != next || b.To <= b.From {
			t.Fatalf("bands %+v do not follow on at %d", r.Bands, next)
		}
		next = b.To
	}
	if next != attr.MaxAge+1 {
		t.Errorf("bands end at %d", next)
	}
	// a degraded copy is not a calibration face
	samples[0].Degraded = true
	if _, err := CalibrateAgeRanges(&attr.Model{}, samples, preds, nil, nil); err == nil {
		t.Error("calibrated on a degraded copy")
	}
}
