package town_test

import (
	"math"
	"slices"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/compute"
	"github.com/hensachi/hensachi/internal/testrig/towntest"
	"github.com/hensachi/hensachi/town"
)

// changeCatalog is Catalog's municipalities (01100 札幌市, 01202 函館市, 01345 札内町, 13101 千代田区,
// 13102 中央区) with two indicators of 2015 and 2020:
//
//	jobless (rate, lower_better, difference)  2015: 5.0, 4.0, 3.0, 6.0, 2.0   2020: 4.0, 4.5, 2.9, 3.5, null
//	shops (count, neutral, percent)           2015: 0, 200, 50, 1000, 80     2020: 5, 150, 50, 1100, 100
func changeCatalog(t *testing.T) *town.Catalog {
	t.Helper()
	some := func(vs ...float64) []hensachi.Optional[float64] {
		out := make([]hensachi.Optional[float64], len(vs))
		for i, v := range vs {
			if !math.IsNaN(v) {
				out[i] = hensachi.Some(v)
			}
		}
		return out
	}
	years := []hensachi.IndicatorYear{{Year: 2015}, {Year: 2020}}
	cat := hensachi.IndicatorCatalogue{Indicators: []hensachi.Indicator{
		{Key: "jobless", Label: "完全失業率", Unit: "%", Group: "経済・雇用", Direction: hensachi.DirectionLowerBetter, Kind: hensachi.KindRate,
			Decimals: 1, Change: hensachi.ChangeDifference, Years: slices.Clone(years)},
		{Key: "shops", Label: "小売店数", Unit: "店", Group: "生活・環境", Direction: hensachi.DirectionNeutral, Kind: hensachi.KindCount,
			Decimals: 0, Change: hensachi.ChangePercent, Years: slices.Clone(years)},
	}}
	values := hensachi.IndicatorValues{
		{some(5.0, 4.0, 3.0, 6.0, 2.0), some(4.0, 4.5, 2.9, 3.5, math.NaN())},
		{some(0, 200, 50, 1000, 80), some(5, 150, 50, 1100, 100)},
	}
	compute.ApplyIndicators(&cat, values)
	return town.New(towntest.Municipalities(), towntest.Meta(), "change-test", towntest.PublicURL).WithIndicators(cat, values)
}

