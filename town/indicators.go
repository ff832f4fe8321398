package town

import (
	"math"
	"slices"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/compute"
)

// The indicators: the catalogue, every municipality's value in every survey year, and the ranks
// and deviation scores, which the dataset does not store: they are computed here, once per
// dataset version (rankedByVersion), by the method of the axes (compute.Stand), so that a call
// only reads them.

// indicatorCell is one municipality's standing on an indicator in one survey year. A rank and a
// deviation score in tenths fit in 16 bits for the country's 1,741 municipalities.
type indicatorCell struct {
	value  float64 // NaN where the municipality has no value
	rank   int16   // national competition rank, 0 without a value
	tenths int16   // deviation score × 10, exact since the score has one decimal
	// peerRank is the rank within the municipality's 類似団体 (peers.go), 0 without a value or
	// group; it takes the cell's padding.
	peerRank int16
}

// indicators is the catalogue and every standing. The cells are kept municipality by
// municipality, each municipality's indicators and years side by side, so that one municipality's
// whole catalogue is read from one stretch of memory; a year's ranking order is kept apart.
type indicators struct {
	method string
	// itemNames name the items the formulas take (dataset.Dataset.ItemNames), nil without them
	itemNames map[string]string
	list      []hensachi.Indicator
	byKey     map[string]int
	byGroup   map[string][]int
	first     []int // the position of indicator i's first year in a municipality's cells
	width     int   // cells per municipality: every year of every indicator
	cells     []indicatorCell
	// order[i][k] lists the rows with a value in indicator i's k-th year, best first (the lowest
	// value first where less is better, else the highest), ties in code order.
	order [][][]int16
}

// maxRows is how many municipalities a catalog with indicators may have: rows and ranks are kept
// in 16 bits.
const maxRows = math.MaxInt16

// WithIndicators adds the indicator catalogue and its values (hensachi.IndicatorValues, rows in
// the catalog's order) to a catalog and ranks every indicator in every survey year; it returns the
// catalog, and must be called before the catalog is shared. It panics when values does not fit
// the catalogue or the catalog, which the dataset file checks before.
func (c *Catalog) WithIndicators(cat hensachi.IndicatorCatalogue, values hensachi.IndicatorValues) *Catalog {
	if len(values) != len(cat.Indicators) {
		panic("town: indicator values do not fit the catalogue")
	}
	return c.withIndicators(cat, func(i, k int, dst []hensachi.Optional[float64]) {
		if len(values[i][k]) != len(dst) {
			panic("town: indicator values do not fit the catalog")
		}
		copy(dst, values[i][k])
	})
}

// withIndicators is WithIndicators with the values read by read, which fills dst with indicator
// i's values in its k-th survey year.
func (c *Catalog) withIndicators(cat hensachi.IndicatorCatalogue, read func(i, k int, dst []hensachi.Optional[float64])) *Catalog {
	c.indicators = rankIndicators(len(c.towns), c.peers, cat, read)
	return c
}

// rankIndicators ranks every indicator of cat in every survey year over rows municipalities,
// nationally and within their groups p.
func rankIndicators(rows int, p *peers, cat hensachi.IndicatorCatalogue, read func(i, k int, dst []hensachi.Optional[float64])) *indicators {
	if rows > maxRows {
		panic("town: too many municipalities to rank indicators in 16 bits")
	}
	in := &indicators{method: cat.Method, list: cat.Indicators, byKey: map[string]int{}, byGroup: map[string][]int{},
		first: make([]int, len(cat.Indicators)), order: make([][][]int16, len(cat.Indicators))}
	for i, ind := range cat.Indicators {
		in.byKey[ind.Key] = i
		in.byGroup[ind.Group] = append(in.byGroup[ind.Group], i)
		in.first[i] = in.width
		in.width += len(ind.Years)
	}
	in.cells = make([]indicatorCell, rows*in.width)
	values := make([]hensachi.Optional[float64], rows)
	for i, ind := range cat.Indicators {
		for k := range ind.Years {
			read(i, k, values)
			s := compute.StandOriented(values, ind.LowerIsBetter())
			within := p.ranksWithin(s.Order, func(m int) int { return s.Rank[m] })
			col := in.first[i] + k
			for m, v := range values {
				cell := &in.cells[m*in.width+col]
				cell.value = math.NaN()
				if v.Valid {
					cell.value, cell.rank, cell.tenths = v.V, int16(s.Rank[m]), int16(math.Round(s.Hensachi[m]*10))
					cell.peerRank = int16(within[m])
				}
			}
			order := make([]int16, len(s.Order))
			for p, m := range s.Order {
				order[p] = int16(m)
			}
			in.order[i] = append(in.order[i], order)
		}
	}
	return in
}

// rankedByVersion holds the ranked indicators of each dataset version (some 2,700 columns).
var rankedByVersion shared[string, indicators]

// cell returns row m's standing on indicator i in its k-th year.
func (in *indicators) cell(i, k, m int) *indicatorCell {
	return &in.cells[m*in.width+in.first[i]+k]
}

