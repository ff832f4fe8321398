package attr

import (
	"fmt"
	"math"

	"github.com/hensachi/hensachi"
)

// Metrics are the figures of one set of faces. Age figures are over the faces with a known age.
type Metrics struct {
	N              int     `json:"n"`
	GenderAccuracy float64 `json:"gender_accuracy"`
	AgeN           int     `json:"age_n,omitempty"`
	AgeMAE         float64 `json:"age_mae,omitempty"`
	AgeBias        float64 `json:"age_bias,omitempty"` // mean of predicted − true
}

// Report is the evaluation of one source's held-out faces.
type Report struct {
	Overall     Metrics            `json:"overall"`
	Adults      Metrics            `json:"adults"` // AdultAge and older
	Bands       map[string]Metrics `json:"bands"`  // age bands 0–9 … 70+
	Genders     map[string]Metrics `json:"genders"`
	Ethnicities map[string]Metrics `json:"ethnicities"`
	// GenderECE is the expected calibration error of P(male) over ten equal-width bins.
	GenderECE float64 `json:"gender_ece"`
	// WithoutFace counts the held-out images where no face was found (not in the figures).
	WithoutFace int `json:"without_face"`
}

// AdultAge is the youngest age counted in Report.Adults.
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
	n, right, ageN int
	absErr, err    float64
}

func (a *accumulator) add(s *Sample, p Prediction) {
	a.n++
	if (p.Male >= 0.5) == s.Male {
		a.right++
	}
	if s.HasAge() {
		e := p.Age - float64(s.Age)
		a.ageN, a.absErr, a.err = a.ageN+1, a.absErr+math.Abs(e), a.err+e
	}
}

func (a *accumulator) metrics() Metrics {
	m := Metrics{N: a.n, AgeN: a.ageN}
	if a.n > 0 {
		m.GenderAccuracy = hensachi.Round(float64(a.right)/float64(a.n), 4)
	}
	if a.ageN > 0 {
		m.AgeMAE, m.AgeBias = hensachi.Round(a.absErr/float64(a.ageN), 3), hensachi.Round(a.err/float64(a.ageN), 3)
	}
	return m
}

// Evaluate compares predictions with the samples' labels.
func Evaluate(samples []Sample, preds []Prediction) *Report {
	var all, adults accumulator
	groups := map[string]map[string]*accumulator{"band": {}, "gender": {}, "ethnic": {}}
	add := func(kind, key string, s *Sample, p Prediction) {
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
	r := &Report{Overall: all.metrics(), Adults: adults.metrics()}
	for kind, dst := range map[string]*map[string]Metrics{"band": &r.Bands, "gender": &r.Genders, "ethnic": &r.Ethnicities} {
		*dst = map[string]Metrics{}
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
