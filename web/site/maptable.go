package site

import (
	"html"
	"html/template"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/compute"
	"github.com/hensachi/hensachi/internal/param"
	"github.com/hensachi/hensachi/town"
)

// A map's colour bands and its table of values. A prefecture map's colours are read against the
// prefecture's own distribution by default (bands=pref): against the country's, a prefecture's
// municipalities fall in a class or two (all 23 wards of Tokyo in the top one for income), and
// the map tells nothing about them. bands=national reads them against the country's, so that
// two prefectures' maps compare. Under the map a table gives every value the map colours, for
// those who cannot read the colours or the map (a screen reader).

// mapBands are the distributions a prefecture map's colours may be read against, the default
// first.
var mapBands = []string{"pref", "national"}

// bandOption is an entry of the map form's choice of bands.
type bandOption struct {
	Value, Label string
	Selected     bool
}

// within is the standing of rows alone, the others left without a value: a prefecture's ranks and
// deviation scores among its own municipalities.
func (st standing) within(rows []int, lowerIsBetter bool) standing {
	values := make([]hensachi.Optional[float64], len(st.values))
	for _, i := range rows {
		values[i] = st.values[i]
	}
	return standing{values: values, Standing: compute.StandOriented(values, lowerIsBetter)}
}

// mapTableRows is how many rows one page of the national map's table shows; a prefecture's is
// whole (北海道's 179 rows make its page 145 KB, of the 200 KB budget). Measured on the real
// data, the national page is 365 KB (92 KB gzipped, the map's 1,741 paths and titles most of it)
// before the table, of its 400 KB budget, and each row adds some 150 bytes (25 gzipped): all
// 1,741 would add 260 KB (43 KB gzipped). So the national table is paged, 100 rows a page (15 KB,
// 2.5 KB gzipped), in the order asked for; the ranking pages list a measure whole too.
const mapTableRows = 100

// mapSorts are the table's orders, the default first: rank (best first), the reading of the name
// (あいうえお順) and the code (north to south, as the code list runs).
var mapSorts = []struct{ key, label string }{{"rank", "順位順"}, {"name", "50 音順"}, {"code", "地域順"}}

// mapTable is the table of a map's values, a page of its rows written out (Rows) with links to
// its other orders and pages, all keeping the map's parameters.
type mapTable struct {
	Caption  string
	Where    string // the prefecture whose ranks a second column gives, "" on the national map
	Sorts    []sortLink
	Rows     template.HTML
	Pages    []pageLink
	Span     string // which rows of how many
	Open     bool   // open when a link of its own was followed, so that the reader lands on it
	PrefRank bool
}

// sortLink is one of the table's orders: its label, and its address unless it is the current one.
type sortLink struct {
	Label, URL string
	Current    bool
}

// mapTableOf reads the table's order (sort) and page (page) and writes that page of rows: d's
// municipalities with their value, their national rank (nat) and, on a prefecture map, their rank
// there (local). link is the address of the map with the given order and page.
func mapTableOf(c *town.Catalog, q param.Query, d *drawnMap, m measure, nat, local standing, where string, link func(sort string, page int) string) (mapTable, error) {
	keys := make([]string, len(mapSorts))
	for k, s := range mapSorts {
		keys[k] = s.key
	}
	sort, err := param.Choice(q, "sort", keys...)
	if err != nil {
		return mapTable{}, err
	}
	size := max(len(d.Rows), 1)
	if where == "" {
		size = mapTableRows
	}
	pages := (len(d.Rows) + size - 1) / size
	n, err := param.Int(q, "page", 1, 1, max(pages, 1))
	if err != nil {
		return mapTable{}, err
	}
	t := mapTable{Where: where, PrefRank: local.values != nil, Open: q.Has("sort") || q.Has("page")}
	rank := nat
	if t.PrefRank {
		rank = local
	}
	rows := slices.Clone(d.Rows)
	switch sort {
	case "rank": // best first, those without a value last, in code order among equals
		slices.SortStableFunc(rows, func(a, b int) int {
			ra, rb := rank.Rank[a], rank.Rank[b]
			if ra == 0 || rb == 0 {
				return rb - ra // 0 is no value
			}
			return ra - rb
		})
	case "name":
		slices.SortStableFunc(rows, func(a, b int) int { return strings.Compare(c.Row(a).Kana, c.Row(b).Kana) })
	}
	from := (n - 1) * size
	page := rows[from:min(from+size, len(rows))]
	var b strings.Builder
	b.Grow(len(page) * 120)
	for _, i := range page {
		town := c.Row(i)
		b.WriteString(`<tr><th scope=row><a href=municipalities/` + town.Code + `>` + html.EscapeString(town.Name) + `</a>`)
		if where == "" {
			b.WriteString(` <small>` + html.EscapeString(town.Prefecture.Name) + `</small>`)
		}
		b.WriteString(`</th><td class=n>` + html.EscapeString(withUnit(nat.values[i], m.Field)) + `</td>`)
		if local.values != nil {
			b.WriteString(`<td class=n>` + rankText(local.Rank[i]) + `</td>`)
		}
		b.WriteString(`<td class=n>` + rankText(nat.Rank[i]) + "</td></tr>\n")
	}
	t.Rows = template.HTML(b.String())
	label := ""
	for _, s := range mapSorts {
		t.Sorts = append(t.Sorts, sortLink{Label: s.label, URL: link(s.key, 1), Current: s.key == sort})
		if s.key == sort {
			label = s.label
		}
	}
	area := where
	if area == "" {
		area = "全国"
	}
	t.Span = integer(len(d.Rows)) + " 市区町村"
	if pages > 1 {
		t.Span = integer(len(d.Rows)) + " 市区町村中 " + integer(from+1) + "〜" + integer(from+len(page))
		for k := 1; k <= pages; k++ {
			t.Pages = append(t.Pages, pageLink{N: k, URL: link(sort, k), Current: k == n})
		}
	}
	t.Caption = m.Label + "の値と順位（" + area + "、" + label + "、" + t.Span + "）"
	return t, nil
}

// rankText is a rank as the table writes it, a dash for none.
func rankText(r int) string {
	if r == 0 {
		return "—"
	}
	return integer(r)
}

// mapLink is the address of a map: its measure, prefecture, bands and 類似団体, and the order and
// page of its table, each left out when it is the default.
func mapLink(key, pref, bands, peerGroup, sort string, page int) string {
	v := url.Values{"m": {key}}
	if pref != "" {
		v.Set("pref", pref)
	}
	if peerGroup != "" {
		v.Set("peer_group", peerGroup)
	}
	if bands != mapBands[0] && pref != "" {
		v.Set("bands", bands)
	}
	if sort != mapSorts[0].key {
		v.Set("sort", sort)
	}
	if page > 1 {
		v.Set("page", strconv.Itoa(page))
	}
	return "/town/map?" + v.Encode()
}
