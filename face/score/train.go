package score

import (
	"fmt"
	"math"
	"slices"

	"github.com/hensachi/hensachi"
	"gonum.org/v1/gonum/stat"
)

// Sample is one training or test image: its features, rating and group (AF, AM, CF, CM).
type Sample struct {
	Name     string
	Group    string
	Features []float64
	Rating   float64
}

// Lambdas is the regularisation grid searched by cross-validation.
var Lambdas = []float64{0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30, 100}

// Folds is the number of cross-validation folds on the training split.
const Folds = 5

// Fit chooses λ by k-fold cross-validation on the training samples only (folds by position, so
// the result is deterministic), refits on all of them, and keeps the out-of-fold predictions at
// the chosen λ as the reference distribution.
func Fit(train []Sample) (*Model, error) {
	if len(train) < 10*Folds {
		return nil, fmt.Errorf("%d training samples are too few for %d folds", len(train), Folds)
	}
	m := &Model{FormatVersion: FormatVersion}
	m.Training.Folds, m.Training.Lambdas, m.Training.Images = Folds, Lambdas, len(train)
	best, bestPC := 0, math.Inf(-1)
	var bestOOF []float64
	for li, lambda := range Lambdas {
		oof := make([]float64, len(train))
		var pcs []float64
		for k := range Folds {
			var xs [][]float64
			var ys []float64
			for i, s := range train {
				if i%Folds != k {
					xs, ys = append(xs, s.Features), append(ys, s.Rating)
				}
			}
			r, err := FitRidge(xs, ys, lambda)
			if err != nil {
				return nil, err
			}
			var pred, truth []float64
			for i, s := range train {
				if i%Folds == k {
					oof[i] = r.Predict(s.Features)
					pred, truth = append(pred, oof[i]), append(truth, s.Rating)
				}
			}
			pcs = append(pcs, stat.Correlation(pred, truth, nil))
		}
		pc := stat.Mean(pcs, nil)
		m.Training.CVPearson = append(m.Training.CVPearson, hensachi.Round(pc, 4))
		if pc > bestPC {
			best, bestPC, bestOOF = li, pc, oof
		}
	}
	m.Training.Chosen = Lambdas[best]
	xs, ys := make([][]float64, len(train)), make([]float64, len(train))
	m.Training.Groups = map[string]int{}
	for i, s := range train {
		xs[i], ys[i] = s.Features, s.Rating
		m.Training.Groups[s.Group]++
	}
	r, err := FitRidge(xs, ys, m.Training.Chosen)
	if err != nil {
		return nil, err
	}
	m.Ridge = *r
	m.Training.RatingMean, m.Training.RatingSD = stat.PopMeanStdDev(ys, nil)
	m.Reference = make([]float64, len(bestOOF))
	for i, v := range bestOOF {
		m.Reference[i] = hensachi.Round(math.Min(MaxRaw, math.Max(MinRaw, v)), 6)
	}
	slices.Sort(m.Reference)
	return m, nil
}

// Evaluate scores the test samples, overall and per group.
func (m *Model) Evaluate(test []Sample) Report {
	rep := Report{Groups: map[string]Metrics{}}
	var pred, truth []float64
	byGroup := map[string][2][]float64{}
	for _, s := range test {
		p := math.Min(MaxRaw, math.Max(MinRaw, m.Ridge.Predict(s.Features)))
		pred, truth = append(pred, p), append(truth, s.Rating)
		g := byGroup[s.Group]
		g[0], g[1] = append(g[0], p), append(g[1], s.Rating)
		byGroup[s.Group] = g
	}
	rep.Overall = Evaluate(pred, truth)
	for g, pt := range byGroup {
		rep.Groups[g] = Evaluate(pt[0], pt[1])
	}
	return rep
}
