// Package town is the read model of one dataset version: the municipalities copied out of the
// mapped file, looked up by code, ranked per axis, grouped per prefecture, with the national
// medians, the search keys and the similar municipalities. It is derived once per dataset version
// (Catalogs) and read by both transports, the JSON API (package serve) and the pages (package
// web/site), so that the two cannot disagree. It answers in values — municipalities, lists,
// ranking pages, similar lists, comparisons — and knows no wire format: the API's JSON is serve's,
// the bulk files package export's, each kept with the catalog it was made from (Memo).
package town

import (
	"cmp"
	"slices"
	"strings"
	"sync"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/compute"
	"github.com/hensachi/hensachi/dataset"
)

// Catalog is the read model of one dataset version. It holds its own copies of everything it
// serves, so a reader may keep it after the dataset is replaced and its file unmapped.
type Catalog struct {
	Meta    hensachi.Meta
	Version string
	baseURL string
	towns   []hensachi.Municipality // in code order
	byCode  map[string]int
	prefs   map[string]hensachi.Prefecture
	// byPref lists the rows of each prefecture in code order.
	byPref map[string][]int
	// ranking[a] lists the rows ranked on axis a, best first, ties in code order; ascending[a]
	// the same rows worst first, ties still in code order.
	ranking, ascending [][]int
	// statMedian[s] is the national median of statistic s over the municipalities that have it.
	statMedian []hensachi.Optional[float64]
	// search[i] is what a query is matched against for row i (searchEntry); wards are the
	// designated cities' wards, which find their city, and wardsOf[i] the wards of row i.
	search  []searchEntry
	wards   []ward
	wardsOf map[int][]int
	// neighbours[i] are the municipalities nearest to row i, nearest first (Similar).
	neighbours [][]neighbour
	medians    Medians
	// peers are the 類似団体 of the latest census, which the meta served does not list (peers.go)
	peers      *peers
	indicators *indicators // shared by the catalogs of one dataset version
	// boundaries are nil when the maps are off; Meta.Boundaries says why
	boundaries *Boundaries
	// memos holds what other packages derive from this version (Memo), by *Memo.
	memos sync.Map
}

// FromDataset derives the catalog of a mapped dataset, copying out every string it keeps.
// baseURL is where users reach the pages, for the page_url of each municipality. The files of one
// content (version) have one catalog per base URL while a holder keeps it, and with it what is
// derived from it (Memo): the long tables, maps and encoded bodies are not made twice.
func FromDataset(ds *dataset.Dataset, baseURL string) *Catalog {
	return catalogsByVersion.get([2]string{ds.Version, strings.TrimSuffix(baseURL, "/")}, func() *Catalog { return fromDataset(ds, baseURL) })
}

// catalogsByVersion holds the catalogs of the dataset files by version and base URL.
var catalogsByVersion shared[[2]string, Catalog]

func fromDataset(ds *dataset.Dataset, baseURL string) *Catalog {
	towns := make([]hensachi.Municipality, ds.Len())
	for i := range towns {
		m := ds.Municipality(i)
		m.Code, m.Name, m.Kana = strings.Clone(m.Code), strings.Clone(m.Name), strings.Clone(m.Kana)
		m.Prefecture = hensachi.Prefecture{Code: strings.Clone(m.Prefecture.Code), Name: strings.Clone(m.Prefecture.Name)}
		towns[i] = m
	}
	c := New(towns, ds.Meta, ds.Version, baseURL)
	c.indicators = rankedByVersion.get(ds.Version, func() *indicators {
		in := rankIndicators(len(towns), c.peers, ds.Indicators, func(i, k int, dst []hensachi.Optional[float64]) {
			for m := range dst {
				dst[m] = ds.IndicatorValue(i, k, m)
			}
		})
		in.itemNames = ds.ItemNames // decoded from the file's metadata: no memory of the mapping
		return in
	})
	return c.withDatasetBoundaries(ds)
}

// New derives the catalog of municipalities in code order. They and meta must not share memory
// with a mapping that may go away: the catalog keeps them.
func New(towns []hensachi.Municipality, meta hensachi.Meta, version, baseURL string) *Catalog {
	meta.Method += SimilarMethod // the neighbours are this read model's, so their method is added here
	wards := meta.Wards
	meta.Wards = nil // for the search alone: the meta document served does not list them
	groups := meta.PeerGroups
	meta.PeerGroups = nil // answered by their own calls, their members too many for the meta
	c := &Catalog{Meta: meta, Version: version, baseURL: strings.TrimSuffix(baseURL, "/"), indicators: &indicators{},
		towns: towns, byCode: make(map[string]int, len(towns)), prefs: map[string]hensachi.Prefecture{}, byPref: map[string][]int{}}
	for _, p := range meta.Prefectures {
		c.prefs[p.Code] = p
	}
	for i, m := range towns {
		c.byCode[m.Code] = i
		c.byPref[m.Prefecture.Code] = append(c.byPref[m.Prefecture.Code], i)
		c.search = append(c.search, municipalityEntry(&towns[i]))
	}
	c.setWards(wards)
	for a := range hensachi.Axes {
		var rows []int
		for i, m := range towns {
			if m.Scores[a].Value.Valid {
				rows = append(rows, i)
			}
		}
		rank := func(i int) int { return towns[i].Scores[a].Rank }
		slices.SortStableFunc(rows, func(x, y int) int { return cmp.Compare(rank(x), rank(y)) })
		c.ranking = append(c.ranking, rows)
		worst := slices.Clone(rows)
		slices.SortStableFunc(worst, func(x, y int) int { return cmp.Compare(rank(y), rank(x)) })
		c.ascending = append(c.ascending, worst)
	}
	for s := range hensachi.Stats {
		var values []float64
		for _, m := range towns {
			if v := m.Stats[s]; v.Valid {
				values = append(values, v.V)
			}
		}
		median := hensachi.Optional[float64]{}
		if len(values) > 0 {
			median = hensachi.Some(compute.Summarize(values).Median)
		}
		c.statMedian = append(c.statMedian, median)
	}
	c.peers = newPeers(groups, towns, c.byCode, c.ranking)
	c.neighbours = findNeighbours(towns)
	c.medians = c.comparedMedians()
	return c
}

