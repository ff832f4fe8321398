// Package score is the attractiveness model: a ridge regression from face features to the 1–5
// SCUT-FBP5500 rating, with the reference distribution that turns a rating into a deviation score.
package score

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// Ridge is a fitted linear model on standardised features.
type Ridge struct {
	Mean    []float64 `json:"mean"`    // per feature, from the training set
	Scale   []float64 `json:"scale"`   // per feature standard deviation (1 where constant)
	Weights []float64 `json:"weights"` // on standardised features
	Bias    float64   `json:"bias"`
	Lambda  float64   `json:"lambda"`
}

// FitRidge fits y ≈ w·z + b with z the standardised features, minimising ‖y − Zw − b‖² + λ‖w‖².
func FitRidge(x [][]float64, y []float64, lambda float64) (*Ridge, error) {
	n := len(x)
	if n == 0 || n != len(y) {
		return nil, fmt.Errorf("ridge: %d rows and %d targets", n, len(y))
	}
	d := len(x[0])
	r := &Ridge{Mean: make([]float64, d), Scale: make([]float64, d), Lambda: lambda}
	col := make([]float64, n)
	for j := range d {
		for i := range n {
			if len(x[i]) != d {
				return nil, fmt.Errorf("ridge: row %d has %d features, expected %d", i, len(x[i]), d)
			}
			col[i] = x[i][j]
		}
		r.Mean[j], r.Scale[j] = stat.PopMeanStdDev(col, nil)
		if r.Scale[j] == 0 {
			r.Scale[j] = 1
		}
	}
	z := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			z.Set(i, j, (x[i][j]-r.Mean[j])/r.Scale[j])
		}
	}
	yMean := stat.Mean(y, nil)
	yc := mat.NewVecDense(n, nil)
	for i := range n {
		yc.SetVec(i, y[i]-yMean)
	}
	// (ZᵀZ + λI) w = Zᵀ(y − ȳ); Z is centred, so the bias is ȳ.
	var a mat.SymDense
	a.SymOuterK(1, z.T())
	for j := range d {
		a.SetSym(j, j, a.At(j, j)+lambda)
	}
	var rhs mat.VecDense
	rhs.MulVec(z.T(), yc)
	var chol mat.Cholesky
	if ok := chol.Factorize(&a); !ok {
		return nil, fmt.Errorf("ridge: system not positive definite at λ=%g", lambda)
	}
	var w mat.VecDense
	if err := chol.SolveVecTo(&w, &rhs); err != nil {
		return nil, fmt.Errorf("ridge: %w", err)
	}
	r.Weights = make([]float64, d)
	for j := range d {
		r.Weights[j] = w.AtVec(j)
	}
	r.Bias = yMean
	return r, nil
}

// Predict returns the model's value for one feature vector.
func (r *Ridge) Predict(x []float64) float64 {
	s := r.Bias
	for j, v := range x {
		s += r.Weights[j] * (v - r.Mean[j]) / r.Scale[j]
	}
	return s
}

// Metrics are the usual SCUT-FBP5500 figures.
type Metrics struct {
	N    int     `json:"n"`
	PC   float64 `json:"pearson"`
	MAE  float64 `json:"mae"`
	RMSE float64 `json:"rmse"`
}

// Evaluate compares predictions with ratings.
func Evaluate(pred, truth []float64) Metrics {
	m := Metrics{N: len(pred)}
	if m.N == 0 {
		return m
	}
	var abs, sq float64
	for i := range pred {
		e := pred[i] - truth[i]
		abs += math.Abs(e)
		sq += e * e
	}
	m.MAE, m.RMSE = abs/float64(m.N), math.Sqrt(sq/float64(m.N))
	m.PC = stat.Correlation(pred, truth, nil)
	return m
}
