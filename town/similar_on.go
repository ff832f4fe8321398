package town

import (
	"cmp"
	"math"
	"slices"
)

// Similar municipalities on measures the caller picks: any of the six axes and indicators in a
// survey year, each by its deviation score, the distance as on the six axes (SimilarMethod).
// Nothing is precomputed for a choice, so a call measures the whole country: some 1,740
// distances over at most MaxDimensions scores.

// MaxDimensions is how many measures one similarity takes.
const MaxDimensions = 10

// Dimension is one deviation score every municipality may have: axis Axis when Indicator is < 0,
// else indicator Indicator in its Year-th survey year.
type Dimension struct {
	Axis, Indicator, Year int
}

// score is row m's deviation score on the dimension, NaN without a value.
func (c *Catalog) score(d Dimension, m int) float64 {
	if d.Indicator < 0 {
		if s := c.towns[m].Scores[d.Axis]; s.Value.Valid {
			return s.Hensachi
		}
		return math.NaN()
	}
	if p := c.indicators.cell(d.Indicator, d.Year, m).point(0); p.Value.Valid {
		return p.Hensachi
	}
	return math.NaN()
}

// DimensionNeighbour is a municipality near another one on chosen dimensions.
type DimensionNeighbour struct {
	Row int
	// Distance is √(D/n · Σ d²) over the n of the D dimensions both have.
	Distance float64
	// Differences are the dimensions on which the two differ most, at most three, the largest
	// first: the neighbour's deviation score minus the base's.
	Differences []DimensionDifference
}

// DimensionDifference is how far a neighbour is from the base on one dimension.
type DimensionDifference struct {
	Dimension            int // into the dimensions asked for
	Hensachi, Difference float64
}

// SimilarOn returns at most limit municipalities nearest to row m on dims, nearest first, ties
// in code order, never m itself, and the dimensions m has no value on. Two municipalities are
// compared when they share two thirds of the dimensions (rounded up), as four of the six axes.
func (c *Catalog) SimilarOn(m int, dims []Dimension, limit int) (near []DimensionNeighbour, missing []int) {
	base := make([]float64, len(dims))
	for k, d := range dims {
		if base[k] = c.score(d, m); base[k] != base[k] {
			missing = append(missing, k)
		}
	}
	need := (2*len(dims) + 2) / 3
	if len(dims)-len(missing) < need {
		return []DimensionNeighbour{}, missing
	}
	scores := make([]float64, len(dims)*len(c.towns)) // dimension by dimension
	for k, d := range dims {
		for j := range c.towns {
			scores[k*len(c.towns)+j] = c.score(d, j)
		}
	}
	type candidate struct {
		row      int
		distance float64
	}
	// the limit nearest, kept sorted as they are found: most of the country is farther than the
	// last kept, one comparison each
	var all []candidate
	for j := range c.towns {
		if j == m {
			continue
		}
		sum, shared := 0.0, 0
		for k := range dims {
			if diff := scores[k*len(c.towns)+j] - base[k]; diff == diff {
				sum += diff * diff
				shared++
			}
		}
		if shared < need {
			continue
		}
		n := candidate{j, math.Sqrt(sum * float64(len(dims)) / float64(shared))}
		if len(all) == limit {
			if n.distance >= all[limit-1].distance { // rows come in code order: a tie stays behind
				continue
			}
			all = all[:limit-1]
		}
		k, _ := slices.BinarySearchFunc(all, n, func(e, t candidate) int {
			if e.distance <= t.distance {
				return -1
			}
			return 1
		})
		all = slices.Insert(all, k, n)
	}
	near = make([]DimensionNeighbour, 0, min(limit, len(all)))
	for _, n := range all[:min(limit, len(all))] {
		var diffs []DimensionDifference
		for k := range dims {
			h := scores[k*len(c.towns)+n.row]
			if diff := h - base[k]; diff == diff {
				diffs = append(diffs, DimensionDifference{k, h, math.Round(diff*10) / 10})
			}
		}
		slices.SortStableFunc(diffs, func(x, y DimensionDifference) int {
			return cmp.Compare(math.Abs(y.Difference), math.Abs(x.Difference))
		})
		near = append(near, DimensionNeighbour{Row: n.row, Distance: n.distance, Differences: diffs[:min(differingAxes, len(diffs))]})
	}
	return near, missing
}
