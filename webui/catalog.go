package webui

import (
	"cmp"
	"slices"
	"strings"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/compute"
)

// Towns gives the pages the dataset being served.
type Towns interface {
	// Catalog returns the pages' view of the dataset being served. It is built once per dataset
	// version and holds its own copies, so it stays valid after the dataset is replaced.
	Catalog() (*Catalog, error)
}

// Catalog is what the statistics pages read: the municipalities in code order with the orders,
// groupings and medians the pages show, derived once per dataset.
type Catalog struct {
	Meta    hensachi.Meta
	Version string
	towns   []hensachi.Municipality
	byCode  map[string]int
	// byPref lists the rows of each prefecture in code order.
	byPref map[string][]int
	prefs  map[string]hensachi.Prefecture
	// ranking[a] lists the rows ranked on axis a, best first, ties in code order.
	ranking [][]int
	// statMedian[s] is the national median of statistic s over the municipalities that have it.
	statMedian []hensachi.Optional[float64]
	// searchKeys[i] is what a query is matched against: name, reading and prefecture.
	searchKeys []string
}

// NewCatalog derives the catalog of a dataset. The municipalities and meta must not share memory
// with a mapping that may go away: the catalog keeps them.
func NewCatalog(towns []hensachi.Municipality, meta hensachi.Meta, version string) *Catalog {
	c := &Catalog{Meta: meta, Version: version, towns: towns, byCode: make(map[string]int, len(towns)),
		byPref: map[string][]int{}, prefs: map[string]hensachi.Prefecture{}}
	for _, p := range meta.Prefectures {
		c.prefs[p.Code] = p
	}
	for i, m := range towns {
		c.byCode[m.Code] = i
		c.byPref[m.Prefecture.Code] = append(c.byPref[m.Prefecture.Code], i)
		c.searchKeys = append(c.searchKeys, searchKey(m.Name+" "+m.Kana+" "+m.Prefecture.Name+m.Name))
	}
	for a := range hensachi.Axes {
		var rows []int
		for i, m := range towns {
			if m.Scores[a].Value.Valid {
				rows = append(rows, i)
			}
		}
		slices.SortStableFunc(rows, func(x, y int) int { return cmp.Compare(towns[x].Scores[a].Rank, towns[y].Scores[a].Rank) })
		c.ranking = append(c.ranking, rows)
	}
	for s := range hensachi.Stats {
		var values []float64
		for _, m := range towns {
			if v := m.Stats[s]; v.Valid {
				values = append(values, v.V)
			}
		}
		if len(values) > 0 {
			c.statMedian = append(c.statMedian, hensachi.Some(compute.Summarize(values).Median))
		} else {
			c.statMedian = append(c.statMedian, hensachi.Optional[float64]{})
		}
	}
	return c
}

// Municipality returns the municipality of a code.
func (c *Catalog) Municipality(code string) (*hensachi.Municipality, bool) {
	i, ok := c.byCode[code]
	if !ok {
		return nil, false
	}
	return &c.towns[i], true
}

// Prefecture returns the prefecture of a 2-digit code and its municipalities in code order.
func (c *Catalog) Prefecture(code string) (hensachi.Prefecture, []*hensachi.Municipality, bool) {
	p, ok := c.prefs[code]
	if !ok {
		return hensachi.Prefecture{}, nil, false
	}
	rows := c.byPref[code]
	out := make([]*hensachi.Municipality, len(rows))
	for i, r := range rows {
		out[i] = &c.towns[r]
	}
	return p, out, true
}

// Ranking returns the municipalities ranked on axis a, best first, of one prefecture ("" for the
// whole country), and how many there are; offset and limit pick the page.
func (c *Catalog) Ranking(a int, pref string, offset, limit int) ([]*hensachi.Municipality, int) {
	var page []*hensachi.Municipality
	total := 0
	for _, r := range c.ranking[a] {
		if pref != "" && c.towns[r].Prefecture.Code != pref {
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

// Search finds municipalities whose name, reading (in hiragana or katakana, either width) or
// prefecture and name contain every word of the query, at most limit of them: exact names first,
// then names that start with the query, then the rest, each in code order.
func (c *Catalog) Search(query string, limit int) []*hensachi.Municipality {
	words := strings.Fields(searchKey(query))
	if len(words) == 0 {
		return nil
	}
	type hit struct{ row, class int }
	var hits []hit
	for i, key := range c.searchKeys {
		all := true
		for _, w := range words {
			if !strings.Contains(key, w) {
				all = false
				break
			}
		}
		if !all {
			continue
		}
		m := &c.towns[i]
		name, kana := searchKey(m.Name), m.Kana
		class := 2
		switch {
		case words[0] == name || words[0] == kana:
			class = 0
		case strings.HasPrefix(name, words[0]) || strings.HasPrefix(kana, words[0]):
			class = 1
		}
		hits = append(hits, hit{i, class})
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Compare(a.class, b.class) })
	out := make([]*hensachi.Municipality, 0, min(limit, len(hits)))
	for _, h := range hits[:min(limit, len(hits))] {
		out = append(out, &c.towns[h.row])
	}
	return out
}

// searchKey folds text for matching: kana to full-width hiragana, letters and digits to full width,
// latin letters to one case.
func searchKey(s string) string {
	return hensachi.Hiragana(strings.ToLower(s))
}
