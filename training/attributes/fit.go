// Package attributes fits the age and gender model of face/attr on UTKFace and SCUT-FBP5500,
// evaluates it on their held-out parts (and on degraded and hard copies of them) and writes its
// model cards.
package attributes

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"sync"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/face"
	"github.com/hensachi/hensachi/face/attr"
	"github.com/hensachi/hensachi/training"
	"github.com/hensachi/hensachi/training/spoil"
)

// Folds is the number of cross-validation folds; samples are assigned by their group, so photos of
// one group are never on both sides of a fold.
const Folds = 5

// Dropouts are the networks' input dropout rates that cross-validation chooses among, the
// regularisation that mattered most in trials (weight decay and the epoch count changed the
// held-out figures less).
var Dropouts = []float64{0.3, 0.5, 0.6, 0.7}

// calibrationBlock is the least number of faces behind one knot of the age calibration.
const calibrationBlock = 40

// design is the training set laid out for the heads.
type design struct {
	x    [][]float64
	fold []int
}

func newDesign(samples []training.Sample, r attr.Recipe) (*design, error) {
	d := &design{x: make([][]float64, len(samples)), fold: make([]int, len(samples))}
	for i := range samples {
		x, err := attr.Vector(samples[i].Features, r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", samples[i].Path, err)
		}
		d.x[i], d.fold[i] = x, training.Bucket("fold:", samples[i].Group, Folds)
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

// Fit trains the network on the samples that are not held out, its dropout chosen by grouped
// k-fold cross-validation, and calibrates its outputs on the out-of-fold predictions at that
// dropout: P(male) by a logistic fit on the logit, the age by an inverted isotonic fit on the
// faces that are not hard copies.
func Fit(samples []training.Sample, r attr.Recipe) (*attr.Model, error) {
	var train []training.Sample
	for _, s := range samples {
		if !s.HeldOut {
			train = append(train, s)
		}
	}
	if len(train) < 20*Folds {
		return nil, fmt.Errorf("%d training samples are too few for %d folds", len(train), Folds)
	}
	d, err := newDesign(train, r)
	if err != nil {
		return nil, err
	}
	m := &attr.Model{FormatVersion: attr.FormatVersion, Recipe: r}
	m.Training.Folds, m.Training.Images = Folds, map[string]int{}
	all := make([]int, len(train))
	y := make([]Target, len(train))
	for i, s := range train {
		m.Training.Images[setName(&s)]++
		all[i], y[i] = i, Target{Male: s.Male, Age: float64(s.Age), HasAge: s.HasAge()}
	}
	// out-of-fold outputs per dropout and row: the logit of P(male) and the age
	logit, age := make([][]float64, len(Dropouts)), make([][]float64, len(Dropouts))
	for di := range Dropouts {
		logit[di], age[di] = make([]float64, len(train)), make([]float64, len(train))
	}
	err = forFolds(func(k int) error {
		tr, va := d.split(k, all)
		for di, p := range Dropouts {
			cfg := DefaultNetwork
			cfg.Dropout = p
			net, err := FitNetwork(pick(d.x, tr), pick(y, tr), cfg)
			if err != nil {
				return fmt.Errorf("fold %d, dropout %g: %w", k, p, err)
			}
			for _, i := range va {
				logit[di][i], age[di][i] = net.Outputs(d.x[i])
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	best := 0
	m.Training.Dropouts = Dropouts
	for di := range Dropouts {
		loss, mae := crossValidated(logit[di], age[di], y)
		m.Training.CVGenderLogLoss = append(m.Training.CVGenderLogLoss, hensachi.Round(loss, 5))
		m.Training.CVAgeMAE = append(m.Training.CVAgeMAE, hensachi.Round(mae, 4))
		// the training loss's two parts: log loss, and the age error in decades; compared as the
		// card shows them
		cv := func(i int) float64 { return m.Training.CVGenderLogLoss[i] + m.Training.CVAgeMAE[i]/10 }
		if cv(di) < cv(best) {
			best = di
		}
	}
	cfg := DefaultNetwork
	cfg.Dropout = Dropouts[best]
	net, err := FitNetwork(d.x, y, cfg)
	if err != nil {
		return nil, err
	}
	m.Network, m.Training.Network = *net, cfg
	logits, male := make([][]float64, len(train)), make([]bool, len(train))
	var raw, trueAge []float64
	for i := range train {
		logits[i], male[i] = []float64{logit[best][i]}, y[i].Male
		// The age calibration is of the faces most uploads show: a hard copy's age is pulled
		// further towards the middle (the old read younger still), and a curve that took that
		// out would read every sharp face of 50 and over years too old.
		if y[i].HasAge && train[i].Hard == "" {
			raw, trueAge = append(raw, attr.ClampAge(age[best][i])), append(trueAge, y[i].Age)
		}
	}
	platt, err := FitLogistic(logits, male, 0)
	if err != nil {
		return nil, fmt.Errorf("gender calibration: %w", err)
	}
	m.GenderCalibration, m.AgeCalibration = *platt, calibrate(raw, trueAge)
	m.AgeCalibrationShare = calibrationShare(raw, trueAge, m.AgeCalibration)
	return m, nil
}

// crossValidated returns the mean gender log loss of the out-of-fold logits and the mean absolute
// error of the out-of-fold ages where the age is known.
func crossValidated(logit, age []float64, y []Target) (logLoss, mae float64) {
	n := 0
	for i, t := range y {
		// log(1 + e^−m) for the true class's margin m, without overflow
		m := logit[i]
		if !t.Male {
			m = -m
		}
		logLoss += math.Max(-m, 0) + math.Log1p(math.Exp(-math.Abs(m)))
		if t.HasAge {
			mae += math.Abs(attr.ClampAge(age[i]) - t.Age)
			n++
		}
	}
	return logLoss / float64(len(y)), mae / float64(max(n, 1))
}

// maxBandBias is how far, in years, the mean out-of-fold age of any ten-year band may be off.
// The calibration is applied only as far as it takes to get there: each step from the
// network's own reading towards an unbiased one costs accuracy (a regression's estimate has the
// least error exactly because it leans towards the middle).
const maxBandBias = 3

// calibrationShare is the least share of the calibration, in steps of 5 %, that brings every
// band's mean bias within maxBandBias years.
func calibrationShare(raw, age []float64, c attr.Curve) float64 {
	const steps = 20
	for s := range steps {
		share := float64(s) / steps
		if worstBandBias(raw, age, c, share) <= maxBandBias {
			return share
		}
	}
	return 1
}

func worstBandBias(raw, age []float64, c attr.Curve, share float64) float64 {
	sum, n := map[string]float64{}, map[string]float64{}
	for i, r := range raw {
		b := Band(int(age[i]))
		sum[b] += attr.PartlyCalibrated(c, share, r) - age[i]
		n[b]++
	}
	worst := 0.0
	for b := range sum {
		worst = math.Max(worst, math.Abs(sum[b]/n[b]))
	}
	return worst
}

// calibrate maps the network's age to the reported age so that faces of every true age are read
// without a systematic offset. A regression estimate E[age | features] is pulled towards the
// middle: children are read too old, the old too young. The fitted curve g(age) = E[raw | age]
// (isotonic) says where each true age lands on average; reading raw through g⁻¹ takes the pull out.
func calibrate(raw, age []float64) attr.Curve {
	g := FitIsotonic(age, raw, calibrationBlock)
	// isotonic blocks are strictly increasing in their means, so the inverse is a curve too
	return attr.Curve{X: g.Y, Y: g.X}
}

// Train fits the model (see Fit) and evaluates it on the held-out samples of each source.
func Train(samples []training.Sample, r attr.Recipe) (*attr.Model, error) {
	m, err := Fit(samples, r)
	if err != nil {
		return nil, err
	}
	m.Name = "hensachi-age-gender-v4"
	m.Features = "the gender-age model's 202 outputs (genderage_insightface2018_112.onnx), σ of each of its 100 age-pair differences, their sum and its log, and the 512-d embedding (face_embedding_512_faceplugin.onnx), on the YuNet-detected face aligned to the ArcFace 112×112 template"
	if r.FaceRes {
		m.Features += ", and FaceRes's 256 dense features, P(male), 100 age probabilities and their mean age (faceres_hse_deep.onnx) on a looser 160×160 crop"
	}
	if r.Mirror {
		m.Features += "; the gender-age outputs are the mean over the face and its mirror image"
	}
	m.Training.Datasets = []string{"UTKFace (training pool of 9,205 chips: age, gender, ethnicity)", "SCUT-FBP5500 v2 (gender from the file-name prefix; official training split only)"}
	m.Training.Licence = "non-commercial research only (UTKFace and SCUT-FBP5500 licences); a model trained on them inherits that restriction"
	m.Training.Split = "UTKFace: ten-minute windows of the file-name time stamp, one in five held out (FNV-1a hash of the window); SCUT-FBP5500: the official test split held out"
	m.Test, m.TestDegraded = map[string]*attr.Report{}, map[string]*attr.Report{}
	for _, src := range []string{training.SourceUTKFace, training.SourceSCUT} {
		m.Test[src], m.TestDegraded[src] = Evaluate(m, samples, src, false), Evaluate(m, samples, src, true)
	}
	if slices.ContainsFunc(samples, func(s training.Sample) bool { return s.Hard != "" }) {
		m.TestHard = map[string]map[string]*attr.Report{}
		for _, src := range []string{training.SourceUTKFace, training.SourceSCUT} {
			m.TestHard[src] = hardReports(m, samples, src)
		}
	}
	return m, nil
}

// CompareWithoutHard fits the model again without the hard copies and records that model's figures
// in m.TestHardBefore: what fitting on them changed. It doubles the training's time, which the
// reproduction test (training's TestTrainingReproducesCommittedModels) does without.
func CompareWithoutHard(m *attr.Model, samples []training.Sample) error {
	var without []training.Sample
	for _, s := range samples {
		if s.Hard == "" {
			without = append(without, s)
		}
	}
	before, err := Fit(without, m.Recipe)
	if err != nil {
		return fmt.Errorf("the fit without hard copies: %w", err)
	}
	m.TestHardBefore = map[string]map[string]*attr.Report{}
	for _, src := range []string{training.SourceUTKFace, training.SourceSCUT} {
		m.TestHardBefore[src] = hardReports(before, samples, src)
		m.TestHardBefore[src][Original] = Evaluate(before, samples, src, false)
	}
	return nil
}

// The keys of Model.TestHard besides the kinds of copy: every kind together, and the held-out
// images themselves.
const (
	AllHard  = "all"
	Original = "original"
)

// hardReports evaluates the model on the hard copies of a source's held-out images, per kind.
func hardReports(m *attr.Model, samples []training.Sample, source string) map[string]*attr.Report {
	out := map[string]*attr.Report{AllHard: EvaluateHard(m, samples, source, "")}
	for _, k := range spoil.Kinds {
		out[string(k)] = EvaluateHard(m, samples, source, k)
	}
	return out
}

// Extract extracts the features of each source's images, of a degraded copy of each
// (training.DegradedCopies) and of a hard copy of each (training.HardCopies), and counts the
// images without a face per set.
func Extract(ctx context.Context, a *face.Analyzer, sources [][]training.Sample, workers int) ([]training.Sample, map[string]int, error) {
	var samples []training.Sample
	missed := map[string]int{}
	for _, src := range sources {
		for _, set := range [][]training.Sample{src, training.DegradedCopies(src), training.HardCopies(src)} {
			got, n, err := training.Extract(ctx, a, set, workers)
			if err != nil {
				return nil, nil, err
			}
			samples, missed[setName(&set[0])] = append(samples, got...), n
		}
	}
	return samples, missed, nil
}

// setName names the set of a sample as the model file counts them: its source, or its source's
// degraded copies.
func setName(s *training.Sample) string {
	switch {
	case s.Degraded:
		return s.Source + " (degraded copies)"
	case s.Hard != "":
		return s.Source + " (hard copies)"
	}
	return s.Source
}

// Reproduced compares a retrained model with the committed one (training.Reproduced): the same
// network configuration and dropout, the same ages and P(male) on the typical held-out face and
// close on nearly all, and the card's held-out figures within what a reader of the card could
// tell apart. A network retrained on another CPU does not give each face the committed output:
// on 2026-11-28 a machine whose math differed in the last bits retrained one with the same
// figures (age MAE 5.038 against 5.031, gender accuracy 89.1 % against 89.4 %) whose ages differ
// from the committed network's by 0.28 years in the median, 1.9 at the 99th percentile and 4.4
// at most, its P(male) by 0.001, 0.08 and 0.16.
func Reproduced(committed, fresh *attr.Model, samples []training.Sample) (string, error) {
	var held []training.Sample
	for _, s := range samples {
		if s.HeldOut {
			held = append(held, s)
		}
	}
	how, err := training.Reproduced(committed, fresh,
		func(m *attr.Model) string { return fmt.Sprintf("the network %+v", m.Training.Network) }, held,
		[]training.Output{{Name: "held-out ages (years)", Median: 0.5, Tolerance: 3}, {Name: "held-out P(male)", Median: 0.01, Tolerance: 0.15}},
		func(m *attr.Model, s training.Sample) ([]float64, error) {
			age, male, err := m.Attributes(s.Features)
			return []float64{age, male}, err
		})
	if err != nil {
		return "", err
	}
	if err := sameFigures(committed.Test, fresh.Test); err != nil {
		return "", fmt.Errorf("not reproduced: %w", err)
	}
	return how + "; the held-out figures agree", nil
}

// Tolerances of the card's held-out figures (sameFigures): a tenth of a year of mean age error,
// a point of gender accuracy.
const (
	ageMAETolerance   = 0.1
	accuracyTolerance = 0.01
)

// sameFigures compares the held-out figures of two cards, overall and of the adults, per source.
func sameFigures(committed, fresh map[string]*attr.Report) error {
	for _, source := range slices.Sorted(maps.Keys(committed)) {
		c, f := committed[source], fresh[source]
		if f == nil {
			return fmt.Errorf("no held-out figures of %s", source)
		}
		for _, m := range []struct {
			name string
			c, f attr.Metrics
		}{{"", c.Overall, f.Overall}, {" adults", c.Adults, f.Adults}} {
			if d := math.Abs(m.c.AgeMAE - m.f.AgeMAE); d > ageMAETolerance {
				return fmt.Errorf("%s%s: age MAE %.3f, the card's %.3f", source, m.name, m.f.AgeMAE, m.c.AgeMAE)
			}
			if d := math.Abs(m.c.GenderAccuracy - m.f.GenderAccuracy); d > accuracyTolerance {
				return fmt.Errorf("%s%s: gender accuracy %.4f, the card's %.4f", source, m.name, m.f.GenderAccuracy, m.c.GenderAccuracy)
			}
		}
	}
	return nil
}
