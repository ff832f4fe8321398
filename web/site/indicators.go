package site

import (
	"html"
	"html/template"
	"net/url"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/param"
	"github.com/hensachi/hensachi/town"
	"github.com/hensachi/hensachi/web/page"
)

// The indicator catalogue, an indicator's national ranking in a survey year, and (for the
// municipality page) one municipality's indicators by group.

type catalogueRow struct{ Key, Label, Year, Median, Direction string }

// catalogueGroup is a group of the catalogue: the indicators that compare municipalities of any
// size, then the counts, which measure size, in a list of their own.
type catalogueGroup struct {
	ID, Name     string
	Rows, Counts []catalogueRow
}

type cataloguePage struct {
	page.Base
	Count  int
	Groups []catalogueGroup
	Method string
}

func (s *Site) indicatorCatalogue(c *town.Catalog, _ param.Query, _ httprouter.Params) (string, any, error) {
	p := cataloguePage{Method: c.IndicatorMethod()}
	for g, name := range hensachi.IndicatorGroups {
		group := catalogueGroup{ID: "group-" + strconv.Itoa(g+1), Name: name}
		for _, i := range c.IndicatorGroupIndexes(name) {
			ind := c.Indicator(i)
			latest := ind.Years[len(ind.Years)-1]
			row := catalogueRow{Key: ind.Key, Label: ind.Label, Year: strconv.Itoa(latest.Year), Median: "—", Direction: directionLabel(ind.Direction)}
			if latest.Count > 0 {
				row.Median = withUnit(hensachi.Some(latest.Median), ind.Field())
			}
			if ind.Kind == hensachi.KindCount {
				group.Counts = append(group.Counts, row)
			} else {
				group.Rows = append(group.Rows, row)
			}
		}
		p.Count += len(group.Rows) + len(group.Counts)
		if len(group.Rows)+len(group.Counts) > 0 {
			p.Groups = append(p.Groups, group)
		}
	}
	p.Base = s.base(c, "市区町村の指標", "全国の市区町村を比べる "+strconv.Itoa(p.Count)+
		" の指標（人口・経済・財政・教育・医療・生活・ふるさと納税）の一覧と、最新年の全国中央値。", "/town/indicators")
	return "indicators", p, nil
}

// yearOption is a survey year in a year select (the indicator and map pages).
type yearOption struct {
	Year     int
	Selected bool
}

type summaryRow struct {
	Year, URL                     string
	Count, Median, Mean, Min, Max string
	Current                       bool
}

type indicatorPage struct {
	page.Base
	rankingList
	Indicator *hensachi.Indicator
	Year      int
	Years     []yearOption
	Formula   string
	Summary   []summaryRow
	Histogram template.HTML
	Medians   template.HTML
	MapURL    string
	Method    string
	Reading   string // what rank 1 and the deviation score mean (rankingReading)
}

func (s *Site) indicator(c *town.Catalog, q param.Query, ps httprouter.Params) (string, any, error) {
	i, err := param.Indicator(c, ps.ByName("key"))
	if err != nil {
		return "", nil, err
	}
	k, err := param.IndicatorYear(c, q, i)
	if err != nil {
		return "", nil, err
	}
	peerTown, peers, err := param.Peers(c, q)
	if err != nil {
		return "", nil, err
	}
	ind := c.Indicator(i)
	year := ind.Years[k]
	path := "/town/indicators/" + ind.Key
	keep := url.Values{}
	if k != len(ind.Years)-1 {
		keep.Set("year", strconv.Itoa(year.Year))
	}
	if peers != nil {
		keep.Set("peers", peerTown.Code)
	}
	f := ind.Field()
	list, err := listRanking(c, q, path, keep, func(pref string, offset, limit int) ([]rankingRow, int) {
		ranking := c.IndicatorRankingPage(i, k, town.BestFirst, town.Scope{Pref: pref, Peers: param.PeerGroupCode(peers)}, offset, limit)
		rows := make([]rankingRow, len(ranking.Items))
		for j, it := range ranking.Items {
			rows[j] = rankingRow{Rank: integer(it.Rank), Code: it.Municipality.Code, Name: it.Municipality.Name, Pref: it.Municipality.Prefecture.Name,
				Hensachi: strconv.FormatFloat(it.Hensachi, 'f', 1, 64), Value: number(it.Value.V, ind.Decimals)}
			if peers != nil {
				rows[j].PeerRank = integer(it.RankInPeers)
			}
			if it.Value.V == 0 && ind.ZeroLabel != "" {
				rows[j].Value += "（" + ind.ZeroLabel + "）"
			}
		}
		return rows, ranking.Total
	})
	if err != nil {
		return "", nil, err
	}
	list.ValueUnit = ind.Unit
	if peers != nil {
		list.Peers = &peersFilter{Town: peerTown, Group: peers}
	}
	p := indicatorPage{rankingList: list, Indicator: ind, Year: year.Year, Formula: formulaText(ind.Formula), Method: c.IndicatorMethod(),
		Reading: rankingReading(ind.Field()), Medians: medianChart(ind), MapURL: "/town/map?" + url.Values{"m": {ind.Key}, "year": {strconv.Itoa(year.Year)}}.Encode()}
	for kk, y := range ind.Years {
		p.Years = append(p.Years, yearOption{Year: y.Year, Selected: kk == k})
		row := summaryRow{Year: strconv.Itoa(y.Year), URL: path, Count: integer(y.Count), Median: "—", Mean: "—", Min: "—", Max: "—", Current: kk == k}
		if kk != len(ind.Years)-1 {
			row.URL += "?year=" + row.Year
		}
		if y.Count > 0 {
			row.Median, row.Mean = withUnit(hensachi.Some(y.Median), f), withUnit(hensachi.Some(y.Mean), f)
			row.Min, row.Max = withUnit(hensachi.Some(y.Min), f), withUnit(hensachi.Some(y.Max), f)
		}
		p.Summary = append(p.Summary, row)
	}
	column := c.IndicatorColumn(i, k)
	var values []float64
	for _, v := range column.Values {
		if v.Valid {
			values = append(values, v.V)
		}
	}
	median := hensachi.Optional[float64]{}
	if year.Count > 0 {
		median = hensachi.Some(year.Median)
	}
	p.Histogram = histogram(f, year.Year, values, median)
	p.Base = s.base(c, list.title(ind.Label+"のランキング "+strconv.Itoa(year.Year)+"年"),
		list.where()+"の市区町村を「"+ind.Label+"」（"+strconv.Itoa(year.Year)+"年）で並べたランキングと全国の分布、全国中央値の推移。", list.url)
	return "indicator", p, nil
}

