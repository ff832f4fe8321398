package compute

import (
	"github.com/hensachi/hensachi"
)

// Apply ranks every municipality on every axis and on the hometown-tax receipts and balance, fills
// in the deviation scores, and writes the per-axis summaries into meta.Axes.
func Apply(ms []hensachi.Municipality, meta *hensachi.Meta) {
	values := make([]hensachi.Optional[float64], len(ms))
	for a, field := range hensachi.Axes {
		for i := range ms {
			values[i] = ms[i].Scores[a].Value
		}
		s := Stand(values)
		for i := range ms {
			ms[i].Scores[a].Rank, ms[i].Scores[a].Hensachi = s.Rank[i], s.Hensachi[i]
		}
		sum := RoundedSummary(values, field.Decimals)
		am := &meta.Axes[a]
		am.Count, am.Median, am.Mean, am.Min, am.Max = sum.Count, sum.Median, sum.Mean, sum.Min, sum.Max
	}
	rankInts(ms, func(f *hensachi.Furusato) (hensachi.Optional[int64], *int) { return f.ReceiptsYen, &f.ReceiptsRank })
	rankInts(ms, func(f *hensachi.Furusato) (hensachi.Optional[int64], *int) { return f.BalanceYen, &f.BalanceRank })
}

// ApplyIndicators writes each indicator's national summary per survey year into its Years.
func ApplyIndicators(cat *hensachi.IndicatorCatalogue, values hensachi.IndicatorValues) {
	for i := range cat.Indicators {
		ind := &cat.Indicators[i]
		for k := range ind.Years {
			s := RoundedSummary(values[i][k], ind.Decimals)
			y := &ind.Years[k]
			y.Count, y.Median, y.Mean, y.Min, y.Max = s.Count, s.Median, s.Mean, s.Min, s.Max
		}
	}
}

// Standing is every value's place among the valid ones, ranked highest first: the competition
// rank and the deviation score of the mid-rank (Hensachi), rounded to one decimal, both 0 for a
// null value; and the positions of the valid values, highest first, ties in their order of input.
type Standing struct {
	Rank     []int
	Hensachi []float64
	Order    []int
}

// StandOriented is Stand with the best first: the lowest value when lowerIsBetter (a rate of
// unemployment, a debt ratio), so that rank 1 and a deviation score above 50 are the better side
// whichever way that is.
func StandOriented(values []hensachi.Optional[float64], lowerIsBetter bool) Standing {
	if !lowerIsBetter {
		return Stand(values)
	}
	negated := make([]hensachi.Optional[float64], len(values))
	for i, v := range values {
		negated[i] = hensachi.Optional[float64]{V: -v.V, Valid: v.Valid}
	}
	return Stand(negated)
}

// Stand ranks the valid values of a figure: the method of every axis and indicator.
func Stand(values []hensachi.Optional[float64]) Standing {
	var idx []int
	var valid []float64
	for i, v := range values {
		if v.Valid {
			idx = append(idx, i)
			valid = append(valid, v.V)
		}
	}
	r := Rank(valid)
	s := Standing{Rank: make([]int, len(values)), Hensachi: make([]float64, len(values)), Order: make([]int, len(idx))}
	for j, i := range idx {
		s.Rank[i] = r.Rank[j]
		s.Hensachi[i] = RoundHensachi(Hensachi(r.MidRank[j], len(valid)))
	}
	for p, j := range r.Order {
		s.Order[p] = idx[j]
	}
	return s
}

// RoundedSummary summarises the valid values of a figure published with the given decimals: the
// median and mean get one decimal more than the values, since a median of an even count is the
// mean of two of them; min and max are values.
func RoundedSummary(values []hensachi.Optional[float64], decimals int) Summary {
	var valid []float64
	for _, v := range values {
		if v.Valid {
			valid = append(valid, v.V)
		}
	}
	s := Summarize(valid)
	s.Median, s.Mean = hensachi.Round(s.Median, decimals+1), hensachi.Round(s.Mean, decimals+1)
	return s
}

// rankInts ranks a hometown-tax amount, highest first, among the municipalities that have it.
func rankInts(ms []hensachi.Municipality, pick func(*hensachi.Furusato) (hensachi.Optional[int64], *int)) {
	var ranks []*int
	var values []float64
	for i := range ms {
		v, rank := pick(&ms[i].Furusato)
		if v.Valid {
			ranks = append(ranks, rank)
			values = append(values, float64(v.V))
		}
	}
	for j, r := range Rank(values).Rank {
		*ranks[j] = r
	}
}
