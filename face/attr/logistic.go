package attr

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"
	"gonum.org/v1/gonum/stat"
)

// Standardizer centres and scales each feature by the training set's mean and standard deviation.
type Standardizer struct {
	Mean  []float64 `json:"mean"`
	Scale []float64 `json:"scale"` // 1 where a feature is constant
}

// NewStandardizer measures the features of x.
func NewStandardizer(x [][]float64) Standardizer {
	d := len(x[0])
	s := Standardizer{Mean: make([]float64, d), Scale: make([]float64, d)}
	col := make([]float64, len(x))
	for j := range d {
		for i := range x {
			col[i] = x[i][j]
		}
		s.Mean[j], s.Scale[j] = stat.PopMeanStdDev(col, nil)
		if s.Scale[j] == 0 {
			s.Scale[j] = 1
		}
	}
	return s
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
func (l *Logistic) Prob(x []float64) float64 { return sigmoid(l.Predict(x)) }

func sigmoid(v float64) float64 { return 1 / (1 + math.Exp(-v)) }

// FitLogistic minimises the mean log loss plus λ/2·‖w‖² (the bias is not penalised) with L-BFGS
// from zero. The run is deterministic.
func FitLogistic(x [][]float64, y []bool, lambda float64) (*Logistic, error) {
	n := len(x)
	if n == 0 || n != len(y) {
		return nil, fmt.Errorf("logistic: %d rows and %d labels", n, len(y))
	}
	l := &Logistic{Linear{Standardizer: NewStandardizer(x), Lambda: lambda}}
	z := make([][]float64, n)
	for i := range x {
		z[i] = l.Standardizer.Apply(x[i])
	}
	d := len(z[0])
	target := make([]float64, n)
	for i, v := range y {
		if v {
			target[i] = 1
		}
	}
	// Func and Grad are called at the same points: the margins of the last point serve both
	margins, at := make([]float64, n), make([]float64, d+1)
	marginsAt := func(w []float64) []float64 {
		if !floats.Equal(w, at) {
			copy(at, w)
			for i := range z {
				margins[i] = w[d] + floats.Dot(w[:d], z[i])
			}
		}
		return margins
	}
	for i := range at {
		at[i] = math.NaN() // matches no point
	}
	p := optimize.Problem{
		Func: func(w []float64) float64 {
			loss := 0.0
			for i, m := range marginsAt(w) {
				// log(1 + e^m) − t·m, without overflow
				loss += math.Max(m, 0) + math.Log1p(math.Exp(-math.Abs(m))) - target[i]*m
			}
			return loss/float64(n) + lambda/2*floats.Dot(w[:d], w[:d])
		},
		Grad: func(grad, w []float64) {
			for j := range grad {
				grad[j] = 0
			}
			for i, m := range marginsAt(w) {
				r := sigmoid(m) - target[i]
				floats.AddScaled(grad[:d], r, z[i])
				grad[d] += r
			}
			floats.Scale(1/float64(n), grad)
			floats.AddScaled(grad[:d], lambda, w[:d])
		},
	}
	res, err := optimize.Minimize(p, make([]float64, d+1), &optimize.Settings{GradientThreshold: 1e-5, MajorIterations: 2000}, &optimize.LBFGS{})
	if err != nil && res == nil {
		return nil, fmt.Errorf("logistic at λ=%g: %w", lambda, err)
	}
	l.Weights, l.Bias = res.X[:d], res.X[d]
	return l, nil
}
