package site

import (
	"html/template"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

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
	Median template.HTML
}

type comparePage struct {
	page.Base
	Towns   []*hensachi.Municipality
	Members []compareMember
	Nearby  []compareMember // the first one's nearest, to add, while there is room
	// NearbyOrder says which Nearby are: the first one's nearest, or, when it has too few values
	// to have any, its prefecture's municipalities
	NearbyOrder string
	// Full says that param.MaxCompared are compared: one must be taken out before another is added.
	Full bool
	// Codes and IndicatorKeys are the comparison's lists as its forms keep them in hidden fields.
	Codes, IndicatorKeys string
	// Query is the name searched for a municipality to add; Found are the municipalities it finds
	// that are not compared yet (at most maxCompareFound, More saying there were others), or, when
	// it finds none, names one letter off (もしかして), each with the address adding it.
	Query string
	Found []compareMember
	More  bool
	// Indicators are the indicators compared, each with its chart and table; IndicatorSelect
	// adds one while there is room.
	Indicators      []compareIndicator
	IndicatorSelect *measureSelect
	Charts          []compareChart
	Scores          []compareRow
	Stats           []compareRow
	Furusato        []compareRow
	CSV             string
	// NoResidents explains each compared municipality's population of 0 (noResidents)
	NoResidents []string
}

// compareMember is a municipality with the comparison's address after adding or removing it
// (empty when that would leave none or more than param.MaxCompared).
type compareMember struct {
	*hensachi.Municipality
	Link string
}

// compareIndicator is an indicator of a comparison: its series chart, a line per municipality and
// the national median's, and the same figures in a table of a row per survey year.
type compareIndicator struct {
	*hensachi.Indicator
	Link    string // the comparison's address without it
	Reading string // what its ranks and deviation scores mean (rankingReading)
	Chart   template.HTML
	Rows    []seriesRow
}

// seriesRow is a survey year of a compared indicator: each municipality's value with its
// deviation score and national rank (pieces a narrow column may put on lines of their own), and
// the national median. Break marks the year from which the figure has a new definition.
type seriesRow struct {
	Year   int
	Break  bool
	Values []template.HTML
	Median string
}

// comparison is what a comparison's addresses keep: its municipalities and its indicators.
type comparison struct {
	towns      []*hensachi.Municipality
	indicators []*hensachi.Indicator
}

// url is the comparison's address; the indicators are named without a year, as a chart draws
// every year.
func (cmp comparison) url() string {
	u := "/town/compare?codes=" + codeList(cmp.towns)
	if len(cmp.indicators) > 0 {
		u += "&indicators=" + indicatorList(cmp.indicators)
	}
	return u
}

// nearbyToAdd is how many of the first municipality's nearest the page offers to add.
const nearbyToAdd = 5

// maxCompareFound is how many municipalities a search on the comparison page lists to add.
const maxCompareFound = 20

func (s *Site) compare(c *town.Catalog, q param.Query, _ httprouter.Params) (string, any, error) {
	towns, err := param.Compared(c, q, 1)
	if err != nil {
		return "", nil, err
	}
	dims, _, err := param.IndicatorDimensions(c, q, param.MaxChartedIndicators)
	if err != nil {
		return "", nil, err
	}
	query, _, err := q.One("q")
	if err != nil {
		return "", nil, err
	}
	cmp := comparison{towns: towns}
	for _, d := range dims {
		// key@year names a year the API answers in; a chart draws them all, so once is enough
		if ind := c.Indicator(d.Indicator); !slices.Contains(cmp.indicators, ind) {
			cmp.indicators = append(cmp.indicators, ind)
		}
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
	description := strings.Join(names, "、") + "の 6 軸の偏差値と 16 の統計を並べて比べる。"
	if len(cmp.indicators) > 0 {
		var labels []string
		for _, ind := range cmp.indicators {
			labels = append(labels, ind.Label)
		}
		description = strings.Join(names, "、") + "の" + strings.Join(labels, "・") + "の推移と、6 軸の偏差値・16 の統計を並べて比べる。"
	}
	p := comparePage{Towns: towns, CSV: "/town/municipalities.csv?header=ja&codes=" + list, Codes: list, IndicatorKeys: indicatorList(cmp.indicators),
		Full: len(towns) >= param.MaxCompared, Query: strings.TrimSpace(query),
		Base: s.base(c, title, description, cmp.url())}
	for a, axis := range hensachi.Axes {
		row := compareRow{Label: axis.Label, Note: "偏差値（値 " + page.Nowrap(axis.Unit) + "）", Median: page.Nowrap("50") + page.Nowrap("（"+withUnit(c.AxisMedian(a), hensachi.Field{Decimals: axis.Decimals})+"）")}
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
		row := compareRow{Label: stat.Label, Median: breakableUnit(withUnit(c.StatMedian(st), stat))}
		for _, m := range towns {
			row.Values = append(row.Values, breakableUnit(withUnit(m.Stats[st], stat)))
		}
		p.Stats = append(p.Stats, row)
	}
	p.Furusato = compareFurusato(c, towns)
	p.Members, p.Nearby, p.NearbyOrder = compareLinks(c, cmp)
	if p.Query != "" && !p.Full {
		p.Found, p.More = compareFound(c, cmp, p.Query)
	}
	for k := range cmp.indicators {
		p.Indicators = append(p.Indicators, compareSeries(c, cmp, k))
	}
	if len(cmp.indicators) < param.MaxChartedIndicators {
		groups := indicatorOptionGroups(c, nil)
		for _, g := range groups {
			for k, o := range g.Options {
				g.Options[k].Disabled = slices.ContainsFunc(cmp.indicators, func(ind *hensachi.Indicator) bool { return ind.Key == o.Key })
			}
		}
		p.IndicatorSelect = &measureSelect{ID: "indicators", Label: "指標", Prompt: "指標を選ぶ", Groups: groups}
	}
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
		receipts := breakableUnit(manYen(mf.ReceiptsYen))
		if mf.ReceiptsYen.Valid {
			receipts += page.Nowrap("（" + integer(mf.ReceiptsRank) + " 位）")
		}
		rows[0].Values = append(rows[0].Values, receipts)
		rows[1].Values = append(rows[1].Values, breakableUnit(count(mf.ReceiptsCount, "件")))
		rows[2].Values = append(rows[2].Values, breakableUnit(manYen(mf.BalanceYen)))
	}
	return rows
}