// point is a cell as the answers give it.
func (cell *indicatorCell) point(year int) IndicatorPoint {
	p := IndicatorPoint{Year: year}
	if v := cell.value; v == v { // not NaN
		p.Value, p.Rank, p.Hensachi = hensachi.Some(v), int(cell.rank), float64(cell.tenths)/10
		p.RankInPeers = int(cell.peerRank)
	}
	return p
}

// IndicatorPoint is a municipality's standing on an indicator in one survey year. Rank (national)
// and Hensachi are valid exactly when Value is; RankInPeers, the rank within the municipality's
// 類似団体 (Catalog.RankInPeers), when Value is and it has a group, 0 otherwise.
type IndicatorPoint struct {
	Year        int
	Value       hensachi.Optional[float64]
	Rank        int
	Hensachi    float64
	RankInPeers int
}

// IndicatorMethod explains how the indicators are computed and ranked.
func (c *Catalog) IndicatorMethod() string { return c.indicators.method }

// ItemName is the name in its source of an item an indicator's formula takes, as the formula
// writes it (A4101: 出生数, finance.財政力指数: 財政力指数); "" where the dataset does not name it.
func (c *Catalog) ItemName(item string) string { return c.indicators.itemNames[item] }

// WithItemNames gives the catalog's indicators the names of their formulas' items (ItemName), as a
// dataset does; it must be called after WithIndicators and before the catalog is shared.
func (c *Catalog) WithItemNames(names map[string]string) *Catalog {
	c.indicators.itemNames = names
	return c
}

// Indicators returns the catalogue's entries of a group ("" for all) in catalogue order, each
// with its years and their national summaries. An unknown group has none (param.IndicatorGroup
// tells a group from a typo).
func (c *Catalog) Indicators(group string) []*hensachi.Indicator {
	idx := c.IndicatorGroupIndexes(group)
	out := make([]*hensachi.Indicator, len(idx))
	for j, i := range idx {
		out[j] = &c.indicators.list[i]
	}
	return out
}

// IndicatorIndex returns the position of an indicator key in the catalogue, or -1.
func (c *Catalog) IndicatorIndex(key string) int {
	if i, ok := c.indicators.byKey[key]; ok {
		return i
	}
	return -1
}

// Indicator returns the entry of indicator i, 0 ≤ i < len(Indicators("")).
func (c *Catalog) Indicator(i int) *hensachi.Indicator { return &c.indicators.list[i] }

// IndicatorPoint returns row m's standing on indicator i in its k-th survey year
// (Indicator(i).Years[k]).
func (c *Catalog) IndicatorPoint(i, k, m int) IndicatorPoint {
	return c.indicators.cell(i, k, m).point(c.indicators.list[i].Years[k].Year)
}

// IndicatorRankingPage is a page of the ranking on one indicator in one survey year, with what it
// was asked for: GET /town/v1/indicators/{key}.
type IndicatorRankingPage struct {
	Indicator  *hensachi.Indicator
	Year       int
	Order      Order
	Prefecture *hensachi.Prefecture // nil: the whole country
	PeerGroup  *hensachi.PeerGroup  // nil: every group
	// Total is how many are ranked (of the scope); Offset and Limit pick the page.
	Total, Offset, Limit int
	Items                []IndicatorRankItem
}

// IndicatorRankItem is one municipality of an indicator's ranking with its standing.
type IndicatorRankItem struct {
	Municipality *hensachi.Municipality
	IndicatorPoint
}

// IndicatorRankingPage returns a page of the ranking on indicator i in its k-th survey year, of
// a scope: ranks are national ones, ties stay in code order both ways, as on the axes
// (RankingPage).
func (c *Catalog) IndicatorRankingPage(i, k int, order Order, scope Scope, offset, limit int) IndicatorRankingPage {
	ind := &c.indicators.list[i]
	ranked := c.indicators.order[i][k]
	page := IndicatorRankingPage{Indicator: ind, Year: ind.Years[k].Year, Order: order, Offset: offset, Limit: limit}
	page.Prefecture, page.PeerGroup = c.scopeOf(scope)
	walkRanked(len(ranked), func(p int) int { return int(ranked[p]) }, func(m int) int { return int(c.indicators.cell(i, k, m).rank) }, order, func(m int) {
		if !c.has(scope, m) {
			return
		}
		if page.Total >= offset && len(page.Items) < limit {
			page.Items = append(page.Items, IndicatorRankItem{Municipality: &c.towns[m], IndicatorPoint: c.indicators.cell(i, k, m).point(page.Year)})
		}
		page.Total++
	})
	return page
}

// MunicipalityIndicator is a municipality's standing on one indicator: in the indicator's latest
// survey year (null there when the municipality has no value in it) and in every year.
type MunicipalityIndicator struct {
	Indicator *hensachi.Indicator
	Latest    IndicatorPoint
	// RankTotal is how many municipalities are ranked in the latest year.
	RankTotal int
	// Series has every survey year of the indicator, oldest first.
	Series []IndicatorPoint
}

