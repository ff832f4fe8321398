package town_test

import (
	"slices"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/towntest"
	"github.com/hensachi/hensachi/town"
)

// Catalog's municipalities in row (code) order: 01100 札幌市, 01202 函館市, 01345 札内町,
// 13101 千代田区, 13102 中央区; births_per_1000 in 2020 is 6.5, 5.25, null, 7.1, 5.25.

func TestIndicatorsCatalogue(t *testing.T) {
	c := towntest.Catalog()
	keys := func(inds []*hensachi.Indicator) []string {
		var out []string
		for _, ind := range inds {
			out = append(out, ind.Key)
		}
		return out
	}
	for _, tc := range []struct {
		group string
		want  []string
	}{
		{"", []string{"births_per_1000", "fiscal_strength"}},
		{"財政", []string{"fiscal_strength"}},
		{"教育", nil},
	} {
		if got := keys(c.Indicators(tc.group)); !slices.Equal(got, tc.want) {
			t.Errorf("Indicators(%q) = %v, want %v", tc.group, got, tc.want)
		}
	}
	if i := c.IndicatorIndex("fiscal_strength"); i != 1 || c.Indicator(i).Key != "fiscal_strength" {
		t.Errorf("IndicatorIndex(fiscal_strength) = %d", i)
	}
	if c.IndicatorIndex("nope") != -1 {
		t.Error("an unknown key has an index")
	}
	// the summaries were filled in by compute.ApplyIndicators: 2020 has four values
	if y := c.Indicator(0).Years[0]; y.Count != 4 || y.Median != 5.875 || y.Min != 5.25 || y.Max != 7.1 {
		t.Errorf("births 2020 summary %+v", y)
	}
}

func TestIndicatorRanking(t *testing.T) {
	c := towntest.Catalog()
	type item struct {
		code string
		rank int
	}
	tests := []struct {
		name          string
		k             int
		order         town.Order
		pref          string
		offset, limit int
		total         int
		want          []item
	}{
		{"best first, the tie in code order", 0, town.BestFirst, "", 0, 10, 4,
			[]item{{"13101", 1}, {"01100", 2}, {"01202", 3}, {"13102", 3}}},
		{"worst first, the tie still in code order", 0, town.WorstFirst, "", 0, 10, 4,
			[]item{{"01202", 3}, {"13102", 3}, {"01100", 2}, {"13101", 1}}},
		{"a prefecture keeps national ranks", 0, town.BestFirst, "01", 0, 10, 2,
			[]item{{"01100", 2}, {"01202", 3}}},
		{"a page", 0, town.BestFirst, "", 1, 2, 4, []item{{"01100", 2}, {"01202", 3}}},
		{"the later year has every municipality", 1, town.BestFirst, "", 0, 10, 5,
			[]item{{"13101", 1}, {"01100", 2}, {"13102", 3}, {"01202", 4}, {"01345", 5}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			page := c.IndicatorRankingPage(0, tc.k, tc.order, town.Scope{Pref: tc.pref}, tc.offset, tc.limit)
			var got []item
			for _, it := range page.Items {
				got = append(got, item{it.Municipality.Code, it.Rank})
				if !it.Value.Valid || it.Year != page.Year {
					t.Errorf("%s: value %v year %d", it.Municipality.Code, it.Value, it.Year)
				}
			}
			if page.Total != tc.total || !slices.Equal(got, tc.want) {
				t.Errorf("total %d %v, want %d %v", page.Total, got, tc.total, tc.want)
			}
			if (tc.pref == "") != (page.Prefecture == nil) || page.Year != c.Indicator(0).Years[tc.k].Year {
				t.Errorf("prefecture %v, year %d", page.Prefecture, page.Year)
			}
		})
	}
}

