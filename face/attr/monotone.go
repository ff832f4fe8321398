package attr

import "sort"

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
