package compute

import (
	"math"
	"slices"
	"testing"

	"github.com/hensachi/hensachi"
)

func TestRank(t *testing.T) {
	tests := []struct {
		name    string
		values  []float64
		rank    []int
		midRank []float64
	}{
		{"empty", nil, []int{}, []float64{}},
		{"one", []float64{3}, []int{1}, []float64{1}},
		{"distinct", []float64{1, 3, 2}, []int{3, 1, 2}, []float64{3, 1, 2}},
		{"ties share the competition rank", []float64{5, 7, 5, 5, 1}, []int{2, 1, 2, 2, 5}, []float64{3, 1, 3, 3, 5}},
		{"all tied", []float64{2, 2}, []int{1, 1}, []float64{1.5, 1.5}},
		{"negative values", []float64{-1, 0, -3}, []int{2, 1, 3}, []float64{2, 1, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Rank(tt.values)
			if !slices.Equal(r.Rank, tt.rank) {
				t.Errorf("Rank = %v, want %v", r.Rank, tt.rank)
			}
			if !slices.Equal(r.MidRank, tt.midRank) {
				t.Errorf("MidRank = %v, want %v", r.MidRank, tt.midRank)
			}
		})
	}
}

func TestHensachi(t *testing.T) {
	tests := []struct {
		midRank float64
		n       int
		want    float64
	}{
		{3, 5, 50},         // the middle of an odd count
		{1, 1, 50},         // a single value is the middle
		{1, 2, 56.7},       // p = 0.75
		{2, 2, 43.3},       // p = 0.25
		{1, 1741, 84.4},    // p = 1740.5/1741
		{1741, 1741, 15.6}, // symmetric to the top
		{870.5, 1740, 50},  // tied middle of an even count
	}
	for _, tt := range tests {
		if got := RoundHensachi(Hensachi(tt.midRank, tt.n)); got != tt.want {
			t.Errorf("Hensachi(%v, %d) = %v, want %v", tt.midRank, tt.n, got, tt.want)
		}
	}
}

// TestHensachiProperties checks the properties the method promises on a ranking with ties.
func TestHensachiProperties(t *testing.T) {
	values := []float64{9, 1, 4, 4, 7, 2, 2, 2, 8, 5, 3}
	r := Rank(values)
	n := len(values)
	h := make([]float64, n)
	for i := range values {
		h[i] = Hensachi(r.MidRank[i], n)
	}
	for i := range values {
		for j := range values {
			switch {
			case values[i] > values[j] && !(h[i] > h[j]):
				t.Errorf("value %v > %v but hensachi %v ≤ %v", values[i], values[j], h[i], h[j])
			case values[i] == values[j] && h[i] != h[j]:
				t.Errorf("tied values %v have hensachi %v and %v", values[i], h[i], h[j])
			}
		}
	}
	// symmetric: mid-ranks m and n+1−m sit at equal distances from 50
	for m := 1.0; m <= float64(n); m += 0.5 {
		if d := Hensachi(m, n) + Hensachi(float64(n)+1-m, n) - 100; math.Abs(d) > 1e-9 {
			t.Errorf("mid-rank %v and its mirror do not sum to 100 (off by %v)", m, d)
		}
	}
}

func TestSummarize(t *testing.T) {
	tests := []struct {
		name   string
		values []float64
		want   Summary
	}{
		{"empty", nil, Summary{}},
		{"odd", []float64{5, 1, 3}, Summary{Count: 3, Median: 3, Mean: 3, Min: 1, Max: 5}},
		{"even", []float64{4, 1, 3, 10}, Summary{Count: 4, Median: 3.5, Mean: 4.5, Min: 1, Max: 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Summarize(tt.values); got != tt.want {
				t.Errorf("Summarize(%v) = %+v, want %+v", tt.values, got, tt.want)
			}
		})
	}
}

// TestStand: null values are left out of the ranking and get rank and score 0; the order lists
// the valid ones best first, ties in input order.
func TestStand(t *testing.T) {
	null := hensachi.Optional[float64]{}
	s := Stand([]hensachi.Optional[float64]{hensachi.Some(5.0), null, hensachi.Some(7.0), hensachi.Some(5.0), null, hensachi.Some(1.0)})
	if want := []int{2, 0, 1, 2, 0, 4}; !slices.Equal(s.Rank, want) {
		t.Errorf("ranks %v, want %v", s.Rank, want)
	}
	// four values: mid-ranks 2.5 (the tie), 1 and 4 → p = 0.5, 0.875, 0.125
	if want := []float64{50, 0, 61.5, 50, 0, 38.5}; !slices.Equal(s.Hensachi, want) {
		t.Errorf("scores %v, want %v", s.Hensachi, want)
	}
	if want := []int{2, 0, 3, 5}; !slices.Equal(s.Order, want) {
		t.Errorf("order %v, want %v", s.Order, want)
	}
}

func TestApplyIndicators(t *testing.T) {
	cat := hensachi.IndicatorCatalogue{Indicators: []hensachi.Indicator{{Key: "x", Decimals: 1,
		Years: []hensachi.IndicatorYear{{Year: 2015}, {Year: 2020}}}}}
	values := hensachi.IndicatorValues{{
		{hensachi.Some(1.5), {}, hensachi.Some(2.0)},
		{{}, {}, {}},
	}}
	ApplyIndicators(&cat, values)
	want := []hensachi.IndicatorYear{{Year: 2015, Count: 2, Median: 1.75, Mean: 1.75, Min: 1.5, Max: 2}, {Year: 2020}}
	if got := cat.Indicators[0].Years; !slices.Equal(got, want) {
		t.Errorf("years %+v, want %+v", got, want)
	}
}

// TestStandOriented: where less is better the lowest value is rank 1 with the highest score, the
// mirror of the highest-first standing; a null stays unranked either way.
func TestStandOriented(t *testing.T) {
	values := []hensachi.Optional[float64]{hensachi.Some(3.0), {}, hensachi.Some(1.0), hensachi.Some(2.0)}
	up, down := StandOriented(values, false), StandOriented(values, true)
	if !slices.Equal(up.Rank, []int{1, 0, 3, 2}) || !slices.Equal(down.Rank, []int{3, 0, 1, 2}) {
		t.Errorf("ranks %v (higher better), %v (lower better)", up.Rank, down.Rank)
	}
	if down.Hensachi[2] != up.Hensachi[0] || down.Hensachi[0] != up.Hensachi[2] || !slices.Equal(down.Order, []int{2, 3, 0}) {
		t.Errorf("scores %v against %v, order %v", down.Hensachi, up.Hensachi, down.Order)
	}
}