func TestMunicipalityIndicators(t *testing.T) {
	c := towntest.Catalog()
	hakodate, satsunai := c.Index("01202"), c.Index("01345")
	got := c.MunicipalityIndicators(satsunai, []int{0, 1})
	if len(got) != 2 || got[0].Indicator.Key != "births_per_1000" || got[1].Indicator.Key != "fiscal_strength" {
		t.Fatalf("%+v", got)
	}
	births := got[0]
	if births.Latest.Year != 2023 || births.Latest.Value != hensachi.Some(4.2) || births.Latest.Rank != 5 || births.RankTotal != 5 {
		t.Errorf("latest %+v of %d", births.Latest, births.RankTotal)
	}
	if len(births.Series) != 2 || births.Series[0].Year != 2020 || births.Series[0].Value.Valid || births.Series[0].Rank != 0 {
		t.Errorf("series %+v: 2020 must be there, null", births.Series)
	}
	// The deviation scores are the axes': five values, the last of them 50 + 10·Φ⁻¹(0.5/5).
	if births.Latest.Hensachi != 37.2 {
		t.Errorf("札内町 births 2023 hensachi %v, want 37.2", births.Latest.Hensachi)
	}
	// 函館市 and 中央区 tie at 5.25 in 2020: one rank, one score (mid-rank 3.5 of 4 → p = 0.25)
	h := c.MunicipalityIndicators(hakodate, []int{0})[0].Series[0]
	chuo := c.IndicatorPoint(0, 0, c.Index("13102"))
	if h.Rank != 3 || chuo.Rank != 3 || h.Hensachi != 43.3 || chuo.Hensachi != 43.3 {
		t.Errorf("tied 2020 points %+v and %+v", h, chuo)
	}
	if fiscal := got[1]; fiscal.Latest.Value != hensachi.Some(0.2) || fiscal.Latest.Rank != 5 || len(fiscal.Series) != 1 {
		t.Errorf("fiscal %+v", fiscal)
	}
}

func TestIndicatorColumn(t *testing.T) {
	c := towntest.Catalog()
	col := c.IndicatorColumn(0, 0)
	if col.Year != 2020 || col.RankTotal != 4 || len(col.Values) != c.Len() {
		t.Fatalf("column %d of %d: %+v", col.Year, col.RankTotal, col)
	}
	want := []hensachi.Optional[int64]{hensachi.Some[int64](2), hensachi.Some[int64](3), {}, hensachi.Some[int64](1), hensachi.Some[int64](3)}
	if !slices.Equal(col.Ranks, want) {
		t.Errorf("ranks %v, want %v", col.Ranks, want)
	}
	for m := range col.Values {
		p := c.IndicatorPoint(0, 0, m)
		if col.Values[m] != p.Value || col.Hensachi[m].Valid != p.Value.Valid || col.Hensachi[m].Valid && col.Hensachi[m].V != p.Hensachi {
			t.Errorf("row %d: column %v %v, point %+v", m, col.Values[m], col.Hensachi[m], p)
		}
	}
}

// TestIndicatorLowerIsBetter ranks an indicator where less is better from its lowest value: rank 1
// and the highest deviation score are the lowest figure, best first lists it first, and the values
// are the figures as published.
func TestIndicatorLowerIsBetter(t *testing.T) {
	cat, values := towntest.Indicators()
	cat.Indicators[0].Direction = hensachi.DirectionLowerBetter // births_per_1000 2023: 6.1, 5.0, 4.2, 6.8, 5.6
	c := town.New(towntest.Municipalities(), towntest.Meta(), "lower", towntest.PublicURL).WithIndicators(cat, values)
	page := c.IndicatorRankingPage(0, 1, town.BestFirst, town.Scope{}, 0, 10)
	var codes []string
	for _, it := range page.Items {
		codes = append(codes, it.Municipality.Code)
	}
	if want := []string{"01345", "01202", "13102", "01100", "13101"}; !slices.Equal(codes, want) {
		t.Errorf("best first %v, want %v (lowest first)", codes, want)
	}
	best, worst := page.Items[0], page.Items[4]
	if best.Rank != 1 || best.Value != hensachi.Some(4.2) || best.Hensachi <= 50 || worst.Rank != 5 || worst.Hensachi >= 50 {
		t.Errorf("best %+v, worst %+v: want rank 1 above 50 for 4.2, rank 5 below 50 for 6.8", best.IndicatorPoint, worst.IndicatorPoint)
	}
	higher := towntest.Catalog().IndicatorPoint(0, 1, c.Index("01345"))
	if higher.Rank != 5 || higher.Hensachi != 100-best.Hensachi {
		t.Errorf("higher is better: 4.2 ranks %d with %v; want 5 with %v, the mirror of %v", higher.Rank, higher.Hensachi, 100-best.Hensachi, best.Hensachi)
	}
}

