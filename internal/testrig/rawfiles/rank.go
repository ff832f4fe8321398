package rawfiles

import (
	"math"
	"sort"
)

// Standing is a municipality's place in a ranking: the competition rank (1 + the number of higher
// values) and the rank-based deviation score.
type Standing struct {
	Rank     int
	Hensachi float64
}

// Rank ranks values highest first the way the service states it does, computed here on its own:
// ties share the competition rank, and the deviation score is 50 + 10·Φ⁻¹(p) with
// p = (n − r̄ + 0.5) / n, r̄ the average position of the tied group, rounded to one decimal.
func Rank(values map[string]float64) map[string]Standing {
	sorted := make([]float64, 0, len(values))
	for _, v := range values {
		sorted = append(sorted, v)
	}
	sort.Float64s(sorted)
	n := len(sorted)
	out := make(map[string]Standing, n)
	for code, v := range values {
		below := sort.SearchFloat64s(sorted, v)                               // values lower than v
		notAbove := sort.Search(n, func(i int) bool { return sorted[i] > v }) // values ≤ v
		higher := n - notAbove                                                // values greater than v
		tied := notAbove - below                                              // v itself, ties included
		mid := float64(higher) + float64(tied+1)/2                            // average position counted from 1
		p := (float64(n) - mid + 0.5) / float64(n)
		z := math.Sqrt2 * math.Erfinv(2*p-1)
		out[code] = Standing{Rank: higher + 1, Hensachi: math.Round((50+10*z)*10) / 10}
	}
	return out
}
