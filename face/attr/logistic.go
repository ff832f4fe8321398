package attr

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// Standardizer centres and scales each feature by the training set's mean and standard deviation
// (training.Scaling measures them).
type Standardizer struct {
	Mean  []float64 `json:"mean"`
	Scale []float64 `json:"scale"` // 1 where a feature is constant
}

// zLimit bounds a standardised feature: a face unlike any in training (a rare pose, a model
// output far out) moves a linear head only so far.
const zLimit = 8

// Apply returns the standardised copy of a feature vector.
func (s *Standardizer) Apply(x []float64) []float64 {
	z := make([]float64, len(x))
	for j, v := range x {
		z[j] = math.Max(-zLimit, math.Min(zLimit, (v-s.Mean[j])/s.Scale[j]))
	}
	return z
}

// Linear is a linear model on standardised features.
type Linear struct {
	Standardizer
	Weights []float64 `json:"weights"`
	Bias    float64   `json:"bias"`
	Lambda  float64   `json:"lambda"`
}

// Predict returns w·z + b for one feature vector.
func (l *Linear) Predict(x []float64) float64 {
	return l.Bias + floats.Dot(l.Weights, l.Standardizer.Apply(x))
}

// Logistic is a logistic regression: P(y) = σ(w·z + b).
type Logistic struct{ Linear }

// Prob returns P(y = 1) for one feature vector.
func (l *Logistic) Prob(x []float64) float64 { return Sigmoid(l.Predict(x)) }

// Sigmoid is the logistic function σ, which turns a logit into a probability.
func Sigmoid(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
