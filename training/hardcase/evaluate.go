package hardcase

import (
	"cmp"
	"context"
	"math"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/hensachi/hensachi/face"
)

// MatchIoU is the least overlap (intersection over union) of a found face's box with a true box
// for the face to count as found. 0.4 rather than WIDER FACE's 0.5: the true box is the detector's
// own box on the clean image carried through the paste, and a turned or cut face's box is drawn
// differently by the detector than by that geometry, by a margin that is no miss.
const MatchIoU = 0.4

// GroupSmall is the row of the group scenes' faces narrower than SmallSide pixels.
const GroupSmall Kind = "group, under 48 px"

// Metrics are one kind's figures.
type Metrics struct {
	Faces  int `json:"faces"`
	Images int `json:"images"`
	Found  int `json:"found"`
	// FalseFaces are faces the pipeline returned that overlap no true face.
	FalseFaces int `json:"false_faces"`
	// GenderRight counts the found faces whose more likely gender is the label's.
	GenderRight int `json:"gender_right"`
	// Aged is how many found faces have an age (UTKFace's); of those, AgeInBand were read in the
	// right ten-year band (0–9, 10–19, …) and AgeMAE is the mean absolute error in years.
	Aged      int     `json:"aged"`
	AgeInBand int     `json:"age_in_band"`
	AgeMAE    float64 `json:"age_mae"`
}

// Recall is the share of the faces found.
func (m Metrics) Recall() float64 { return share(m.Found, m.Faces) }

// GenderAccuracy is the share of found faces whose gender is right.
func (m Metrics) GenderAccuracy() float64 { return share(m.GenderRight, m.Found) }

// AgeBandAccuracy is the share of found faces with an age read in the right decade.
func (m Metrics) AgeBandAccuracy() float64 { return share(m.AgeInBand, m.Aged) }

func share(n, of int) float64 {
	if of == 0 {
		return math.NaN()
	}
	return float64(n) / float64(of)
}

// Analyze is the pipeline under test: the faces it returns for a picture.
type Analyze func(context.Context, *face.RGB) ([]face.Face, error)

// outcome is one true face's result.
type outcome struct {
	found bool
	male  float64
	age   int
	truth Truth
}

// sceneResult is one scene's outcomes and its faces that match no true one.
type sceneResult struct {
	faces      []outcome
	falseFaces int
}

// Evaluate runs analyze on every scene, workers at a time, and sums the figures per kind, with the
// group scenes' small faces in a row of their own (GroupSmall).
func Evaluate(ctx context.Context, analyze Analyze, scenes []Scene, sources []Source, workers int) (map[Kind]Metrics, error) {
	per := make([]sceneResult, len(scenes))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i, sc := range scenes {
		g.Go(func() error {
			faces, err := analyze(ctx, sc.Image)
			if err != nil {
				return err
			}
			per[i] = match(sc, faces)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := map[Kind]Metrics{}
	absErr := map[Kind]float64{}
	for i, sc := range scenes {
		m := out[sc.Kind]
		m.Images++
		m.FalseFaces += per[i].falseFaces
		out[sc.Kind] = m
		for _, o := range per[i].faces {
			rows := []Kind{sc.Kind}
			if sc.Kind == Group && o.truth.Box.W < SmallSide {
				rows = append(rows, GroupSmall)
			}
			for _, k := range rows {
				m := out[k]
				m.Faces++
				if o.found {
					m.Found++
					s := sources[o.truth.Source].Sample
					if (o.male >= 0.5) == s.Male {
						m.GenderRight++
					}
					if s.HasAge() {
						m.Aged++
						if o.age/10 == s.Age/10 {
							m.AgeInBand++
						}
						absErr[k] += math.Abs(float64(o.age - s.Age))
					}
				}
				out[k] = m
			}
		}
	}
	for k, m := range out {
		if m.Aged > 0 {
			m.AgeMAE = absErr[k] / float64(m.Aged)
			out[k] = m
		}
	}
	return out, nil
}

// match pairs the scene's true faces with the faces found, best overlap first, each at most once.
func match(sc Scene, faces []face.Face) sceneResult {
	type pair struct {
		t, f int
		iou  float64
	}
	var pairs []pair
	for t, tr := range sc.Faces {
		for f, fc := range faces {
			box := face.Box{X: float64(fc.X), Y: float64(fc.Y), W: float64(fc.W), H: float64(fc.H)}
			if iou := face.IoU(tr.Box, box); iou >= MatchIoU {
				pairs = append(pairs, pair{t, f, iou})
			}
		}
	}
	slices.SortStableFunc(pairs, func(a, b pair) int { return cmp.Compare(b.iou, a.iou) })
	out := make([]outcome, len(sc.Faces))
	for t, tr := range sc.Faces {
		out[t] = outcome{truth: tr}
	}
	used := make([]bool, len(faces))
	matched := 0
	for _, p := range pairs {
		if out[p.t].found || used[p.f] {
			continue
		}
		used[p.f] = true
		matched++
		out[p.t].found, out[p.t].male, out[p.t].age = true, faces[p.f].Male, faces[p.f].Age
	}
	return sceneResult{faces: out, falseFaces: len(faces) - matched}
}