// MunicipalityIndicators returns row m's standing on the indicators idx, in their order:
// GET /town/v1/municipalities/{code}/indicators.
func (c *Catalog) MunicipalityIndicators(m int, idx []int) []MunicipalityIndicator {
	n := 0
	for _, i := range idx {
		n += len(c.indicators.list[i].Years)
	}
	points := make([]IndicatorPoint, n) // one allocation for every series
	out := make([]MunicipalityIndicator, len(idx))
	in := c.indicators
	row := in.cells[m*in.width : (m+1)*in.width]
	for j, i := range idx {
		ind := &in.list[i]
		series := points[:len(ind.Years):len(ind.Years)]
		points = points[len(ind.Years):]
		for k := range ind.Years {
			series[k] = row[in.first[i]+k].point(ind.Years[k].Year)
		}
		last := len(ind.Years) - 1
		out[j] = MunicipalityIndicator{Indicator: ind, Latest: series[last], RankTotal: ind.Years[last].Count, Series: series}
	}
	return out
}

// IndicatorGroupIndexes returns the indicators of a group ("" for all), in catalogue order.
func (c *Catalog) IndicatorGroupIndexes(group string) []int {
	if group == "" {
		idx := make([]int, len(c.indicators.list))
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	return slices.Clone(c.indicators.byGroup[group])
}

// IndicatorColumn is one indicator's standing of every municipality in one survey year, in row
// order: for the bulk export and the maps.
type IndicatorColumn struct {
	Indicator *hensachi.Indicator
	Year      int
	Values    []hensachi.Optional[float64]
	Ranks     []hensachi.Optional[int64] // national
	Hensachi  []hensachi.Optional[float64]
	RankTotal int
}

// IndicatorColumn returns indicator i's column in its k-th survey year.
func (c *Catalog) IndicatorColumn(i, k int) IndicatorColumn {
	ind := &c.indicators.list[i]
	col := IndicatorColumn{Indicator: ind, Year: ind.Years[k].Year, RankTotal: ind.Years[k].Count,
		Values: make([]hensachi.Optional[float64], len(c.towns)), Ranks: make([]hensachi.Optional[int64], len(c.towns)),
		Hensachi: make([]hensachi.Optional[float64], len(c.towns))}
	for m := range c.towns {
		if p := c.indicators.cell(i, k, m).point(col.Year); p.Value.Valid {
			col.Values[m], col.Ranks[m], col.Hensachi[m] = p.Value, hensachi.Some(int64(p.Rank)), hensachi.Some(p.Hensachi)
		}
	}
	return col
}

// Among is a municipality's standing on an indicator in one survey year among some municipalities
// (its prefecture's, its 類似団体's): its rank among those of them with a value, by their national
// ranks, so that it is oriented as the national rank is and ties share a rank; how many of them
// have a value; and their median, rounded as the national median is (one decimal more than the
// values).
type Among struct {
	Rank   int // 0 when the municipality has no value in the year
	Total  int
	Median hensachi.Optional[float64]
}

// IndicatorAmong returns row m's standing on indicator i in its k-th survey year among rows. It
// reads their cells alone, so that a page asks it for a few groups of a few hundred rows, not the
// country.
func (c *Catalog) IndicatorAmong(i, k, m int, rows []int) Among {
	in := c.indicators
	own := in.cell(i, k, m)
	var a Among
	values := make([]hensachi.Optional[float64], 0, len(rows))
	for _, r := range rows {
		cell := in.cell(i, k, r)
		if cell.value != cell.value { // NaN: no value
			continue
		}
		values = append(values, hensachi.Some(cell.value))
		if own.rank > 0 && cell.rank < own.rank {
			a.Rank++ // one more ahead
		}
	}
	if a.Total = len(values); a.Total > 0 {
		a.Median = hensachi.Some(compute.RoundedSummary(values, in.list[i].Decimals).Median)
	}
	if own.rank > 0 {
		a.Rank++
	} else {
		a.Rank = 0
	}
	return a
}

// IndicatorInPrefecture is row m's standing on indicator i in its k-th survey year among its
// prefecture's municipalities (IndicatorAmong).
func (c *Catalog) IndicatorInPrefecture(i, k, m int) Among {
	return c.IndicatorAmong(i, k, m, c.byPref[c.towns[m].Prefecture.Code])
}

// IndicatorPosition returns where row m stands in the ranking on indicator i in its k-th survey
// year, best first, of a scope, counted from 0 as IndicatorRankingPage's offset is; ok is false
// when the ranking does not hold m (no value, or outside the scope).
func (c *Catalog) IndicatorPosition(i, k, m int, scope Scope) (pos int, ok bool) {
	if !c.has(scope, m) {
		return 0, false
	}
	for _, r := range c.indicators.order[i][k] {
		if int(r) == m {
			return pos, true
		}
		if c.has(scope, int(r)) {
			pos++
		}
	}
	return 0, false
}