// formulaText writes a formula in its item codes as a reader recomputes it:
// 1000 × A4101 ÷ A1101, (A + B − C) ÷ D.
func formulaText(f hensachi.Formula) string {
	sum := func(items []string, minus []string) (string, bool) {
		s := strings.Join(items, " + ")
		if len(minus) > 0 {
			s += " − " + strings.Join(minus, " − ")
		}
		return s, len(items)+len(minus) > 1
	}
	top, several := sum(f.Counted(), f.Minus)
	if len(f.Denominator) > 0 {
		if several {
			top = "(" + top + ")"
		}
		bottom, several := sum(f.Denominator, nil)
		if several {
			bottom = "(" + bottom + ")"
		}
		top += " ÷ " + bottom
	} else if several && f.Factor() != 1 {
		top = "(" + top + ")"
	}
	if f.Factor() != 1 {
		top = strconv.FormatFloat(f.Factor(), 'f', -1, 64) + " × " + top
	}
	return top
}

// indicatorGroup is one group of a municipality's indicators: its section on the page.
type indicatorGroup struct {
	Name  string
	Count int
	Rows  template.HTML
}

// indicatorGroups is row m's standing on every indicator, by group: each indicator's latest
// figure with its year, its national rank, deviation score and rank within its 類似団体, and its
// series as a sparkline.
//
// The rows are written here rather than by the template: some 300 rows of five actions each,
// every one escaped through reflection, took most of the page's time. A row is one list item of
// a link, text and the sparkline, four elements: a phone's browser parses every row of the
// collapsed sections when the page loads, and a table's nine elements a row blocked it for over a
// second under Lighthouse's slowed CPU. The links are relative to the page's
// /town/municipalities/, to keep the page within its weight.
func indicatorGroups(c *town.Catalog, m int) []indicatorGroup {
	var out []indicatorGroup
	var b []byte
	for _, name := range hensachi.IndicatorGroups {
		standings := c.MunicipalityIndicators(m, comparableFirst(c, c.IndicatorGroupIndexes(name)))
		if len(standings) == 0 {
			continue
		}
		b = b[:0]
		for _, st := range standings {
			// keys are lower-case letters, digits and underscores (ingest), safe unquoted
			b = append(b, "<li><a href=../indicators/"...)
			b = append(b, st.Indicator.Key...)
			b = append(b, '>')
			b = append(b, html.EscapeString(st.Indicator.Label)...)
			b = append(b, "</a> "...)
			if p := st.Latest; p.Value.Valid {
				b = append(b, page.Nowrap(withUnit(p.Value, st.Indicator.Field()))...)
				b = append(b, "（"...)
				b = strconv.AppendInt(b, int64(p.Year), 10)
				b = append(b, "）・全国 "...)
				b = append(b, integer(p.Rank)...)
				b = append(b, " / "...)
				b = append(b, integer(st.RankTotal)...)
				b = append(b, " 位・偏差値 "...)
				b = strconv.AppendFloat(b, p.Hensachi, 'f', 1, 64)
				if p.RankInPeers > 0 {
					b = append(b, "・類似団体 "...)
					b = append(b, integer(p.RankInPeers)...)
					b = append(b, " / "...)
					b = append(b, integer(c.RankInPeers(c.IndicatorIndex(st.Indicator.Key), len(st.Series)-1, m).Total)...)
					b = append(b, " 位"...)
				}
			} else {
				b = append(b, "—（"...)
				b = strconv.AppendInt(b, int64(p.Year), 10)
				b = append(b, "）"...)
			}
			b = appendSparkline(b, st.Indicator, st.Series)
			b = append(b, '\n')
		}
		out = append(out, indicatorGroup{Name: name, Count: len(standings), Rows: template.HTML(b)})
	}
	return out
}
