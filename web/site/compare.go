package site

import (
	"html/template"
	"slices"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/param"
	"github.com/hensachi/hensachi/town"
	"github.com/hensachi/hensachi/web/page"
)

// The side-by-side comparison of up to ten municipalities.

type compareChart struct {
	Axis  hensachi.Field
	Chart template.HTML
}

// compareRow is a line of the comparison's table. A value is its pieces, each unbroken
// (page.Nowrap), that a narrow column may put on lines of their own: 58.2 and （12.89）, an amount
// and its rank.
type compareRow struct {
	Label  string
	Note   template.HTML
	Values []template.HTML
	Median string
}

type comparePage struct {
	page.Base
	Towns   []*hensachi.Municipality
	Members []compareMember
	Nearby  []compareMember // the first one's nearest, to add, while there is room
	// NearbyOrder says which Nearby are: the first one's nearest, or, when it has too few values
	// to have any, its prefecture's municipalities
	NearbyOrder string
	Charts      []compareChart
	Scores      []compareRow
	Stats       []compareRow
	Furusato    []compareRow
	CSV         string
	// NoResidents explains each compared municipality's population of 0 (noResidents)
	NoResidents []string
}

// compareMember is a municipality with the comparison's address after adding or removing it
// (empty when that would leave none or more than param.MaxCompared).
type compareMember struct {
	*hensachi.Municipality
	Link string
}

// nearbyToAdd is how many of the first municipality's nearest the page offers to add.
const nearbyToAdd = 5

func (s *Site) compare(c *town.Catalog, q param.Query, _ httprouter.Params) (string, any, error) {
	towns, err := param.Compared(c, q, 1)
	if err != nil {
		return "", nil, err
	}
	list := codeList(towns)
	var names []string
	for _, m := range towns {
		names = append(names, m.Name)
	}
	title := strings.Join(names, "・") + "の比較"
	if len(towns) == 1 {
		title = names[0] + "と比べる市区町村を選ぶ"
	}
	p := comparePage{Towns: towns, CSV: "/town/municipalities.csv?codes=" + list,
		Base: s.base(c, title, strings.Join(names, "、")+"の 6 軸の偏差値と 16 の統計を並べて比べる。", "/town/compare?codes="+list)}
	for a, axis := range hensachi.Axes {
		row := compareRow{Label: axis.Label, Note: "偏差値（値 " + page.Nowrap(axis.Unit) + "）", Median: "50（" + withUnit(c.AxisMedian(a), hensachi.Field{Decimals: axis.Decimals}) + "）"}
		var bars []scoreBar
		for _, m := range towns {
			sc := m.Scores[a]
			bars = append(bars, scoreBar{Label: m.Name, Hensachi: sc.Hensachi, Valid: sc.Value.Valid})
			v := template.HTML("—")
			if sc.Value.Valid {
				v = page.Nowrap(strconv.FormatFloat(sc.Hensachi, 'f', 1, 64)) + page.Nowrap("（"+number(sc.Value.V, axis.Decimals)+"）")
			}
			row.Values = append(row.Values, v)
		}
		p.Charts = append(p.Charts, compareChart{Axis: axis, Chart: scoreChart("compare-"+axis.Key, axis.Label+"の偏差値（50が全国の真ん中）", bars)})
		p.Scores = append(p.Scores, row)
	}
	for st, stat := range hensachi.Stats {
		row := compareRow{Label: stat.Label, Median: withUnit(c.StatMedian(st), stat)}
		for _, m := range towns {
			row.Values = append(row.Values, page.Nowrap(withUnit(m.Stats[st], stat)))
		}
		p.Stats = append(p.Stats, row)
	}
	p.Furusato = compareFurusato(c, towns)
	p.Members, p.Nearby, p.NearbyOrder = compareLinks(c, towns)
	for _, m := range towns {
		if note := noResidents(c, m); note != "" {
			p.NoResidents = append(p.NoResidents, note)
		}
	}
	return "compare", p, nil
}

// compareFurusato are the hometown-tax rows of a comparison: receipts with their national rank,
// their count, and the balance of receipts and the residents' deductions.
func compareFurusato(c *town.Catalog, towns []*hensachi.Municipality) []compareRow {
	f := c.Meta.Furusato
	rows := []compareRow{
		{Label: "ふるさと納税の受入額", Note: template.HTML(template.HTMLEscapeString(f.Receipts.FiscalYear)) + "・全国順位"},
		{Label: "ふるさと納税の受入件数", Note: template.HTML(template.HTMLEscapeString(f.Receipts.FiscalYear))},
		{Label: "ふるさと納税の収支", Note: "受入額 − 住民の寄附による控除額（" + template.HTML(template.HTMLEscapeString(f.Deductions.TaxYear)) + "）"},
	}
	for _, m := range towns {
		mf := m.Furusato
		receipts := page.Nowrap(yen(mf.ReceiptsYen))
		if mf.ReceiptsYen.Valid {
			receipts += page.Nowrap("（" + integer(mf.ReceiptsRank) + " 位）")
		}
		rows[0].Values = append(rows[0].Values, receipts)
		rows[1].Values = append(rows[1].Values, page.Nowrap(count(mf.ReceiptsCount, "件")))
		rows[2].Values = append(rows[2].Values, page.Nowrap(yen(mf.BalanceYen)))
	}
	return rows
}

// compareLinks are the comparison's members, each with the address without it, and the first
// member's nearest municipalities not in it, each with the address with it, or, when it has too
// few values to have nearest ones (双葉町), the first of its prefecture's, so that a comparison of
// one always offers others; order says which.
func compareLinks(c *town.Catalog, towns []*hensachi.Municipality) (members, nearby []compareMember, order string) {
	link := func(list []*hensachi.Municipality) string { return "/town/compare?codes=" + codeList(list) }
	for i, m := range towns {
		member := compareMember{Municipality: m}
		if len(towns) > 1 {
			member.Link = link(slices.Delete(slices.Clone(towns), i, i+1))
		}
		members = append(members, member)
	}
	if len(towns) >= param.MaxCompared {
		return members, nil, ""
	}
	var candidates []*hensachi.Municipality
	order = towns[0].Name + "に近い順"
	near, _ := c.Similar(towns[0].Code, nearbyToAdd+len(towns))
	for _, n := range near {
		candidates = append(candidates, n.Municipality)
	}
	if len(candidates) == 0 {
		candidates, order = c.InPrefecture(towns[0].Prefecture.Code), towns[0].Prefecture.Name+"の市区町村"
	}
	for _, m := range candidates {
		if len(nearby) == nearbyToAdd {
			break
		}
		if !slices.Contains(towns, m) {
			nearby = append(nearby, compareMember{Municipality: m, Link: link(append(slices.Clone(towns), m))})
		}
	}
	return members, nearby, order
}

// codeList is the codes of towns, separated by commas as the codes parameter takes them.
func codeList(towns []*hensachi.Municipality) string {
	codes := make([]string, len(towns))
	for i, m := range towns {
		codes[i] = m.Code
	}
	return strings.Join(codes, ",")
}
