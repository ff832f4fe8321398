package attr

import (
	"cmp"
	"slices"
	"sort"
)

// Curve is a non-decreasing piecewise-linear map through the knots (X[i], Y[i]), flat beyond the ends.
type Curve struct {
	X []float64 `json:"x"`
	Y []float64 `json:"y"`
}

// Apply evaluates the curve at v.
func (c *Curve) Apply(v float64) float64 {
	n := len(c.X)
	if n == 0 {
		return v
	}
	i := sort.SearchFloat64s(c.X, v)
	switch {
	case i == 0:
		return c.Y[0]
	case i == n:
		return c.Y[n-1]
	}
	x0, x1, y0, y1 := c.X[i-1], c.X[i], c.Y[i-1], c.Y[i]
	if x1 == x0 {
		return y1
	}
	return y0 + (y1-y0)*(v-x0)/(x1-x0)
}

// FitIsotonic fits the least-squares non-decreasing function of x to y (pool adjacent violators)
// and returns it as a curve through the mean x and mean y of each pooled block. Blocks start as
// runs of minBlock points, so that the curve is not steered by a handful of labels.
func FitIsotonic(x, y []float64, minBlock int) Curve {
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
	var c Curve
	for _, b := range blocks {
		c.X, c.Y = append(c.X, b.sx/b.n), append(c.Y, b.sy/b.n)
	}
	return c
}
