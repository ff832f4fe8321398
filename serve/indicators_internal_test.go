package serve

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

// TestAppendDecimal: the fast path writes what encoding/json writes for values rounded to their
// decimals, and falls back for the rest.
func TestAppendDecimal(t *testing.T) {
	cases := []struct {
		v        float64
		decimals int
	}{
		{0, 2}, {6.1, 2}, {-3.77, 2}, {0.05, 2}, {0.001, 3}, {-0.4, 1}, {1741, 0}, {100, 2}, {12.5, 1},
		{903346, 0}, {1.23456789, 2}, {math.Pi, 6}, {1e20, 0}, {-0.0001, 4}, {50.3, 1}, {2.675, 3}, {7, 7},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		cases = append(cases, struct {
			v        float64
			decimals int
		}{(r.Float64() - 0.3) * math.Pow(10, float64(r.IntN(9))), r.IntN(5)})
	}
	for _, tc := range cases {
		v := tc.v
		if tc.decimals < 7 {
			p := math.Pow(10, float64(tc.decimals))
			v = math.Round(v*p) / p
		}
		want, _ := json.Marshal(v)
		if got := appendDecimal(nil, v, tc.decimals); string(got) != string(want) {
			t.Errorf("appendDecimal(%v, %d) = %s, want %s", v, tc.decimals, got, want)
		}
	}
}
