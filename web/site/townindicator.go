package site

import (
	"html/template"
	"net/url"
	"strconv"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/param"
	"github.com/hensachi/hensachi/town"
	"github.com/hensachi/hensachi/web/page"
)

// The page of one municipality's indicator: its every survey year drawn against the national,
// prefecture and 類似団体 medians, and a table of its value, ranks and deviation score by year.

// townYear is a municipality's standing on an indicator in one survey year and the standings it is
// compared with: nationally (the year's count and national median), in its prefecture and in its
// 類似団体 (zero without a group).
type townYear struct {
	town.IndicatorPoint
	National, Prefecture, Peers town.Among
}

// townSeries is row m's standing on indicator i in every survey year, among its group of
// 類似団体 too (nil for none). It reads the cells of the municipality, its prefecture and its
// group alone: a few hundred rows a year, not the country.
func townSeries(c *town.Catalog, i, m int, group *hensachi.PeerGroup) []townYear {
	ind := c.Indicator(i)
	out := make([]townYear, len(ind.Years))
	for k, y := range ind.Years {
		p := c.IndicatorPoint(i, k, m)
		ty := townYear{IndicatorPoint: p, National: town.Among{Rank: p.Rank, Total: y.Count}, Prefecture: c.IndicatorInPrefecture(i, k, m)}
		if y.Count > 0 {
			ty.National.Median = hensachi.Some(y.Median)
		}
		if group != nil {
			r := c.RankInPeers(i, k, m)
			ty.Peers = town.Among{Rank: r.Rank, Total: r.Total, Median: c.PeerMedian(i, k, group.Code)}
		}
		out[k] = ty
	}
	return out
}

// townYearRow is a survey year of the page's table: the standing and, beside it, the medians.
type townYearRow struct {
	Year, Value, Hensachi          string
	Rank, PrefRank, PeerRank       template.HTML
	National, Prefecture, PeersMid string
	Break                          bool // the definition changed from this year
}

type townIndicatorPage struct {
	page.Base
	Town      *hensachi.Municipality
	Indicator *hensachi.Indicator
	// Peers is the municipality's 類似団体, nil when none classes it; PeersAbout says how.
	Peers      *hensachi.PeerGroup
	PeersAbout string
	Chart      template.HTML
	Rows       []townYearRow
	Formula    string
	Reading    string // what rank 1 and the deviation score mean (rankingReading)
	// Ranking and PrefRanking are the national and the prefecture's ranking, opened at the page
	// that lists the municipality, its row marked, in its latest year with a value; RankingYear.
	Ranking, PrefRanking string
	RankingYear          int
	CSV                  string // the download of the table's years (townIndicatorCSV)
	Method               string
}

func (s *Site) townIndicator(c *town.Catalog, _ param.Query, ps httprouter.Params) (string, any, error) {
	m, err := param.Municipality(c, "code", ps.ByName("code"))
	if err != nil {
		return "", nil, err
	}
	i, err := param.Indicator(c, ps.ByName("key"))
	if err != nil {
		return "", nil, err
	}
	ind, row := c.Indicator(i), c.Index(m.Code)
	group, _ := c.PeerGroupOf(m.Code)
	series := townSeries(c, i, row, group)
	f := ind.Field()
	p := townIndicatorPage{Town: m, Indicator: ind, Peers: group, Formula: formulaText(ind.Formula),
		Reading: rankingReading(f), Method: c.IndicatorMethod()}
	among := "全国・" + m.Prefecture.Name + "内"
	if group != nil {
		among += "・類似団体内"
		p.PeersAbout = group.Name + "（" + strconv.Itoa(group.CensusYear) + "年の国勢調査による区分、" + integer(len(group.Members)) + " 市区町村）"
	}
	p.Base = s.base(c, m.Name+"（"+m.Prefecture.Name+"）の"+ind.Label+"の推移",
		m.Prefecture.Name+m.Name+"の「"+ind.Label+"」の年ごとの値と、"+among+"の順位、中央値との比較。",
		"/town/municipalities/"+m.Code+"/indicators/"+ind.Key)
	rank := func(a town.Among) template.HTML {
		if a.Rank == 0 {
			return "—"
		}
		return page.Nowrap(integer(a.Rank)) + " " + page.Nowrap("/ "+integer(a.Total)+" 位")
	}
	lines := []seriesLine{{Name: m.Name, Class: "ln-town"}, {Name: "全国の中央値", Class: "ln-national"},
		{Name: m.Prefecture.Name + "の中央値", Class: "ln-pref"}}
	if group != nil {
		lines = append(lines, seriesLine{Name: "類似団体（" + group.Name + "）の中央値", Class: "ln-peers"})
	}
	latest := -1 // the latest year with a value
	for k, y := range series {
		row := townYearRow{Year: strconv.Itoa(y.Year), Value: withUnit(y.Value, f), Hensachi: "—",
			Rank: rank(y.National), PrefRank: rank(y.Prefecture), PeerRank: rank(y.Peers),
			National: withUnit(y.National.Median, f), Prefecture: withUnit(y.Prefecture.Median, f), PeersMid: withUnit(y.Peers.Median, f)}
		for _, b := range ind.Breaks {
			row.Break = row.Break || b == y.Year
		}
		if y.Value.Valid {
			row.Hensachi, latest = strconv.FormatFloat(y.Hensachi, 'f', 1, 64), k
		}
		p.Rows = append(p.Rows, row)
		for j, v := range []hensachi.Optional[float64]{y.Value, y.National.Median, y.Prefecture.Median, y.Peers.Median}[:len(lines)] {
			lines[j].Points = append(lines[j].Points, town.IndicatorPoint{Year: y.Year, Value: v})
		}
	}
	p.Chart = seriesChart(ind, m.Name+"の"+ind.Label+"の推移", lines)
	p.CSV = csvLink("/town/municipalities/"+m.Code+"/indicators/"+ind.Key+".csv", nil)
	p.Ranking, p.PrefRanking = "/town/indicators/"+ind.Key, "/town/indicators/"+ind.Key+"?pref="+m.Prefecture.Code
	if latest >= 0 {
		p.RankingYear = series[latest].Year
		v := url.Values{"highlight": {m.Code}}
		if latest != len(series)-1 {
			v.Set("year", strconv.Itoa(p.RankingYear))
		}
		p.Ranking += "?" + v.Encode() + "#m-" + m.Code
		v.Set("pref", m.Prefecture.Code)
		p.PrefRanking = "/town/indicators/" + ind.Key + "?" + v.Encode() + "#m-" + m.Code
	}
	return "town-indicator", p, nil
}
