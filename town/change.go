package town

import (
	"context"
	"math"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/compute"
)

// An indicator's change between two of its survey years, measured as its manifest says
// (hensachi.Indicator.Change) and ranked as its levels are: the better side first (a fall where
// less is better), the largest increase first where neither side is. The pairs of years are too
// many to rank each once per version (18 fiscal years make 153), so a change is ranked on its first
// request, 1,741 values in about a tenth of a millisecond, and kept in a small cache for the
// ranking pages, the map and the exports that follow.

// ChangePercentDecimals is the decimals a change in percent is rounded to before it is ranked.
const ChangePercentDecimals = 1

// changeBudget bounds the changes kept: one is some 40 KB for the country.
const changeBudget = 4 << 20

// IndicatorChange is every municipality's change on an indicator between two of its survey years,
// in row order, with the national rank and deviation score of the change.
type IndicatorChange struct {
	Indicator *hensachi.Indicator
	// From and To are the positions of the two survey years in the indicator's Years, From < To.
	From, To int
	// Values is each row's change, null where a year has no value, or where the change is in
	// percent and the earlier value is 0 or below, of which a percent means nothing.
	Values   []hensachi.Optional[float64]
	Ranks    []int // national, 0 without a change
	Hensachi []float64
	// PeerRanks are the ranks within each row's 類似団体 (the national rank counted among the
	// members, as RankInPeers), 0 without a change or a group.
	PeerRanks []int
	// order lists the rows with a change, best first, ties in code order.
	order []int
}

// FromYear and ToYear are the survey years compared.
func (ch *IndicatorChange) FromYear() int { return ch.Indicator.Years[ch.From].Year }
func (ch *IndicatorChange) ToYear() int   { return ch.Indicator.Years[ch.To].Year }

// Total is how many municipalities have a change.
func (ch *IndicatorChange) Total() int { return len(ch.order) }

// Decimals is the decimals the change is rounded to: the indicator's for a difference.
func (ch *IndicatorChange) Decimals() int { return ChangeDecimals(ch.Indicator) }

// Unit is the change's unit (ChangeUnit).
func (ch *IndicatorChange) Unit() string { return ChangeUnit(ch.Indicator) }

// ChangeDecimals is the decimals an indicator's change is rounded to.
func ChangeDecimals(ind *hensachi.Indicator) int {
	if ind.Change == hensachi.ChangePercent {
		return ChangePercentDecimals
	}
	return ind.Decimals
}

// ChangeUnit is the unit of an indicator's change: % for a change in percent, points (ポイント)
// for a difference of a figure in percent, else the indicator's own unit.
func ChangeUnit(ind *hensachi.Indicator) string {
	switch {
	case ind.Change == hensachi.ChangePercent:
		return "%"
	case ind.Unit == "%":
		return "ポイント"
	}
	return ind.Unit
}

// ChangeOf is the change from a to b measured as the indicator says, rounded; null for a percent of
// a base of 0 or below.
func ChangeOf(ind *hensachi.Indicator, a, b float64) hensachi.Optional[float64] {
	if ind.Change == hensachi.ChangePercent {
		if a <= 0 {
			return hensachi.Optional[float64]{}
		}
		return hensachi.Some(hensachi.Round((b-a)/a*100, ChangePercentDecimals))
	}
	return hensachi.Some(hensachi.Round(b-a, ind.Decimals))
}

// BreakBetween is the first definition break of an indicator that a change from year from to year
// to would cross (a break year B with from < B ≤ to: the two years are of different
// definitions), 0 when there is none.
func BreakBetween(ind *hensachi.Indicator, from, to int) int {
	for _, b := range ind.Breaks {
		if from < b && b <= to {
			return b
		}
	}
	return 0
}

type changeKey struct{ i, from, to int }

var changes = NewCache[changeKey, *IndicatorChange](changeBudget, func(ch *IndicatorChange) int64 {
	return int64(len(ch.Values)) * 48
})

// IndicatorChange returns indicator i's change from its from-th to its to-th survey year for every
// municipality, ranked. The indicator must have a measure of change and from < to; the caller
// checks both (internal/param), and refuses a change across a break.
func (c *Catalog) IndicatorChange(i, from, to int) *IndicatorChange {
	ch, _ := changes.Get(context.Background(), c, changeKey{i, from, to}, func() (*IndicatorChange, error) {
		return c.rankChange(i, from, to), nil
	})
	return ch
}