// breakableUnit lets a long figure put its unit on a line of its own in a narrow column (5,718.7
// over 人/km², so that six municipalities fit a desktop), and keeps a short one whole.
func breakableUnit(s string) template.HTML {
	i := strings.LastIndexByte(s, ' ')
	if i < 0 || utf8.RuneCountInString(s) <= 8 {
		return page.Nowrap(s)
	}
	return page.Nowrap(s[:i]) + " " + page.Nowrap(s[i+1:])
}

// compareLinks are the comparison's members, each with the address without it, and the first
// member's nearest municipalities not in it, each with the address with it, or, when it has too
// few values to have nearest ones (双葉町), the first of its prefecture's, so that a comparison of
// one always offers others; order says which. Every address keeps the comparison's indicators.
func compareLinks(c *town.Catalog, cmp comparison) (members, nearby []compareMember, order string) {
	towns := cmp.towns
	for i, m := range towns {
		member := compareMember{Municipality: m}
		if len(towns) > 1 {
			member.Link = cmp.without(i)
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
	return members, cmp.adding(candidates, nearbyToAdd), order
}

// without is the comparison's address without its i-th municipality.
func (cmp comparison) without(i int) string {
	cmp.towns = slices.Delete(slices.Clone(cmp.towns), i, i+1)
	return cmp.url()
}

// adding is up to n of candidates not compared yet, each with the comparison's address with it
// added.
func (cmp comparison) adding(candidates []*hensachi.Municipality, n int) []compareMember {
	var out []compareMember
	for _, m := range candidates {
		if len(out) == n {
			break
		}
		if !slices.Contains(cmp.towns, m) {
			with := cmp
			with.towns = append(slices.Clone(cmp.towns), m)
			out = append(out, compareMember{Municipality: m, Link: with.url()})
		}
	}
	return out
}

// compareFound are the municipalities a name search finds to add to a comparison, as the site's
// search finds them (a designated city by its ward's name too), those compared left out; when it
// finds nothing, the names one letter off. more says that there were more than maxCompareFound.
func compareFound(c *town.Catalog, cmp comparison, query string) (found []compareMember, more bool) {
	hits := c.Search(query, maxCompareFound+len(cmp.towns)+1)
	if len(hits) == 0 {
		hits = c.Suggest(query)
	}
	found = cmp.adding(hits, maxCompareFound+1)
	if len(found) > maxCompareFound {
		return found[:maxCompareFound], true
	}
	return found, false
}

// compareSeries is the k-th indicator of a comparison: its chart, a line per municipality in their
// order and the national median's, and its table.
func compareSeries(c *town.Catalog, cmp comparison, k int) compareIndicator {
	ind := cmp.indicators[k]
	i := c.IndicatorIndex(ind.Key)
	f := ind.Field()
	without := cmp
	without.indicators = slices.Delete(slices.Clone(cmp.indicators), k, k+1)
	out := compareIndicator{Indicator: ind, Link: without.url(), Reading: rankingReading(f), Rows: make([]seriesRow, len(ind.Years))}
	median := seriesLine{Name: "全国の中央値", Class: "ln-national", Points: make([]town.IndicatorPoint, len(ind.Years))}
	for y, year := range ind.Years {
		out.Rows[y] = seriesRow{Year: year.Year, Break: slices.Contains(ind.Breaks, year.Year), Median: "—"}
		median.Points[y].Year = year.Year
		if year.Count > 0 {
			median.Points[y].Value = hensachi.Some(year.Median)
			out.Rows[y].Median = withUnit(median.Points[y].Value, f)
		}
	}
	var lines []seriesLine
	for _, m := range cmp.towns {
		series := c.MunicipalityIndicators(c.Index(m.Code), []int{i})[0].Series
		lines = append(lines, seriesLine{Name: m.Name, Points: series})
		for y, p := range series {
			v := template.HTML("—")
			if p.Value.Valid {
				v = page.Nowrap(withUnit(p.Value, f)) + `<br><span class="note">` + page.Nowrap(strconv.FormatFloat(p.Hensachi, 'f', 1, 64)) +
					"・" + page.Nowrap(integer(p.Rank)+" 位") + `</span>`
			}
			out.Rows[y].Values = append(out.Rows[y].Values, v)
		}
	}
	out.Chart = comparedSeriesChart("series-"+strconv.Itoa(k+1), ind, append(lines, median))
	return out
}

// codeList is the codes of towns, separated by commas as the codes parameter takes them.
func codeList(towns []*hensachi.Municipality) string {
	codes := make([]string, len(towns))
	for i, m := range towns {
		codes[i] = m.Code
	}
	return strings.Join(codes, ",")
}

// indicatorList is the keys of indicators, separated by commas as the indicators parameter takes
// them.
func indicatorList(indicators []*hensachi.Indicator) string {
	keys := make([]string, len(indicators))
	for i, ind := range indicators {
		keys[i] = ind.Key
	}
	return strings.Join(keys, ",")
}
