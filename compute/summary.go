package compute

import (
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"
)

// Summary describes a set of values.
type Summary struct {
	Count                  int
	Median, Mean, Min, Max float64
}

// Summarize returns count, median, mean, min and max; the median of an even count is the mean of the
// two middle values. An empty set gives a zero Summary.
func Summarize(values []float64) Summary {
	if len(values) == 0 {
		return Summary{}
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	n := len(sorted)
	median := sorted[n/2]
	if n%2 == 0 {
		median = (sorted[n/2-1] + sorted[n/2]) / 2
	}
	return Summary{
		Count:  n,
		Median: median,
		Mean:   stat.Mean(sorted, nil),
		Min:    floats.Min(sorted),
		Max:    floats.Max(sorted),
	}
}