// TestIndicatorChange: the change by hand for each municipality, ranked with the indicator's
// direction (a fall in unemployment first; the largest increase first where neither way is
// better), a percent of a zero base null and unranked, the pages and the order worst first, and the
// ranks within the 類似団体 (the special wards' are 13101 and 13102).
func TestIndicatorChange(t *testing.T) {
	c := changeCatalog(t)
	type item struct {
		code   string
		change float64
		rank   int
		peer   int // within the 類似団体
	}
	tests := []struct {
		name      string
		indicator string
		order     town.Order
		scope     town.Scope
		offset    int
		unit      string
		changes   []hensachi.Optional[float64] // by row
		total     int
		want      []item
	}{
		{"a fall in unemployment ranks first", "jobless", town.BestFirst, town.Scope{}, 0, "ポイント",
			[]hensachi.Optional[float64]{hensachi.Some(-1.0), hensachi.Some(0.5), hensachi.Some(-0.1), hensachi.Some(-2.5), {}}, 4,
			[]item{{"13101", -2.5, 1, 1}, {"01100", -1.0, 2, 1}, {"01345", -0.1, 3, 1}, {"01202", 0.5, 4, 1}}},
		{"worst first: the largest rise in unemployment", "jobless", town.WorstFirst, town.Scope{}, 0, "ポイント", nil, 4,
			[]item{{"01202", 0.5, 4, 1}, {"01345", -0.1, 3, 1}, {"01100", -1.0, 2, 1}, {"13101", -2.5, 1, 1}}},
		{"a prefecture keeps national ranks", "jobless", town.BestFirst, town.Scope{Pref: "01"}, 0, "ポイント", nil, 3,
			[]item{{"01100", -1.0, 2, 1}, {"01345", -0.1, 3, 1}, {"01202", 0.5, 4, 1}}},
		{"percent: neutral, the largest increase first, a zero base null", "shops", town.BestFirst, town.Scope{}, 0, "%",
			[]hensachi.Optional[float64]{{}, hensachi.Some(-25.0), hensachi.Some(0.0), hensachi.Some(10.0), hensachi.Some(25.0)}, 4,
			[]item{{"13102", 25, 1, 1}, {"13101", 10, 2, 2}, {"01345", 0, 3, 1}, {"01202", -25, 4, 1}}},
		{"a 類似団体 keeps national ranks", "shops", town.BestFirst, town.Scope{Peers: "special_ward"}, 0, "%", nil, 2,
			[]item{{"13102", 25, 1, 1}, {"13101", 10, 2, 2}}},
		{"a 類似団体 within a prefecture, worst first", "shops", town.WorstFirst, town.Scope{Pref: "13", Peers: "special_ward"}, 0, "%", nil, 2,
			[]item{{"13101", 10, 2, 2}, {"13102", 25, 1, 1}}},
		{"a page", "shops", town.BestFirst, town.Scope{}, 2, "%", nil, 4, []item{{"01345", 0, 3, 1}, {"01202", -25, 4, 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			i := c.IndicatorIndex(tc.indicator)
			ch := c.IndicatorChange(i, 0, 1)
			if tc.changes != nil && !slices.Equal(ch.Values, tc.changes) {
				t.Errorf("changes %v, want %v", ch.Values, tc.changes)
			}
			if ch.Unit() != tc.unit || ch.FromYear() != 2015 || ch.ToYear() != 2020 {
				t.Errorf("unit %q years %d–%d", ch.Unit(), ch.FromYear(), ch.ToYear())
			}
			page := c.IndicatorChangePage(i, 0, 1, tc.order, tc.scope, tc.offset, 10)
			var got []item
			for _, it := range page.Items {
				got = append(got, item{it.Municipality.Code, it.Change, it.Rank, it.RankInPeers})
				// the item's two values are the catalogue's, and its change theirs
				m := c.Index(it.Municipality.Code)
				from, to := c.IndicatorPoint(i, 0, m), c.IndicatorPoint(i, 1, m)
				if it.From != from || it.To != to || it.From.Year != 2015 || it.To.Year != 2020 {
					t.Errorf("%s: from %+v to %+v, want %+v %+v", it.Municipality.Code, it.From, it.To, from, to)
				}
				if want := town.ChangeOf(c.Indicator(i), from.Value.V, to.Value.V); want != hensachi.Some(it.Change) {
					t.Errorf("%s: change %v, want %v", it.Municipality.Code, it.Change, want)
				}
			}
			if page.Total != tc.total || !slices.Equal(got, tc.want) {
				t.Errorf("total %d items %v, want %d %v", page.Total, got, tc.total, tc.want)
			}
		})
	}
	// the best change scores above 50, the worst below, whichever way is better
	ch := c.IndicatorChange(c.IndicatorIndex("jobless"), 0, 1)
	if best, worst := ch.Hensachi[c.Index("13101")], ch.Hensachi[c.Index("01202")]; best <= 50 || worst >= 50 {
		t.Errorf("deviation scores of the best %v and worst %v change", best, worst)
	}
}

func TestChangeOf(t *testing.T) {
	pct := &hensachi.Indicator{Change: hensachi.ChangePercent, Decimals: 0}
	diff := &hensachi.Indicator{Change: hensachi.ChangeDifference, Decimals: 2}
	for _, tc := range []struct {
		ind  *hensachi.Indicator
		a, b float64
		want hensachi.Optional[float64]
	}{
		{pct, 1000, 1033, hensachi.Some(3.3)},
		{pct, 3, 2, hensachi.Some(-33.3)},
		{pct, 0, 5, hensachi.Optional[float64]{}},
		{pct, -10, 5, hensachi.Optional[float64]{}},
		{diff, 0.1, 0.3, hensachi.Some(0.2)}, // not 0.19999999999999998
		{diff, 5.25, 5, hensachi.Some(-0.25)},
	} {
		if got := town.ChangeOf(tc.ind, tc.a, tc.b); got != tc.want {
			t.Errorf("%s %v → %v: %v, want %v", tc.ind.Change, tc.a, tc.b, got, tc.want)
		}
	}
}

func TestBreakBetween(t *testing.T) {
	ind := &hensachi.Indicator{Breaks: []int{2016, 2021}}
	for _, tc := range []struct{ from, to, want int }{
		{2014, 2016, 2016}, {2014, 2015, 0}, {2016, 2019, 0}, {2016, 2021, 2021}, {2014, 2024, 2016}, {2021, 2024, 0},
	} {
		if got := town.BreakBetween(ind, tc.from, tc.to); got != tc.want {
			t.Errorf("BreakBetween(%d, %d) = %d, want %d", tc.from, tc.to, got, tc.want)
		}
	}
}
