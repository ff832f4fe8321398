// Package compute turns the ingested figures into what the service serves: competition ranks,
// rank-based deviation scores and per-axis summaries. Package dataset writes the result into the
// dataset file.
package compute

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Ranking is the standing of each value in a set ranked highest first.
type Ranking struct {
	// Rank is the competition rank: 1 + the number of strictly greater values; ties share it.
	Rank []int
	// MidRank is the average position of the tied group, positions counted from 1 at the highest.
	MidRank []float64
	// Order lists the values' positions highest first, ties in their order of input.
	Order []int
}

// Rank ranks values highest first. NaN values must be removed by the caller.
func Rank(values []float64) Ranking {
	n := len(values)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case values[a] > values[b]:
			return -1
		case values[a] < values[b]:
			return 1
		}
		return 0
	})
	r := Ranking{Rank: make([]int, n), MidRank: make([]float64, n), Order: order}
	for start := 0; start < n; {
		end := start + 1
		for end < n && values[order[end]] == values[order[start]] {
			end++
		}
		// positions start+1 … end share the group
		mid := float64(start+1+end) / 2
		for _, i := range order[start:end] {
			r.Rank[i] = start + 1
			r.MidRank[i] = mid
		}
		start = end
	}
	return r
}

// Hensachi maps a mid-rank among n ranked values to a deviation score: 50 + 10·Φ⁻¹(p) with
// p = (n − midRank + 0.5) / n, so the middle of the ranking is 50 and the scale cannot be pushed
// past about 50 ± 35 by outliers, whatever the raw values.
func Hensachi(midRank float64, n int) float64 {
	p := (float64(n) - midRank + 0.5) / float64(n)
	return 50 + 10*distuv.UnitNormal.Quantile(p)
}

// RoundHensachi rounds a deviation score to the one decimal the service publishes.
func RoundHensachi(h float64) float64 { return math.Round(h*10) / 10 }
