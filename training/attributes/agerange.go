package attributes

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/face"
	"github.com/hensachi/hensachi/face/attr"
	"github.com/hensachi/hensachi/training"
)

// AgeRangeCoverage is the share of faces an age range is meant to hold.
const AgeRangeCoverage = 0.8

// ageRangeSalt splits the held-out groups into the parts of the cross-fitting (ageRangeFolds).
const ageRangeSalt = "age-range"

// CalibrateServed analyses UTKFace's held-out faces and a hard copy of each (training.HardCopies)
// with the server's analyzer a (face.Config.QuickPass) and fits the age ranges of m on the faces
// themselves (CalibrateAgeRanges), measuring them on both; missed counts the images without a face.
func CalibrateServed(ctx context.Context, a *face.Analyzer, m *attr.Model, held []training.Sample, workers int) (_ *attr.AgeRanges, missed int, _ error) {
	samples, missed, err := training.Extract(ctx, a, held, workers)
	if err != nil {
		return nil, 0, err
	}
	hard, _, err := training.Extract(ctx, a, training.HardCopies(held), workers)
	if err != nil {
		return nil, 0, err
	}
	preds, err := Predict(m, samples)
	if err != nil {
		return nil, 0, err
	}
	hardPreds, err := Predict(m, hard)
	if err != nil {
		return nil, 0, err
	}
	r, err := CalibrateAgeRanges(m, samples, preds, hard, hardPreds)
	return r, missed, err
}

// Predict is the model's output for each sample.
func Predict(m *attr.Model, samples []training.Sample) ([]Prediction, error) {
	preds := make([]Prediction, len(samples))
	for i, s := range samples {
		age, male, err := m.Attributes(s.Features)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Path, err)
		}
		preds[i] = Prediction{Age: age, Male: male}
	}
	return preds, nil
}

// ageRangeNeighbours is how many calibration faces, those nearest in reported age, an age's range
// is read from: fewer make the ranges jump from one age to the next, more mix ages whose errors
// differ (children's ranges are a few years wide, adults' twenty). Of the counts tried, 100 held
// every band nearest the nominal share.
const ageRangeNeighbours = 100

// ageRangeFolds is how many parts the cross-fitting splits the calibration faces into: each part
// is measured with the ranges fitted on the others. Five parts measure ranges fitted on four
// fifths of the faces, nearer the file's (fitted on all) than two halves' ranges are, whose
// coverage strays further from the nominal share either way.
const ageRangeFolds = 5

// reported is one calibration face: the age the service reports, and the true one.
type reported struct{ age, truth int }

