package town

import (
	"cmp"
	"math"
	"slices"

	"github.com/hensachi/hensachi"
)

// Similar municipalities: the nearest on the six deviation scores, found for every municipality
// when the catalog is built, so a call only reads a list.

const (
	// MaxNeighbours is how many neighbours are kept per municipality: the API's largest limit.
	MaxNeighbours = 50
	// minSharedAxes is how many axes two municipalities must both have a value on to be compared;
	// with fewer, the distance would rest on too little.
	minSharedAxes = 4
	// differingAxes is how many of the most different axes a neighbour names.
	differingAxes = 3
)

// SimilarMethod explains the neighbours; the catalog adds it to the meta document's method.
const SimilarMethod = "似ている市区町村は、6軸の偏差値を座標とするユークリッド距離の近い順とした（人口規模は加えない。偏差値が規模と相関する軸を既に含むため）。" +
	"どちらかに値のない軸は除き、共通する軸の差の二乗平均に 6 を掛けた平方根を距離とする。共通する軸が4未満の組は比べない。"

// Neighbour is a municipality similar to another one.
type Neighbour struct {
	Municipality *hensachi.Municipality
	// Distance is the Euclidean distance between the two on the six deviation scores, over the axes
	// both have, scaled to six axes: √(6/n · Σ d²) for n shared axes.
	Distance float64
	// Differences are the axes on which the two differ most, at most three, the largest first.
	Differences []AxisDifference
}

// AxisDifference is how far a neighbour's deviation score on one axis is from the base's.
type AxisDifference struct {
	Axis int // into hensachi.Axes
	// Difference is the neighbour's deviation score minus the base municipality's.
	Difference float64
}

// neighbour is one precomputed entry: a row and its distance.
type neighbour struct {
	row      int32
	distance float64
}

// Similar returns at most limit municipalities nearest to the one of code, nearest first, ties in
// code order, never itself. A municipality with values on fewer than four axes has none. It fails
// with not_found for an unknown code.
func (c *Catalog) Similar(code string, limit int) ([]Neighbour, error) {
	i, ok := c.byCode[code]
	if !ok {
		return nil, notFound(code)
	}
	near := c.neighbours[i][:min(limit, len(c.neighbours[i]))]
	out := make([]Neighbour, len(near))
	for k, n := range near {
		m := &c.towns[n.row]
		out[k] = Neighbour{Municipality: m, Distance: n.distance, Differences: differences(&c.towns[i], m)}
	}
	return out, nil
}

// SimilarList is a municipality with its nearest neighbours: GET
// /town/v1/municipalities/{code}/similar.
type SimilarList struct {
	Municipality *hensachi.Municipality
	// MissingAxes are the axes (into hensachi.Axes) the municipality has no value on, left out of
	// every distance.
	MissingAxes []int
	Neighbours  []Neighbour
}

// SimilarList returns the municipality of code and at most limit neighbours (Similar); it fails
// with not_found for an unknown code.
func (c *Catalog) SimilarList(code string, limit int) (SimilarList, error) {
	near, err := c.Similar(code, limit)
	if err != nil {
		return SimilarList{}, err
	}
	m := &c.towns[c.byCode[code]]
	l := SimilarList{Municipality: m, MissingAxes: []int{}, Neighbours: near}
	for a, s := range m.Scores {
		if !s.Value.Valid {
			l.MissingAxes = append(l.MissingAxes, a)
		}
	}
	return l, nil
}

// differences lists the axes both have, the largest absolute difference first (ties in axis
// order), at most differingAxes.
func differences(base, m *hensachi.Municipality) []AxisDifference {
	var out []AxisDifference
	for a := range hensachi.Axes {
		if base.Scores[a].Value.Valid && m.Scores[a].Value.Valid {
			out = append(out, AxisDifference{a, hensachi.Round(m.Scores[a].Hensachi-base.Scores[a].Hensachi, 1)})
		}
	}
	slices.SortStableFunc(out, func(x, y AxisDifference) int { return cmp.Compare(math.Abs(y.Difference), math.Abs(x.Difference)) })
	return out[:min(differingAxes, len(out))]
}

// scoreTable holds every municipality's deviation scores in one flat slice, NaN where there is no
// value, so the distances of the whole country are computed over contiguous memory.
type scoreTable []float64

func newScoreTable(towns []hensachi.Municipality) scoreTable {
	t := make(scoreTable, 0, len(towns)*len(hensachi.Axes))
	for i := range towns {
		for _, s := range towns[i].Scores {
			h := math.NaN()
			if s.Value.Valid {
				h = s.Hensachi
			}
			t = append(t, h)
		}
	}
	return t
}

// distance is the distance between rows i and j, ok false when they share too few axes.
func (t scoreTable) distance(i, j int) (d float64, ok bool) {
	axes := len(hensachi.Axes)
	x, y := t[i*axes:(i+1)*axes], t[j*axes:(j+1)*axes]
	shared := 0
	for a := range axes {
		if diff := x[a] - y[a]; diff == diff { // NaN where either has no value
			d += diff * diff
			shared++
		}
	}
	if shared < minSharedAxes {
		return 0, false
	}
	return math.Sqrt(d * float64(axes) / float64(shared)), true
}

// findNeighbours keeps, for every municipality, the MaxNeighbours nearest others: about 1.5
// million distances for the whole country, each kept list sorted by insertion.
func findNeighbours(towns []hensachi.Municipality) [][]neighbour {
	scores := newScoreTable(towns)
	less := func(x, y neighbour) bool {
		return x.distance < y.distance || x.distance == y.distance && x.row < y.row // rows are in code order
	}
	out := make([][]neighbour, len(towns))
	for i := range towns {
		near := make([]neighbour, 0, MaxNeighbours)
		for j := range towns {
			if j == i {
				continue
			}
			d, ok := scores.distance(i, j)
			if !ok {
				continue
			}
			n := neighbour{int32(j), d}
			if len(near) == MaxNeighbours {
				if !less(n, near[MaxNeighbours-1]) {
					continue
				}
				near = near[:MaxNeighbours-1]
			}
			k, _ := slices.BinarySearchFunc(near, n, func(e, t neighbour) int {
				if less(e, t) {
					return -1
				}
				return 1
			})
			near = slices.Insert(near, k, n)
		}
		out[i] = near
	}
	return out
}

// notFound is the error of an unknown municipality code.
func notFound(code string) error {
	return hensachi.Errorf(hensachi.ENotFound, "there is no municipality %s; GET /town/v1/municipalities lists the codes", code)
}
