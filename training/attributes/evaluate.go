package attributes

import (
	"fmt"
	"math"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/face/attr"
	"github.com/hensachi/hensachi/training"
	"github.com/hensachi/hensachi/training/spoil"
)

// AdultAge is the youngest age counted in a report's Adults.
const AdultAge = 15

// Band names a face's age band: "0–9", "10–19", …, "70+".
func Band(age int) string {
	if age >= 70 {
		return "70+"
	}
	lo := age / 10 * 10
	return fmt.Sprintf("%d–%d", lo, lo+9)
}

// Bands are the band names in order.
var Bands = []string{"0–9", "10–19", "20–29", "30–39", "40–49", "50–59", "60–69", "70+"}

// Prediction is a model's output for one sample.
type Prediction struct {
	Age, Male float64
}

type accumulator struct {
	n, right, ageN, inBand int
	absErr, err            float64
}

func (a *accumulator) add(s *training.Sample, p Prediction) {
	a.n++
	if (p.Male >= 0.5) == s.Male {
		a.right++
	}
	if s.HasAge() {
		e := p.Age - float64(s.Age)
		a.ageN, a.absErr, a.err = a.ageN+1, a.absErr+math.Abs(e), a.err+e
		if Band(int(math.Round(p.Age))) == Band(s.Age) {
			a.inBand++
		}
	}
}

func (a *accumulator) metrics() attr.Metrics {
	m := attr.Metrics{N: a.n, AgeN: a.ageN}
	if a.n > 0 {
		m.GenderAccuracy = hensachi.Round(float64(a.right)/float64(a.n), 4)
	}
	if a.ageN > 0 {
		m.AgeMAE, m.AgeBias = hensachi.Round(a.absErr/float64(a.ageN), 3), hensachi.Round(a.err/float64(a.ageN), 3)
		m.AgeInBand = hensachi.Round(float64(a.inBand)/float64(a.ageN), 4)
	}
	return m
}

// Measure compares predictions with the samples' labels.
func Measure(samples []training.Sample, preds []Prediction) *attr.Report {
	var all, adults accumulator
	groups := map[string]map[string]*accumulator{"band": {}, "gender": {}, "ethnic": {}}
	add := func(kind, key string, s *training.Sample, p Prediction) {
		if groups[kind][key] == nil {
			groups[kind][key] = &accumulator{}
		}
		groups[kind][key].add(s, p)
	}
	var bins [10]struct{ n, male, prob float64 }
	for i := range samples {
		s, p := &samples[i], preds[i]
		all.add(s, p)
		if s.HasAge() {
			add("band", Band(s.Age), s, p)
			if s.Age >= AdultAge {
				adults.add(s, p)
			}
		}
		add("gender", map[bool]string{true: "male", false: "female"}[s.Male], s, p)
		add("ethnic", s.Ethnic, s, p)
		b := &bins[min(9, int(p.Male*10))]
		b.n, b.prob = b.n+1, b.prob+p.Male
		if s.Male {
			b.male++
		}
	}
	r := &attr.Report{Overall: all.metrics(), Adults: adults.metrics()}
	for kind, dst := range map[string]*map[string]attr.Metrics{"band": &r.Bands, "gender": &r.Genders, "ethnic": &r.Ethnicities} {
		*dst = map[string]attr.Metrics{}
		for k, a := range groups[kind] {
			(*dst)[k] = a.metrics()
		}
	}
	ece := 0.0
	for _, b := range bins {
		if b.n > 0 {
			ece += math.Abs(b.male-b.prob) / float64(len(samples))
		}
	}
	r.GenderECE = hensachi.Round(ece, 4)
	return r
}

// Evaluate runs the model on a source's held-out samples, the originals or the degraded copies.
func Evaluate(m *attr.Model, samples []training.Sample, source string, degraded bool) *attr.Report {
	return evaluate(m, samples, func(s *training.Sample) bool {
		return s.Source == source && s.Degraded == degraded && s.Hard == ""
	})
}

// EvaluateHard runs the model on the hard copies of a source's held-out samples, those of one
// kind, or all when kind is "".
func EvaluateHard(m *attr.Model, samples []training.Sample, source string, kind spoil.Kind) *attr.Report {
	return evaluate(m, samples, func(s *training.Sample) bool {
		return s.Source == source && s.Hard != "" && (kind == "" || s.Hard == kind)
	})
}

func evaluate(m *attr.Model, samples []training.Sample, keep func(*training.Sample) bool) *attr.Report {
	var test []training.Sample
	var preds []Prediction
	for _, s := range samples {
		if !s.HeldOut || !keep(&s) {
			continue
		}
		age, male, err := m.Attributes(s.Features)
		if err != nil {
			continue // extraction gives every sample both outputs; a face without them has no figures
		}
		test, preds = append(test, s), append(preds, Prediction{Age: age, Male: male})
	}
	return Measure(test, preds)
}