// CalibrateAgeRanges fits the age ranges of model m by split conformal prediction, localised in
// the reported age: for each reported age, the residuals true − reported of the
// ageRangeNeighbours calibration faces nearest to it in reported age give the range's ends at the
// conformal ranks of the 10th and 90th percentiles (⌊(n+1)·0.1⌋ and ⌈(n+1)·0.9⌉ of n), which
// hold at least 80 % of faces like them. The calibration faces are UTKFace's held-out faces, never
// fitted on by m. What the ranges hold is measured by cross-fitting: the faces are split by
// collection window into ageRangeFolds parts, and each part is measured with the ranges fitted on
// the others; the file's ranges are fitted on all. samples are the held-out originals with their
// features extracted as the server analyses a photo (face.Config.QuickPass), preds m's outputs on
// them (Predict); the reported age is the rounded one, as the service reports it. hard and
// hardPreds, hard copies of the same faces and m's outputs on them, are measured the same way and
// never fitted on.
func CalibrateAgeRanges(m *attr.Model, samples []training.Sample, preds []Prediction, hard []training.Sample, hardPreds []Prediction) (*attr.AgeRanges, error) {
	faces := make([]reported, len(samples))
	folds := make([][]reported, ageRangeFolds)
	for i, s := range samples {
		if !s.HeldOut || !s.HasAge() || !s.Original() {
			return nil, fmt.Errorf("%s: the age ranges are fitted on held-out originals with an age", s.Path)
		}
		faces[i] = reported{age: int(math.Round(preds[i].Age)), truth: s.Age}
		k := training.Bucket(ageRangeSalt, s.Group, ageRangeFolds)
		folds[k] = append(folds[k], faces[i])
	}
	for _, fold := range folds {
		if len(fold) == 0 || len(faces)-len(fold) < 2*ageRangeNeighbours {
			return nil, fmt.Errorf("%d held-out faces are too few to measure ranges of %d neighbours on %d parts", len(faces), ageRangeNeighbours, ageRangeFolds)
		}
	}
	r := &attr.AgeRanges{FormatVersion: attr.AgeRangesFormat, Name: "hensachi-age-range-v1", Model: m.Name, Coverage: AgeRangeCoverage,
		Bands: fitRanges(faces)}
	c := &r.Calibration
	c.Dataset = "UTKFace held-out collection windows (never fitted on by the age and gender model)"
	c.Faces, c.Evaluated, c.Neighbours = len(faces), len(faces), ageRangeNeighbours
	c.Split = fmt.Sprintf("collection windows hashed into %d parts (salt %q), each measured with the ranges fitted on the others; the file's ranges are fitted on all", ageRangeFolds, ageRangeSalt)
	byReported, byTrue, byKind := map[string]*coverage{}, map[string]*coverage{}, map[string]*coverage{}
	var all coverage
	others := make([]*attr.AgeRanges, ageRangeFolds) // each part's ranges, fitted on the other parts
	for k, fold := range folds {
		var rest []reported
		for j, other := range folds {
			if j != k {
				rest = append(rest, other...)
			}
		}
		others[k] = &attr.AgeRanges{Bands: fitRanges(rest)}
		for _, f := range fold {
			low, high := others[k].Range(f.age)
			for _, acc := range []*coverage{at(byReported, Band(f.age)), at(byTrue, Band(f.truth)), &all} {
				acc.add(f.truth, low, high)
			}
		}
	}
	for i, s := range hard {
		if !s.HeldOut || !s.HasAge() || s.Hard == "" {
			return nil, fmt.Errorf("%s: the age ranges are measured on hard copies of held-out faces with an age", s.Path)
		}
		low, high := others[training.Bucket(ageRangeSalt, s.Group, ageRangeFolds)].Range(int(math.Round(hardPreds[i].Age)))
		for _, acc := range []*coverage{at(byKind, string(s.Hard)), at(byKind, AllHard)} {
			acc.add(s.Age, low, high)
		}
	}
	c.ByReported, c.ByTrue, c.Overall = coverages(byReported), coverages(byTrue), all.result()
	if len(hard) > 0 {
		c.Hard = coverages(byKind)
	}
	c.Served = Measure(samples, preds)
	return r, nil
}

// fitRanges fits the range of every reported age 0–MaxAge on the calibration faces (see
// CalibrateAgeRanges), runs of ages with the same range as one band.
func fitRanges(faces []reported) []attr.AgeRangeBand {
	alpha := (1 - AgeRangeCoverage) / 2
	n := min(ageRangeNeighbours, len(faces))
	lo := max(1, int(math.Floor(float64(n+1)*alpha)))
	hi := min(n, int(math.Ceil(float64(n+1)*(1-alpha))))
	near := slices.Clone(faces)
	var bands []attr.AgeRangeBand
	res := make([]int, n)
	for age := range attr.MaxAge + 1 {
		// the nearest in reported age; ties in a fixed order, so that the fit is reproducible
		slices.SortFunc(near, func(x, y reported) int {
			return cmp.Or(cmp.Compare(abs(x.age-age), abs(y.age-age)), cmp.Compare(x.age, y.age), cmp.Compare(x.truth, y.truth))
		})
		for i, f := range near[:n] {
			res[i] = f.truth - f.age
		}
		slices.Sort(res)
		below, above := -res[lo-1], res[hi-1]
		if k := len(bands) - 1; k >= 0 && bands[k].Below == below && bands[k].Above == above {
			bands[k].To = age + 1
			continue
		}
		bands = append(bands, attr.AgeRangeBand{From: age, To: age + 1, Below: below, Above: above})
	}
	return bands
}

