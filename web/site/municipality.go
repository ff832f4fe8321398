package site

import (
	"fmt"
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

// scoreRow is an axis of the score table; its rank breaks, when the column is narrow, before the
// number ranked (358 / 1,741 位).
type scoreRow struct {
	Label, Description, Hensachi, Value string
	Rank, PeerRank                      template.HTML // PeerRank: within the 類似団体
}

// peersOf is the municipality's 類似団体 with the group's ranking and map.
type peersOf struct {
	Group              *hensachi.PeerGroup
	RankingURL, MapURL string
}

// peerRankingIndicator is the indicator whose ranking among the 類似団体 the municipality page
// links to: the fiscal strength, what officials compare within them first.
const peerRankingIndicator = "fiscal_strength"

type statRow struct{ Label, Value, Median string }

type furusatoBlock struct {
	ReceiptsYear, Receipts, ReceiptsRank, Count string
	TaxYear, Deductions, Donors                 string
	Balance, BalanceRank                        string
	Updated                                     string
	Chart                                       template.HTML
}

// similarRow is a municipality like the page's; its differences are each an axis and its
// difference in one piece (若さ -4.6), that a line breaks only between.
type similarRow struct {
	Code, Name, Pref, Distance string
	Differences                template.HTML
}

type municipalityPage struct {
	page.Base
	Town       *hensachi.Municipality
	Peers      *peersOf // nil without a 類似団体
	ScoreChart template.HTML
	Scores     []scoreRow
	Similar    []similarRow
	CompareAll string // the compare page of the municipality and its nearest
	CompareN   int    // how many of the nearest CompareAll shows
	Scatter    string // the default scatter with the municipality's prefecture picked out
	// Map is the prefecture's small map with the municipality picked out, empty without
	// boundaries; MapURL the prefecture's map of the default measure, MapCredit the boundaries'.
	Map               template.HTML
	MapURL, MapCredit string
	Stats             []statRow
	Furusato          furusatoBlock
	Indicators        []indicatorGroup
	Prev, Next        *hensachi.Municipality
	Sources           []string
	Method            string
	Updated           string
	NoResidents       string // why the population is 0 beside other figures, when it is
	CensusWithheld    string // why the rates over the census population are left out, when they are
}

// noResidents explains a population of 0, or is empty: the census counted nobody, which is what a
// town under an evacuation order over its whole area looked like after the 2011 nuclear accident
// (双葉町 in the 2020 census), while its income, daytime ratio and hometown-tax figures come from
// other surveys and years. The rule is the data's, not a list of towns.
func noResidents(c *town.Catalog, m *hensachi.Municipality) string {
	pop := hensachi.StatIndex("pop")
	if v := m.Stats[pop]; !v.Valid || v.V != 0 {
		return ""
	}
	census := "国勢調査"
	for _, st := range c.Meta.Stats {
		if st.Key == "pop" && st.Source != "" {
			census, _, _ = strings.Cut(st.Source, "／") // the survey, before the dataset it came through
		}
	}
	return m.Name + "の総人口が 0 人なのは、" + census + "の時点で住んでいる人がいなかったためです。2011 年の東京電力福島第一原子力発電所の事故のあと、" +
		"全域に避難指示が出ていた町がこれに当たります。人口から求める値（高齢化率、若さ、昼間人口など）は 0 かデータなしになり、所得・ふるさと納税などは" +
		"別の調査や年の値なので、0 人と並んで表示されます。"
}

// censusWithheld explains the figures over the census population a municipality has none of, or
// is empty: where the census counted under half the residents registered on the next 1 January
// (住民基本台帳), as in the towns under evacuation orders after the 2011 nuclear accident, the
// dataset leaves every rate over the census population out (ingest's evacuation rule). It reads the
// two populations from the catalogue's indicators, so the page says it exactly where the data does.
func censusWithheld(c *town.Catalog, m *hensachi.Municipality) string {
	census, registered := c.IndicatorIndex("population"), c.IndicatorIndex("jumin_population")
	if census < 0 || registered < 0 {
		return ""
	}
	row := c.Index(m.Code)
	years := c.Indicator(census).Years
	counted := c.IndicatorPoint(census, len(years)-1, row)
	k := c.Indicator(registered).YearIndex(counted.Year + 1)
	if !counted.Value.Valid || counted.Value.V == 0 || k < 0 {
		return ""
	}
	reg := c.IndicatorPoint(registered, k, row)
	if !reg.Value.Valid || counted.Value.V >= reg.Value.V/2 {
		return ""
	}
	return fmt.Sprintf("%s は、%d 年の国勢調査が数えた人口（%s 人）が、%d 年 1 月 1 日に住民基本台帳に登録されていた人口（%s 人）の半分に満たない"+
		"（原子力災害の避難指示で、登録された住民の多くが町村外に住む）ため、国勢調査の人口を分母とする値（若さ、高齢化率、出生率など）を出していません。"+
		"住民基本台帳による人口と率は、指標の「人口・世帯」にあります。",
		m.Name, counted.Year, integer(int(counted.Value.V)), counted.Year+1, integer(int(reg.Value.V)))
}

func (s *Site) municipality(c *town.Catalog, _ param.Query, ps httprouter.Params) (string, any, error) {
	m, err := param.Municipality(c, "code", ps.ByName("code"))
	if err != nil {
		return "", nil, err
	}
	p := municipalityPage{Town: m, Method: c.Meta.Method, Updated: c.Meta.DataUpdated,
		Base: s.base(c, m.Name+"（"+m.Prefecture.Name+"）の偏差値と統計",
			m.Prefecture.Name+m.Name+"の 6 軸の偏差値と全国順位、16 の統計、ふるさと納税の実績。", "/town/municipalities/"+m.Code)}
	at := c.Index(m.Code)
	if g, ok := c.PeerGroupOf(m.Code); ok {
		p.Peers = &peersOf{Group: g, MapURL: "/town/map?" + url.Values{"m": {defaultMapMeasure}, "peer_group": {g.Code}}.Encode()}
		if c.IndicatorIndex(peerRankingIndicator) >= 0 {
			p.Peers.RankingURL = "/town/indicators/" + peerRankingIndicator + "?peers=" + m.Code
		}
	}
	var bars []scoreBar
	for a, s := range m.Scores {
		axis := hensachi.Axes[a]
		row := scoreRow{Label: axis.Label, Description: axis.Description, Hensachi: "—", Value: "—", Rank: "—", PeerRank: "—"}
		if s.Value.Valid {
			row.Hensachi = strconv.FormatFloat(s.Hensachi, 'f', 1, 64)
			row.Value = withUnit(s.Value, axis)
			row.Rank = page.Nowrap(integer(s.Rank)) + " " + page.Nowrap("/ "+integer(c.RankTotal(a))+" 位")
		}
		if r := c.AxisRankInPeers(a, at); r.Rank > 0 {
			// the rank leads to the ranking among the group it is taken in
			ranking := "/town/rankings/" + axis.Key + "?peers=" + m.Code
			// its accessible name starts with the text shown, as a spoken command names it
			shown := integer(r.Rank) + " / " + integer(r.Total) + " 位"
			row.PeerRank = template.HTML(`<a href="`+template.HTMLEscapeString(ranking)+`" aria-label="`+shown+`、類似団体の中の`+template.HTMLEscapeString(axis.Label)+`のランキング">`) +
				page.Nowrap(integer(r.Rank)) + " " + page.Nowrap("/ "+integer(r.Total)+" 位") + "</a>"
		}
		p.Scores = append(p.Scores, row)
		bars = append(bars, scoreBar{Label: axis.Label, Hensachi: s.Hensachi, Valid: s.Value.Valid})
	}
	p.ScoreChart = scoreChart("score-chart", "偏差値（50が全国の真ん中）", bars)
	if err := similarOf(c, m, &p); err != nil {
		return "", nil, err
	}
	for s, v := range m.Stats {
		stat := hensachi.Stats[s]
		p.Stats = append(p.Stats, statRow{Label: stat.Label, Value: withUnit(v, stat), Median: withUnit(c.StatMedian(s), stat)})
	}
	p.Furusato = furusatoOf(m, c)
	p.NoResidents = noResidents(c, m)
	p.CensusWithheld = censusWithheld(c, m)
	if b, err := c.Boundaries(); err == nil {
		p.Map, p.MapURL, p.MapCredit = miniMap(c, m), mapURL(defaultMapMeasure, m.Prefecture.Code), b.Meta.Credit
	}
	p.Indicators = indicatorGroups(c, at)
	towns := c.InPrefecture(m.Prefecture.Code)
	for i, t := range towns {
		if t.Code == m.Code {
			if i > 0 {
				p.Prev = towns[i-1]
			}
			if i+1 < len(towns) {
				p.Next = towns[i+1]
			}
		}
	}
	seen := map[string]bool{}
	add := func(label, source string) {
		if source != "" && !seen[label+source] {
			seen[label+source] = true
			p.Sources = append(p.Sources, label+"："+source)
		}
	}
	for _, a := range c.Meta.Axes {
		add(a.Label, a.Source)
	}
	for _, s := range c.Meta.Stats {
		add(s.Label, s.Source)
	}
	f := c.Meta.Furusato
	add("ふるさと納税の受入額（"+f.Receipts.FiscalYear+"）", f.Receipts.Source)
	add("住民税控除額（"+f.Deductions.TaxYear+"）", f.Deductions.Source)
	add("受入額の推移", f.History.Source)
	return "municipality", p, nil
}

// similarShown is how many similar municipalities a municipality page lists.
const similarShown = 10

// similarOf lists the municipalities nearest to m, with the axes they differ on most, and the
// links to compare m with the nearest and to see it on a scatter.
func similarOf(c *town.Catalog, m *hensachi.Municipality, p *municipalityPage) error {
	near, err := c.Similar(m.Code, similarShown)
	if err != nil {
		return err
	}
	codes := []string{m.Code}
	for _, n := range near {
		var diffs template.HTML
		for k, d := range n.Differences {
			if k > 0 {
				diffs += "、"
			}
			diffs += page.Nowrap(fmt.Sprintf("%s %+.1f", hensachi.Axes[d.Axis].Label, d.Difference))
		}
		if len(codes) < param.MaxCompared {
			codes = append(codes, n.Municipality.Code)
		}
		p.Similar = append(p.Similar, similarRow{Code: n.Municipality.Code, Name: n.Municipality.Name, Pref: n.Municipality.Prefecture.Name,
			Distance: strconv.FormatFloat(n.Distance, 'f', 1, 64), Differences: diffs})
	}
	if len(codes) > 1 {
		p.CompareAll, p.CompareN = "/town/compare?codes="+strings.Join(codes, ","), len(codes)-1
	}
	p.Scatter = "/town/scatter?" + url.Values{"x": {defaultX}, "y": {defaultY}, "pref": {m.Prefecture.Code}}.Encode()
	return nil
}

func furusatoOf(m *hensachi.Municipality, c *town.Catalog) furusatoBlock {
	f, meta := m.Furusato, c.Meta.Furusato
	b := furusatoBlock{ReceiptsYear: meta.Receipts.FiscalYear, TaxYear: meta.Deductions.TaxYear,
		Receipts: yen(f.ReceiptsYen), Deductions: yen(f.DeductionsYen), Balance: yen(f.BalanceYen),
		Count: count(f.ReceiptsCount, "件"), Donors: count(f.DeductionDonors, "人が他の自治体へ寄附"),
		Updated: meta.DataUpdated}
	if f.ReceiptsYen.Valid {
		b.ReceiptsRank = "全国 " + integer(f.ReceiptsRank) + " 位"
	}
	if f.BalanceYen.Valid {
		b.BalanceRank = "全国 " + integer(f.BalanceRank) + " 位"
	}
	var years []yearBar
	for i, v := range f.HistoryThousandYen {
		year := ""
		if i < len(meta.History.FiscalYears) {
			year = meta.History.FiscalYears[i]
		}
		bar := yearBar{Year: year, Label: shortEra(year), Amount: "—", ThousandYen: v.V, Valid: v.Valid}
		if v.Valid {
			bar.Amount = compactYen(v.V * 1000)
		}
		years = append(years, bar)
	}
	b.Chart = historyChart(years)
	return b
}
