package attributes

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/hensachi/hensachi/face/attr"
	"github.com/hensachi/hensachi/training"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"
)

// newStandardizer measures the features of x (training.Scaling).
func newStandardizer(x [][]float64) attr.Standardizer {
	mean, scale := training.Scaling(x)
	return attr.Standardizer{Mean: mean, Scale: scale}
}

// FitLogistic minimises the mean log loss plus λ/2·‖w‖² (the bias is not penalised) with L-BFGS
// from zero. The run is deterministic.
func FitLogistic(x [][]float64, y []bool, lambda float64) (*attr.Logistic, error) {
	n := len(x)
	if n == 0 || n != len(y) {
		return nil, fmt.Errorf("logistic: %d rows and %d labels", n, len(y))
	}
	l := &attr.Logistic{Linear: attr.Linear{Standardizer: newStandardizer(x), Lambda: lambda}}
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
				r := attr.Sigmoid(m) - target[i]
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

// FitIsotonic fits the least-squares non-decreasing function of x to y (pool adjacent violators)
// and returns it as a curve through the mean x and mean y of each pooled block. Blocks start as
// runs of minBlock points, so that the curve is not steered by a handful of labels.
func FitIsotonic(x, y []float64, minBlock int) attr.Curve {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(x[a], x[b]) })
	type block struct{ sx, sy, n float64 }
	var blocks []block
	for s := 0; s < len(idx); s += minBlock {
		b := block{}
		for _, i := range idx[s:min(s+minBlock, len(idx))] {
			b.sx, b.sy, b.n = b.sx+x[i], b.sy+y[i], b.n+1
		}
		blocks = append(blocks, b)
		for len(blocks) > 1 {
			last, prev := blocks[len(blocks)-1], blocks[len(blocks)-2]
			if prev.sy/prev.n < last.sy/last.n {
				break
			}
			blocks = append(blocks[:len(blocks)-2], block{prev.sx + last.sx, prev.sy + last.sy, prev.n + last.n})
		}
	}
	var c attr.Curve
	for _, b := range blocks {
		c.X, c.Y = append(c.X, b.sx/b.n), append(c.Y, b.sy/b.n)
	}
	return c
}