func abs(x int) int { return max(x, -x) }

type coverage struct{ n, inside, width int }

func (c *coverage) add(age, low, high int) {
	c.n, c.width = c.n+1, c.width+high-low
	if low <= age && age <= high {
		c.inside++
	}
}

func (c *coverage) result() attr.RangeCoverage {
	if c.n == 0 {
		return attr.RangeCoverage{}
	}
	return attr.RangeCoverage{N: c.n, Coverage: hensachi.Round(float64(c.inside)/float64(c.n), 4), Width: hensachi.Round(float64(c.width)/float64(c.n), 2)}
}

func at(m map[string]*coverage, key string) *coverage {
	if m[key] == nil {
		m[key] = &coverage{}
	}
	return m[key]
}

func coverages(m map[string]*coverage) map[string]attr.RangeCoverage {
	out := make(map[string]attr.RangeCoverage, len(m))
	for k, c := range m {
		out[k] = c.result()
	}
	return out
}

// WriteAgeRangeCard writes the age ranges' card in Markdown: how they were made, what they held on
// the held-out faces they were not fitted on, and the served ages' accuracy on all the held-out
// faces beside the attribute model's own evaluation (m.Test), which extracts as the training does.
func WriteAgeRangeCard(w io.Writer, r *attr.AgeRanges, m *attr.Model) error {
	var b strings.Builder
	c := r.Calibration
	b.WriteString("# Age range card\n\n")
	fmt.Fprintf(&b, "`age_range` is `{low, high}` around the reported `age`, meant to hold the true age for %.0f %% of\n", 100*r.Coverage)
	fmt.Fprintf(&b, "faces: for each reported age, the %d calibration faces nearest to it in reported age give the 10th\n", c.Neighbours)
	b.WriteString("and 90th percentiles of true − reported age at their split-conformal ranks (⌊(n+1)·0.1⌋ and\n")
	b.WriteString("⌈(n+1)·0.9⌉ of the n sorted residuals), which hold at least 80 % of faces like them.\n")
	fmt.Fprintf(&b, "Fitted on %d faces, %s, analysed as the server analyses an upload\n", c.Faces, c.Dataset)
	fmt.Fprintf(&b, "(the quick detection pass included); measured by cross-fitting: %s.\n\n", c.Split)
	fmt.Fprintf(&b, "Generated by `go run ./cmd/train-models calibrate` with the file `age_range.json` (%s, for\n", r.Name)
	fmt.Fprintf(&b, "the age and gender model %s); do not edit by hand.\n\n", r.Model)
	b.WriteString("## Ranges\n\n| reported age | low | high |\n|---|---|---|\n")
	for _, band := range r.Bands {
		ages := fmt.Sprintf("%d–%d", band.From, band.To-1)
		if band.To == band.From+1 {
			ages = fmt.Sprint(band.From)
		}
		fmt.Fprintf(&b, "| %s | age − %d | age + %d |\n", ages, band.Below, band.Above)
	}
	fmt.Fprintf(&b, "\n## Held out: what the ranges hold on %d faces they were not fitted on\n\n", c.Evaluated)
	fmt.Fprintf(&b, "Overall %.1f %% (mean width %.1f years). By the reported age, which is what a user knows when the\n",
		100*c.Overall.Coverage, c.Overall.Width)
	extremes := func(by map[string]attr.RangeCoverage) (lowest, highest string) {
		lowest, highest = Bands[0], Bands[0]
		for _, band := range Bands {
			if by[band].Coverage < by[lowest].Coverage {
				lowest = band
			}
			if by[band].Coverage > by[highest].Coverage {
				highest = band
			}
		}
		return lowest, highest
	}
	repLow, repHigh := extremes(c.ByReported)
	lowest, highest := extremes(c.ByTrue)
	fmt.Fprintf(&b, "range is given, every band holds %.1f–%.1f %%; by the true age the share varies more, from\n%.1f %% (%s) to %.1f %% (%s).\n",
		100*c.ByReported[repLow].Coverage, 100*c.ByReported[repHigh].Coverage,
		100*c.ByTrue[lowest].Coverage, lowest, 100*c.ByTrue[highest].Coverage, highest)
	b.WriteString("A share measured on about 200 faces is known to ±5–6 points (95 %), so bands a few points from\n")
	b.WriteString("80 % either way are within what the sample can tell.\n\n")
	b.WriteString("| band | faces by reported age | held | mean width | faces by true age | held | mean width |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, band := range Bands {
		rep, tru := c.ByReported[band], c.ByTrue[band]
		fmt.Fprintf(&b, "| %s | %d | %.1f %% | %.1f | %d | %.1f %% | %.1f |\n", band, rep.N, 100*rep.Coverage, rep.Width, tru.N, 100*tru.Coverage, tru.Width)
	}
	if c.Hard != nil {
		b.WriteString("\n## Hard copies: what the ranges hold on faces as photos taken in the wild show them\n\n")
		b.WriteString("The same held-out faces, each spoilt one way (training.HardCopies: dark, blurred, turned, cut or\n")
		b.WriteString("covered, as AGE.md describes them) and analysed as the server analyses an upload; the ranges are\n")
		b.WriteString("fitted on none of them (each is measured with the ranges of the other parts). A hard face's age errs\n")
		b.WriteString("more, and its range, read off the reported age alone, is no wider, so it holds fewer:\n\n")
		b.WriteString("| copy | faces | held | mean width |\n|---|---:|---:|---:|\n")
		for _, row := range copyNames[1:] {
			if x, ok := c.Hard[row[0]]; ok {
				fmt.Fprintf(&b, "| %s | %d | %.1f %% | %.1f |\n", row[1], x.N, 100*x.Coverage, x.Width)
			}
		}
	}
	if test, served := m.Test[training.SourceUTKFace], c.Served; test != nil && served != nil {
		b.WriteString("\n## The served ages\n\n")
		b.WriteString("The server searches a photo with a quick detection pass first (`face.Config.QuickPass`), whose\n")
		b.WriteString("landmarks differ from the main pass's that the training extraction uses, and looks again at a\n")
		b.WriteString("photo where it finds no face (`SecondLook`); the same held-out faces, both ways:\n\n| | faces | gender | age MAE | adults' gender | adults' age MAE |\n|---|---:|---:|---:|---:|---:|\n")
		for _, row := range []struct {
			name string
			r    *attr.Report
		}{{"as the training extracts (the model card)", test}, {"as the server analyses", served}} {
			fmt.Fprintf(&b, "| %s | %d | %.1f %% | %.2f | %.1f %% | %.2f |\n", row.name, row.r.Overall.N, 100*row.r.Overall.GenderAccuracy,
				row.r.Overall.AgeMAE, 100*row.r.Adults.GenderAccuracy, row.r.Adults.AgeMAE)
		}
		b.WriteString("\n| age band | MAE, as trained | MAE, as served | bias, as trained | bias, as served |\n|---|---:|---:|---:|---:|\n")
		for _, band := range Bands {
			t, s := test.Bands[band], served.Bands[band]
			fmt.Fprintf(&b, "| %s | %.2f | %.2f | %+.2f | %+.2f |\n", band, t.AgeMAE, s.AgeMAE, t.AgeBias, s.AgeBias)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
