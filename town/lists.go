package town

import "github.com/hensachi/hensachi"

// The answers of the statistics API as values (shapes in serve/openapi.json), which serve encodes:
// lists, ranking pages and comparisons. A municipality is answered as itself (Municipality, Row),
// the meta document as Catalog.Meta, similar municipalities as a SimilarList.

// List is municipalities of one prefecture, or of the whole country when Prefecture is nil.
type List struct {
	Prefecture *hensachi.Prefecture
	Items      []*hensachi.Municipality
}

// List returns the municipalities of a prefecture ("" for the whole country) in code order: the
// list of GET /town/v1/municipalities and the rows of the bulk export. ok is false for an unknown
// prefecture.
func (c *Catalog) List(pref string) (l List, ok bool) {
	if pref == "" {
		l.Items = make([]*hensachi.Municipality, len(c.towns))
		for i := range c.towns {
			l.Items[i] = &c.towns[i]
		}
		return l, true
	}
	p, ok := c.prefs[pref]
	if !ok {
		return List{}, false
	}
	return List{Prefecture: &p, Items: c.InPrefecture(pref)}, true
}

// SearchList is what Search finds for query, of one prefecture ("" for all), in Search's order,
// all of them: GET /town/v1/municipalities?q=.
func (c *Catalog) SearchList(query, pref string) List {
	var l List
	if p, ok := c.prefs[pref]; ok {
		l.Prefecture = &p
	}
	l.Items = []*hensachi.Municipality{}
	for _, m := range c.Search(query, len(c.towns)) {
		if pref == "" || m.Prefecture.Code == pref {
			l.Items = append(l.Items, m)
		}
	}
	return l
}

// RankingPage is a page of a ranking (Ranking) with what it was asked for.
type RankingPage struct {
	Axis       int // into hensachi.Axes and Meta.Axes
	Order      Order
	Prefecture *hensachi.Prefecture // nil: the whole country
	PeerGroup  *hensachi.PeerGroup  // nil: every group
	// Total is how many are ranked (of the prefecture); Offset and Limit pick the page.
	Total, Offset, Limit int
	Items                []*hensachi.Municipality
}

// RankingPage returns a page of the ranking on axis a: GET /town/v1/rankings/{axis}.
func (c *Catalog) RankingPage(a int, order Order, scope Scope, offset, limit int) RankingPage {
	page := RankingPage{Axis: a, Order: order, Offset: offset, Limit: limit}
	page.Items, page.Total = c.Ranking(a, order, scope, offset, limit)
	page.Prefecture, page.PeerGroup = c.scopeOf(scope)
	return page
}

// scopeOf returns the prefecture and the group a scope picks, nil for all.
func (c *Catalog) scopeOf(s Scope) (*hensachi.Prefecture, *hensachi.PeerGroup) {
	var pref *hensachi.Prefecture
	if p, ok := c.prefs[s.Pref]; ok {
		pref = &p
	}
	g, _ := c.PeerGroup(s.Peers)
	return pref, g
}

// Medians are the national medians a comparison shows: of every axis's values and every
// statistic, in their order, null where no municipality has a value. A median of an even count is
// the mean of two values, so it has one decimal more than they have, and no more (the mean of
// 31.18 and 31.20 is 31.19, not 31.189999999999998).
type Medians struct {
	Scores []hensachi.Optional[float64] // by axis
	Stats  []hensachi.Optional[float64] // by statistic
}

// Comparison is municipalities side by side with the national medians: GET /town/v1/compare.
type Comparison struct {
	Items   []*hensachi.Municipality
	Medians *Medians // the catalog's, shared
}

// Compare returns the comparison of codes in their order; it fails with not_found naming the first
// unknown code.
func (c *Catalog) Compare(codes []string) (Comparison, error) {
	items, err := c.Lookup(codes)
	if err != nil {
		return Comparison{}, err
	}
	return Comparison{Items: items, Medians: &c.medians}, nil
}

// Medians returns the national medians of a comparison.
func (c *Catalog) Medians() *Medians { return &c.medians }

func (c *Catalog) comparedMedians() Medians {
	round := func(m hensachi.Optional[float64], f hensachi.Field) hensachi.Optional[float64] {
		if m.Valid {
			m.V = hensachi.Round(m.V, f.Decimals+1)
		}
		return m
	}
	var out Medians
	for a, ax := range hensachi.Axes {
		out.Scores = append(out.Scores, round(c.AxisMedian(a), ax))
	}
	for s, st := range hensachi.Stats {
		out.Stats = append(out.Stats, round(c.StatMedian(s), st))
	}
	return out
}
