package compute

import (
	"github.com/hensachi/hensachi"
)

// Apply ranks every municipality on every axis and on the hometown-tax receipts and balance, fills
// in the deviation scores, and writes the per-axis summaries into meta.Axes.
func Apply(ms []hensachi.Municipality, meta *hensachi.Meta) {
	for a, field := range hensachi.Axes {
		var idx []int
		var values []float64
		for i := range ms {
			if v := ms[i].Scores[a].Value; v.Valid {
				idx = append(idx, i)
				values = append(values, v.V)
			}
		}
		r := Rank(values)
		for j, i := range idx {
			s := &ms[i].Scores[a]
			s.Rank = r.Rank[j]
			s.Hensachi = RoundHensachi(Hensachi(r.MidRank[j], len(values)))
		}
		sum := Summarize(values)
		am := &meta.Axes[a]
		am.Count = sum.Count
		d := field.Decimals + 1
		am.Median, am.Mean, am.Min, am.Max = hensachi.Round(sum.Median, d), hensachi.Round(sum.Mean, d), sum.Min, sum.Max
	}
	rankInts(ms, func(f *hensachi.Furusato) (hensachi.Optional[int64], *int) { return f.ReceiptsYen, &f.ReceiptsRank })
	rankInts(ms, func(f *hensachi.Furusato) (hensachi.Optional[int64], *int) { return f.BalanceYen, &f.BalanceRank })
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