// Len is the number of municipalities.
func (c *Catalog) Len() int { return len(c.towns) }

// Row returns the municipality of row i, 0 ≤ i < Len, rows in code order.
func (c *Catalog) Row(i int) *hensachi.Municipality { return &c.towns[i] }

// Index returns the row of a municipality code, or -1.
func (c *Catalog) Index(code string) int {
	if i, ok := c.byCode[code]; ok {
		return i
	}
	return -1
}

// Municipality returns the municipality of a code.
func (c *Catalog) Municipality(code string) (*hensachi.Municipality, bool) {
	i, ok := c.byCode[code]
	if !ok {
		return nil, false
	}
	return &c.towns[i], true
}

// Lookup returns the municipalities of codes in their order; it fails with not_found naming the
// first unknown code.
func (c *Catalog) Lookup(codes []string) ([]*hensachi.Municipality, error) {
	out := make([]*hensachi.Municipality, len(codes))
	for k, code := range codes {
		i, ok := c.byCode[code]
		if !ok {
			return nil, notFound(code)
		}
		out[k] = &c.towns[i]
	}
	return out, nil
}

// PageURL is where users reach the page of a municipality.
func (c *Catalog) PageURL(m *hensachi.Municipality) string {
	return c.baseURL + "/town/municipalities/" + m.Code
}

// Prefecture returns the prefecture of a 2-digit code.
func (c *Catalog) Prefecture(code string) (hensachi.Prefecture, bool) {
	p, ok := c.prefs[code]
	return p, ok
}

// InPrefecture returns the municipalities of a prefecture in code order.
func (c *Catalog) InPrefecture(code string) []*hensachi.Municipality {
	rows := c.byPref[code]
	out := make([]*hensachi.Municipality, len(rows))
	for i, r := range rows {
		out[i] = &c.towns[r]
	}
	return out
}

// Order is the direction of a ranking, as the API's order parameter names it.
type Order string

const (
	BestFirst  Order = "desc" // highest deviation score first
	WorstFirst Order = "asc"
)

// Scope picks the municipalities a ranking lists: of a prefecture, of a 類似団体, of both, or,
// zero, of the whole country. Ranks stay national whatever it picks.
type Scope struct {
	Pref  string // a prefecture's code, "" for every prefecture
	Peers string // a group's code (hensachi.PeerGroup.Code), "" for every group
}

// has reports whether row r is in the scope.
func (c *Catalog) has(s Scope, r int) bool {
	if s.Pref != "" && c.towns[r].Prefecture.Code != s.Pref {
		return false
	}
	if s.Peers == "" {
		return true
	}
	g := c.peers.of[r]
	return g >= 0 && c.peers.groups[g].Code == s.Peers
}

// Ranking returns the municipalities of a scope ranked on axis a in an order, and how many there
// are; offset and limit pick the page. Ties stay in code order both ways, and ranks are national
// ones.
func (c *Catalog) Ranking(a int, order Order, scope Scope, offset, limit int) ([]*hensachi.Municipality, int) {
	rows := c.ranking[a]
	if order == WorstFirst {
		rows = c.ascending[a]
	}
	var page []*hensachi.Municipality
	total := 0
	for _, r := range rows {
		if !c.has(scope, r) {
			continue
		}
		if total >= offset && len(page) < limit {
			page = append(page, &c.towns[r])
		}
		total++
	}
	return page, total
}

// RankTotal is the number of municipalities ranked on axis a.
func (c *Catalog) RankTotal(a int) int { return len(c.ranking[a]) }

// StatMedian is the national median of statistic s.
func (c *Catalog) StatMedian(s int) hensachi.Optional[float64] { return c.statMedian[s] }

// AxisMedian is the national median of the values of axis a (the meta document's), null when no
// municipality has one.
func (c *Catalog) AxisMedian(a int) hensachi.Optional[float64] {
	if c.Meta.Axes[a].Count == 0 {
		return hensachi.Optional[float64]{}
	}
	return hensachi.Some(c.Meta.Axes[a].Median)
}
