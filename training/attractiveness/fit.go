// Package attractiveness fits the attractiveness model of face/score on SCUT-FBP5500, evaluates
// it on the official test split and writes its model card.
package attractiveness

import (
	"fmt"
	"math"
	"slices"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/face/score"
	"github.com/hensachi/hensachi/training"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// Sample is one training or test image: its features, rating and group (AF, AM, CF, CM).
type Sample struct {
	Group    string
	Features []float64
	Rating   float64
}

// Samples lays out extracted SCUT-FBP5500 images for the regression: the embedding as features,
// the group from the file name's prefix (a SCUT-FBP5500 sample's group is its file name).
func Samples(faces []training.Sample) []Sample {
	out := make([]Sample, len(faces))
	for i, f := range faces {
		x := make([]float64, len(f.Features.Embedding))
		for j, v := range f.Features.Embedding {
			x[j] = float64(v)
		}
		out[i] = Sample{Group: f.Group[:2], Features: x, Rating: f.Rating}
	}
	return out
}

// Lambdas is the regularisation grid searched by cross-validation.
var Lambdas = []float64{0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30, 100}

// Folds is the number of cross-validation folds on the training split.
const Folds = 5

// Train fits the model on the training split (see Fit), describes it and evaluates it on the test
// split; missedTrain and missedTest are the images of each where no face was found.
func Train(train, test []Sample, missedTrain, missedTest int) (*score.Model, error) {
	m, err := Fit(train)
	if err != nil {
		return nil, err
	}
	m.Name = "hensachi-attractiveness-ridge-v1"
	m.Features = "the 512-d output of face_embedding_512_faceplugin.onnx on the largest face, YuNet-detected and aligned to the ArcFace 112×112 template, RGB (p − 127)/128"
	m.Training.Dataset = "SCUT-FBP5500 v2 (HCIILAB)"
	m.Training.Licence = "non-commercial research only (SCUT-FBP5500 README); a model trained on it very probably inherits that restriction"
	m.Training.Split = "official 60/40 split, training part"
	m.Training.Extra = map[string]float64{"train_images_without_face": float64(missedTrain), "test_images_without_face": float64(missedTest)}
	m.Test = Evaluate(m, test)
	return m, nil
}

// Fit chooses λ by k-fold cross-validation on the training samples only (folds by position, so
// the result is deterministic), refits on all of them, and keeps the out-of-fold predictions at
// the chosen λ as the reference distribution.
func Fit(train []Sample) (*score.Model, error) {
	if len(train) < 10*Folds {
		return nil, fmt.Errorf("%d training samples are too few for %d folds", len(train), Folds)
	}
	m := &score.Model{FormatVersion: score.FormatVersion}
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
		m.Reference[i] = hensachi.Round(clampRaw(v), 6)
	}
	slices.Sort(m.Reference)
	return m, nil
}

func clampRaw(v float64) float64 { return math.Min(score.MaxRaw, math.Max(score.MinRaw, v)) }

// FitRidge fits y ≈ w·z + b with z the standardised features, minimising ‖y − Zw − b‖² + λ‖w‖².
func FitRidge(x [][]float64, y []float64, lambda float64) (*score.Ridge, error) {
	n := len(x)
	if n == 0 || n != len(y) {
		return nil, fmt.Errorf("ridge: %d rows and %d targets", n, len(y))
	}
	d := len(x[0])
	for i := range n {
		if len(x[i]) != d {
			return nil, fmt.Errorf("ridge: row %d has %d features, expected %d", i, len(x[i]), d)
		}
	}
	r := &score.Ridge{Lambda: lambda}
	r.Mean, r.Scale = training.Scaling(x)
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

// Evaluate scores the test samples, overall and per group.
func Evaluate(m *score.Model, test []Sample) score.Report {
	rep := score.Report{Groups: map[string]score.Metrics{}}
	var pred, truth []float64
	byGroup := map[string][2][]float64{}
	for _, s := range test {
		p := clampRaw(m.Ridge.Predict(s.Features))
		pred, truth = append(pred, p), append(truth, s.Rating)
		g := byGroup[s.Group]
		g[0], g[1] = append(g[0], p), append(g[1], s.Rating)
		byGroup[s.Group] = g
	}
	rep.Overall = Measure(pred, truth)
	for g, pt := range byGroup {
		rep.Groups[g] = Measure(pt[0], pt[1])
	}
	return rep
}

// Measure compares predictions with ratings.
func Measure(pred, truth []float64) score.Metrics {
	m := score.Metrics{N: len(pred)}
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

// Reproduced compares a retrained model with the committed one (training.Reproduced): the same λ,
// and the same predictions on the test images.
func Reproduced(committed, fresh *score.Model, test []Sample) (string, error) {
	return training.Reproduced(committed, fresh,
		func(m *score.Model) string { return fmt.Sprintf("λ %g", m.Training.Chosen) }, test,
		[]training.Output{{Name: "predictions on the test split", Tolerance: 1e-3}},
		func(m *score.Model, s Sample) ([]float64, error) { return []float64{m.Ridge.Predict(s.Features)}, nil })
}