// TestIndicatorAmong: a municipality's rank among some municipalities follows their national ranks
// (ties share one), counts those with a value and takes their median; one without a value has no
// rank but the group still has its count and median.
func TestIndicatorAmong(t *testing.T) {
	c := towntest.Catalog()
	births := c.IndicatorIndex("births_per_1000")
	hakodate, satsunai, chuo := c.Index("01202"), c.Index("01345"), c.Index("13102")
	some := hensachi.Some[float64]
	tests := []struct {
		name string
		k, m int
		rows []int // nil: the municipality's prefecture
		want town.Among
	}{
		// 2020 in 北海道: 札幌市 6.5 (national 2), 函館市 5.25 (3), 札内町 none
		{"second of two", 0, hakodate, nil, town.Among{Rank: 2, Total: 2, Median: some(5.875)}},
		{"no value", 0, satsunai, nil, town.Among{Rank: 0, Total: 2, Median: some(5.875)}},
		// 函館市 and 中央区 tie nationally at 3 in 2020
		{"tied", 0, hakodate, []int{hakodate, chuo, satsunai}, town.Among{Rank: 1, Total: 2, Median: some(5.25)}},
		{"tied, the other", 0, chuo, []int{hakodate, chuo, satsunai}, town.Among{Rank: 1, Total: 2, Median: some(5.25)}},
		// 2023 in 東京都: 千代田区 6.8 (national 1), 中央区 5.6 (3)
		{"last", 1, chuo, nil, town.Among{Rank: 2, Total: 2, Median: some(6.2)}},
		{"nobody with a value", 0, satsunai, []int{satsunai}, town.Among{}},
	}
	for _, tc := range tests {
		var got town.Among
		if tc.rows == nil {
			got = c.IndicatorInPrefecture(births, tc.k, tc.m)
		} else {
			got = c.IndicatorAmong(births, tc.k, tc.m, tc.rows)
		}
		if got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestIndicatorPosition: where a municipality stands in a ranking, best first, of the country or
// its prefecture, is the offset of the ranking page that lists it.
func TestIndicatorPosition(t *testing.T) {
	c := towntest.Catalog()
	births := c.IndicatorIndex("births_per_1000")
	tests := []struct {
		code, pref string
		k          int
		pos        int
		ok         bool
	}{
		{"13101", "", 0, 0, true},
		{"13102", "", 0, 3, true}, // after 函館市, tied with it, in code order
		{"01202", "01", 0, 1, true},
		{"01345", "", 0, 0, false}, // no value in 2020
		{"01345", "", 1, 4, true},
		{"01100", "13", 0, 0, false},
	}
	for _, tc := range tests {
		pos, ok := c.IndicatorPosition(births, tc.k, c.Index(tc.code), town.Scope{Pref: tc.pref})
		if pos != tc.pos || ok != tc.ok {
			t.Errorf("%s in %q, year %d: %d %v, want %d %v", tc.code, tc.pref, tc.k, pos, ok, tc.pos, tc.ok)
			continue
		}
		if ok {
			page := c.IndicatorRankingPage(births, tc.k, town.BestFirst, town.Scope{Pref: tc.pref}, pos, 1)
			if page.Items[0].Municipality.Code != tc.code {
				t.Errorf("%s: the ranking's item at %d is %s", tc.code, pos, page.Items[0].Municipality.Code)
			}
		}
	}
}
