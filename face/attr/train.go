package attr

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/hensachi/hensachi"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// Folds is the number of cross-validation folds; samples are assigned by their group, so photos of
// one group are never on both sides of a fold.
const Folds = 5

// The regularisation grids searched by cross-validation: the gender head's λ is on the mean log
// loss, the age head's on the sum of squares.
var (
	GenderLambdas = []float64{0.003, 0.001, 0.0003, 0.0001, 0.00003, 0.00001}
	AgeLambdas    = []float64{0.03, 0.1, 0.3, 1, 3, 10}
)

// calibrationBlock is the least number of faces behind one knot of the age calibration.
const calibrationBlock = 40

// design is the training set laid out for the heads.
type design struct {
	x    [][]float64
	fold []int
}

func newDesign(samples []Sample, mirrored bool) (*design, error) {
	d := &design{x: make([][]float64, len(samples)), fold: make([]int, len(samples))}
	for i := range samples {
		x, err := Vector(samples[i].Features, mirrored)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", samples[i].Path, err)
		}
		d.x[i], d.fold[i] = x, bucket("fold:", samples[i].Group, Folds)
	}
	return d, nil
}

// split returns the rows of fold k's training part and of its validation part.
func (d *design) split(k int, rows []int) (train, valid []int) {
	for _, i := range rows {
		if d.fold[i] == k {
			valid = append(valid, i)
		} else {
			train = append(train, i)
		}
	}
	return train, valid
}

func pick[T any](v []T, rows []int) []T {
	out := make([]T, len(rows))
	for j, i := range rows {
		out[j] = v[i]
	}
	return out
}

