package ingest

import "testing"

func TestRoundHalfAway(t *testing.T) {
	tests := []struct {
		num, den, scale float64
		decimals        int
		want            float64
	}{
		{23, 80, 100, 1, 28.8}, // 28.75 exactly; binary division gives 28.749999…
		{1150, 4000, 100, 1, 28.8},
		{-23, 80, 100, 1, -28.8}, // away from zero on the negative side too
		{1, 8, 1, 2, 0.13},       // 0.125
		{1, 3, 100, 1, 33.3},
		{2, 3, 100, 1, 66.7},
		{12345, 1, 0.01, 2, 123.45}, // hectares to km²
		{7, 2, 1, 0, 4},
		{-7, 2, 1, 0, -4},
		{54, 6209, 1000, 2, 8.7},
	}
	for _, tc := range tests {
		if got := roundHalfAway(tc.num, tc.den, tc.scale, tc.decimals); got != tc.want {
			t.Errorf("roundHalfAway(%v, %v, %v, %d) = %v, want %v", tc.num, tc.den, tc.scale, tc.decimals, got, tc.want)
		}
	}
}