func (c *Catalog) rankChange(i, from, to int) *IndicatorChange {
	ind := &c.indicators.list[i]
	ch := &IndicatorChange{Indicator: ind, From: from, To: to, Values: make([]hensachi.Optional[float64], len(c.towns))}
	for m := range c.towns {
		a, b := c.indicators.cell(i, from, m).value, c.indicators.cell(i, to, m).value
		if !math.IsNaN(a) && !math.IsNaN(b) {
			ch.Values[m] = ChangeOf(ind, a, b)
		}
	}
	s := compute.StandOriented(ch.Values, ind.LowerIsBetter())
	ch.Ranks, ch.Hensachi, ch.order = s.Rank, s.Hensachi, s.Order
	ch.PeerRanks = c.peers.ranksWithin(ch.order, func(m int) int { return ch.Ranks[m] })
	return ch
}

// IndicatorChangePage is a page of the ranking of an indicator's change, with what it was asked
// for: GET /town/v1/indicators/{key}?from=&to=.
type IndicatorChangePage struct {
	Change     *IndicatorChange
	Order      Order
	Prefecture *hensachi.Prefecture // nil: the whole country
	PeerGroup  *hensachi.PeerGroup  // nil: every group
	// Total is how many are ranked (of the scope); Offset and Limit pick the page.
	Total, Offset, Limit int
	Items                []IndicatorChangeItem
}

// IndicatorChangeItem is one municipality of a change's ranking: the change with its national rank
// and deviation score, and the two years' standings it is computed from.
type IndicatorChangeItem struct {
	Municipality *hensachi.Municipality
	Change       float64
	Rank         int
	Hensachi     float64
	RankInPeers  int // within its 類似団体, 0 without one
	From, To     IndicatorPoint
}

// IndicatorChangePage returns a page of the ranking of indicator i's change from its from-th to its
// to-th survey year, of a scope, as IndicatorRankingPage pages the levels: national ranks, ties in
// code order both ways.
func (c *Catalog) IndicatorChangePage(i, from, to int, order Order, scope Scope, offset, limit int) IndicatorChangePage {
	ch := c.IndicatorChange(i, from, to)
	page := IndicatorChangePage{Change: ch, Order: order, Offset: offset, Limit: limit}
	page.Prefecture, page.PeerGroup = c.scopeOf(scope)
	walkRanked(len(ch.order), func(p int) int { return ch.order[p] }, func(m int) int { return ch.Ranks[m] }, order, func(m int) {
		if !c.has(scope, m) {
			return
		}
		if page.Total >= offset && len(page.Items) < limit {
			page.Items = append(page.Items, IndicatorChangeItem{Municipality: &c.towns[m], Change: ch.Values[m].V, Rank: ch.Ranks[m],
				Hensachi: ch.Hensachi[m], RankInPeers: ch.PeerRanks[m], From: c.IndicatorPoint(i, from, m), To: c.IndicatorPoint(i, to, m)})
		}
		page.Total++
	})
	return page
}

// IndicatorChangePosition is where row m stands in the ranking of indicator i's change from its
// from-th to its to-th survey year of a scope, counted from 0, as IndicatorChangePage lists it
// best first; ok is false when the ranking does not hold it.
func (c *Catalog) IndicatorChangePosition(i, from, to, m int, scope Scope) (pos int, ok bool) {
	if !c.has(scope, m) {
		return 0, false
	}
	for _, r := range c.IndicatorChange(i, from, to).order {
		if r == m {
			return pos, true
		}
		if c.has(scope, r) {
			pos++
		}
	}
	return 0, false
}

// walkRanked calls take with the n rows of a ranking (row(p) is the row at position p, best first,
// ties in code order; rank(m) the rank of row m) in an order: worst first takes the tied groups from
// the last, each still in code order, so that ties keep code order both ways.
func walkRanked(n int, row func(p int) int, rank func(m int) int, order Order, take func(m int)) {
	if order != WorstFirst {
		for p := range n {
			take(row(p))
		}
		return
	}
	for end := n; end > 0; {
		start := end - 1
		for start > 0 && rank(row(start-1)) == rank(row(end-1)) {
			start--
		}
		for p := start; p < end; p++ {
			take(row(p))
		}
		end = start
	}
}