// forFolds runs fn for every fold, two at a time: the folds are independent, so the results do
// not depend on the schedule.
func forFolds(fn func(k int) error) error {
	errs := make([]error, Folds)
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for k := range Folds {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			errs[k] = fn(k)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Fit trains both heads on the samples that are not held out: λ of each by grouped k-fold
// cross-validation, then a refit on all of them; the age calibration is fitted on the out-of-fold
// predictions at the chosen λ.
func Fit(samples []Sample, mirrored bool) (*Model, error) {
	var train []Sample
	for _, s := range samples {
		if !s.HeldOut {
			train = append(train, s)
		}
	}
	if len(train) < 20*Folds {
		return nil, fmt.Errorf("%d training samples are too few for %d folds", len(train), Folds)
	}
	d, err := newDesign(train, mirrored)
	if err != nil {
		return nil, err
	}
	m := &Model{FormatVersion: FormatVersion, Mirror: mirrored}
	m.Training.Folds, m.Training.Images = Folds, map[string]int{}
	for _, s := range train {
		m.Training.Images[s.Source]++
	}
	if err := fitGender(m, train, d); err != nil {
		return nil, err
	}
	if err := fitAge(m, train, d); err != nil {
		return nil, err
	}
	return m, nil
}

func fitGender(m *Model, train []Sample, d *design) error {
	all := make([]int, len(train))
	y := make([]bool, len(train))
	for i, s := range train {
		all[i], y[i] = i, s.Male
	}
	loss := make([][]float64, Folds) // per fold, per λ: summed validation log loss
	err := forFolds(func(k int) error {
		tr, va := d.split(k, all)
		loss[k] = make([]float64, len(GenderLambdas))
		var init []float64
		for li, lambda := range GenderLambdas { // strongest first: each fit starts from the previous one
			l, err := FitLogistic(pick(d.x, tr), pick(y, tr), lambda, init)
			if err != nil {
				return err
			}
			init = l.params()
			for _, i := range va {
				p := math.Min(1-1e-12, math.Max(1e-12, l.Prob(d.x[i])))
				if y[i] {
					loss[k][li] -= math.Log(p)
				} else {
					loss[k][li] -= math.Log(1 - p)
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	best := 0
	m.Training.GenderLambdas = GenderLambdas
	m.Training.GenderCVLoss = make([]float64, len(GenderLambdas))
	for li := range GenderLambdas {
		total := 0.0
		for k := range Folds {
			total += loss[k][li]
		}
		m.Training.GenderCVLoss[li] = hensachi.Round(total/float64(len(train)), 5)
		if m.Training.GenderCVLoss[li] < m.Training.GenderCVLoss[best] {
			best = li
		}
	}
	l, err := FitLogistic(d.x, y, GenderLambdas[best], nil)
	if err != nil {
		return err
	}
	m.Gender = *l
	return nil
}

func fitAge(m *Model, train []Sample, d *design) error {
	var rows []int
	for i, s := range train {
		if s.HasAge() {
			rows = append(rows, i)
		}
	}
	age := make([]float64, len(train))
	for _, i := range rows {
		age[i] = float64(train[i].Age)
	}
	oof := make([][]float64, len(AgeLambdas)) // per λ, per row of train: the out-of-fold raw age
	for li := range oof {
		oof[li] = make([]float64, len(train))
	}
	err := forFolds(func(k int) error {
		tr, va := d.split(k, rows)
		fits, err := ridgePath(pick(d.x, tr), pick(age, tr), AgeLambdas)
		if err != nil {
			return err
		}
		for li, r := range fits {
			for _, i := range va {
				oof[li][i] = (&AgeHead{Ridge: *r}).raw(d.x[i])
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	best := 0
	m.Training.AgeLambdas = AgeLambdas
	m.Training.AgeCVMAE = make([]float64, len(AgeLambdas))
	for li := range AgeLambdas {
		sum := 0.0
		for _, i := range rows {
			sum += math.Abs(oof[li][i] - float64(train[i].Age))
		}
		m.Training.AgeCVMAE[li] = hensachi.Round(sum/float64(len(rows)), 4)
		if m.Training.AgeCVMAE[li] < m.Training.AgeCVMAE[best] {
			best = li
		}
	}
	fits, err := ridgePath(pick(d.x, rows), pick(age, rows), AgeLambdas[best:best+1])
	if err != nil {
		return err
	}
	raw := make([]float64, len(rows))
	for j, i := range rows {
		raw[j] = oof[best][i]
	}
	m.Age = AgeHead{Ridge: *fits[0], Calibration: calibrate(raw, pick(age, rows))}
	return nil
}

// calibrate maps the ridge's age to the reported age so that faces of every true age are read
// without a systematic offset. A regression estimate E[age | features] is pulled towards the
// middle: children are read too old, the old too young. The fitted curve g(age) = E[raw | age]
// (isotonic) says where each true age lands on average; reading raw through g⁻¹ takes the pull out.
func calibrate(raw, age []float64) Curve {
	g := FitIsotonic(age, raw, calibrationBlock)
	inv := Curve{X: g.Y, Y: g.X}
	// isotonic blocks are strictly increasing in their means, so the inverse is a curve too
	return inv
}

// ridgePath fits a ridge regression on standardised features for each λ, factorising once.
func ridgePath(x [][]float64, y []float64, lambdas []float64) ([]*Linear, error) {
	n, dim := len(x), len(x[0])
	st := NewStandardizer(x)
	z := mat.NewDense(n, dim, nil)
	for i := range n {
		z.SetRow(i, st.Apply(x[i]))
	}
	yMean := stat.Mean(y, nil)
	yc := mat.NewVecDense(n, nil)
	for i := range n {
		yc.SetVec(i, y[i]-yMean)
	}
	var gram mat.SymDense
	gram.SymOuterK(1, z.T())
	var rhs mat.VecDense
	rhs.MulVec(z.T(), yc)
	out := make([]*Linear, len(lambdas))
	for li, lambda := range lambdas {
		a := mat.NewSymDense(dim, nil)
		a.CopySym(&gram)
		for j := range dim {
			a.SetSym(j, j, a.At(j, j)+lambda)
		}
		var chol mat.Cholesky
		if !chol.Factorize(a) {
			return nil, fmt.Errorf("ridge: not positive definite at λ=%g", lambda)
		}
		var w mat.VecDense
		if err := chol.SolveVecTo(&w, &rhs); err != nil {
			return nil, fmt.Errorf("ridge at λ=%g: %w", lambda, err)
		}
		out[li] = &Linear{Standardizer: st, Weights: slices.Clone(w.RawVector().Data), Bias: yMean, Lambda: lambda}
	}
	return out, nil
}

// Train fits the model (see Fit) and evaluates it on the held-out samples of each source.
func Train(samples []Sample, mirrored bool) (*Model, error) {
	m, err := Fit(samples, mirrored)
	if err != nil {
		return nil, err
	}
	m.Name = "hensachi-age-gender-v1"
	m.Features = "the gender-age model's 202 outputs (genderage_insightface2018_112.onnx), σ of each of its 100 age-pair differences, their sum and its log, and the 512-d embedding (face_embedding_512_faceplugin.onnx), on the YuNet-detected face aligned to the ArcFace 112×112 template"
	if mirrored {
		m.Features += "; the gender-age outputs are the mean over the face and its mirror image"
	}
	m.Training.Datasets = []string{"UTKFace (training pool of 9,205 chips: age, gender, ethnicity)", "SCUT-FBP5500 v2 (gender from the file-name prefix; official training split only)"}
	m.Training.Licence = "non-commercial research only (UTKFace and SCUT-FBP5500 licences); a model trained on them inherits that restriction"
	m.Training.Split = "UTKFace: ten-minute windows of the file-name time stamp, one in five held out (FNV-1a hash of the window); SCUT-FBP5500: the official test split held out"
	m.Test = map[string]*Report{}
	for _, src := range []string{SourceUTKFace, SourceSCUT} {
		m.Test[src] = m.Evaluate(samples, src)
	}
	return m, nil
}

// Evaluate runs the model on a source's held-out samples.
func (m *Model) Evaluate(samples []Sample, source string) *Report {
	var test []Sample
	var preds []Prediction
	for _, s := range samples {
		if !s.HeldOut || s.Source != source {
			continue
		}
		age, male, err := m.Attributes(s.Features)
		if err != nil {
			continue // extraction gives every sample both outputs; a face without them has no figures
		}
		test, preds = append(test, s), append(preds, Prediction{Age: age, Male: male})
	}
	return Evaluate(test, preds)
}
