package site

import (
	"cmp"
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
	// Change is set when the page ranks the change between two years (from, to): then the
	// ranking's rows are the change's, FromYears and ToYears the form's selects.
	Change             *changeView
	FromYears, ToYears []yearOption
	Formula            string
	Words              formulaWords // the formula in Japanese, its items named
	Summary            []summaryRow
	Histogram          template.HTML
	Medians            template.HTML
	MapURL             string
	CSV                string // the download of the ranking's rows, every one of them (indicatorCSV)
	Method             string
	Reading            string // what rank 1 and the deviation score mean (rankingReading)
}

func (s *Site) indicator(c *town.Catalog, q param.Query, ps httprouter.Params) (string, any, error) {
	i, err := param.Indicator(c, ps.ByName("key"))
	if err != nil {
		return "", nil, err
	}
	ch, isChange, err := param.IndicatorChange(c, q, i)
	if err != nil {
		return "", nil, err
	}
	peers, err := readPeers(c, q)
	if err != nil {
		return "", nil, err
	}
	if isChange {
		return s.indicatorChange(c, q, i, ch, peers)
	}
	k, err := param.IndicatorYear(c, q, i)
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
	peers.keepIn(keep)
	f := ind.Field()
	list, err := listRanking(c, q, path, keep, peers, func(pref string, offset, limit int) ([]rankingRow, int) {
		ranking := c.IndicatorRankingPage(i, k, town.BestFirst, peers.scope(pref), offset, limit)
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
	}, func(pref string, m int) (int, bool) { return c.IndicatorPosition(i, k, m, peers.scope(pref)) })
	if err != nil {
		return "", nil, err
	}
	list.ValueUnit = ind.Unit
	p := indicatorPage{rankingList: list, Indicator: ind, Year: year.Year, Formula: formulaText(ind.Formula), Words: wordsOf(ind, c.ItemName), Method: c.IndicatorMethod(),
		Reading: rankingReading(ind.Field()), Medians: medianChart(ind), MapURL: "/town/map?" + url.Values{"m": {ind.Key}, "year": {strconv.Itoa(year.Year)}}.Encode()}
	p.summarise(ind, path, k)
	p.CSV = csvLink(path+".csv", peers.within(withPref(url.Values{"year": {strconv.Itoa(year.Year)}}, list.Pref)))
	p.FromYears, p.ToYears = changeYearOptions(ind, param.Change{From: max(k-1, 0), To: k})
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

// summarise fills the years of the page's selects and its table of national summaries, year k
// current (-1 for none: a change's page).
func (p *indicatorPage) summarise(ind *hensachi.Indicator, path string, k int) {
	f := ind.Field()
	for kk, y := range ind.Years {
		p.Years = append(p.Years, yearOption{Year: y.Year, Selected: kk == k || k < 0 && kk == len(ind.Years)-1})
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
}

// changeView is what a page says of a change between two years: the years, the measure's field
// (its label, unit and decimals) and what its ranking or colours mean.
type changeView struct {
	From, To int
	Field    hensachi.Field
	Measure  string // how the change is computed, in a sentence
	Reading  string // changeReading
}

// newChangeView describes indicator ind's change between its survey years of ch.
func newChangeView(ind *hensachi.Indicator, ch param.Change) *changeView {
	v := &changeView{From: ind.Years[ch.From].Year, To: ind.Years[ch.To].Year, Field: changeField(ind), Reading: changeReading(ind.Field())}
	from, to := strconv.Itoa(v.From)+"年", strconv.Itoa(v.To)+"年"
	if ind.Change == hensachi.ChangePercent {
		v.Measure = "変化は" + from + "の値に対する" + to + "の値の増減率（%）です。" + from + "の値が 0 の市区町村は増減率を出せないため、順位に入りません。"
	} else {
		v.Measure = "変化は" + to + "の値から" + from + "の値を引いた差（" + cmp.Or(v.Field.Unit, "指標の単位") + "）です。"
	}
	return v
}

// changeField is an indicator's change as a measure the pages show: in its unit (town.ChangeUnit)
// and decimals, its direction the indicator's.
func changeField(ind *hensachi.Indicator) hensachi.Field {
	f := ind.Field()
	f.Label, f.Unit, f.Decimals, f.ZeroLabel = ind.Label+"の変化", town.ChangeUnit(ind), town.ChangeDecimals(ind), ""
	return f
}

// changeYearOptions are the from and to selects of a change's form, ch's years selected.
func changeYearOptions(ind *hensachi.Indicator, ch param.Change) (from, to []yearOption) {
	for k, y := range ind.Years {
		from = append(from, yearOption{Year: y.Year, Selected: k == ch.From})
		to = append(to, yearOption{Year: y.Year, Selected: k == ch.To})
	}
	return from, to
}

// indicatorChange is the indicator page ranking the change of indicator i between two survey
// years (ch): the change, its national rank and deviation score, and the two values.
func (s *Site) indicatorChange(c *town.Catalog, q param.Query, i int, ch param.Change, peers *peersFilter) (string, any, error) {
	ind := c.Indicator(i)
	path := "/town/indicators/" + ind.Key
	v := newChangeView(ind, ch)
	keep := url.Values{"from": {strconv.Itoa(v.From)}, "to": {strconv.Itoa(v.To)}}
	peers.keepIn(keep)
	list, err := listRanking(c, q, path, keep, peers, func(pref string, offset, limit int) ([]rankingRow, int) {
		ranking := c.IndicatorChangePage(i, ch.From, ch.To, town.BestFirst, peers.scope(pref), offset, limit)
		rows := make([]rankingRow, len(ranking.Items))
		for j, it := range ranking.Items {
			rows[j] = rankingRow{Rank: integer(it.Rank), Code: it.Municipality.Code, Name: it.Municipality.Name, Pref: it.Municipality.Prefecture.Name,
				Hensachi: strconv.FormatFloat(it.Hensachi, 'f', 1, 64), Value: signedNumber(it.Change, v.Field.Decimals),
				From: number(it.From.Value.V, ind.Decimals), To: number(it.To.Value.V, ind.Decimals)}
			if peers != nil {
				rows[j].PeerRank = integer(it.RankInPeers)
			}
		}
		return rows, ranking.Total
	}, func(pref string, m int) (int, bool) {
		return c.IndicatorChangePosition(i, ch.From, ch.To, m, peers.scope(pref))
	})
	if err != nil {
		return "", nil, err
	}
	list.ValueUnit, list.ValueHead = v.Field.Unit, "変化"
	list.FromHead, list.ToHead = strconv.Itoa(v.From)+"年"+unitInParens(ind.Unit), strconv.Itoa(v.To)+"年"+unitInParens(ind.Unit)
	p := indicatorPage{rankingList: list, Indicator: ind, Year: v.To, Change: v, Formula: formulaText(ind.Formula), Words: wordsOf(ind, c.ItemName), Method: c.IndicatorMethod(),
		Reading: v.Reading, Medians: medianChart(ind),
		MapURL: "/town/map?" + url.Values{"m": {ind.Key}, "from": {strconv.Itoa(v.From)}, "to": {strconv.Itoa(v.To)}}.Encode()}
	p.summarise(ind, path, -1)
	p.CSV = csvLink(path+".csv", peers.within(withPref(url.Values{"from": {strconv.Itoa(v.From)}, "to": {strconv.Itoa(v.To)}}, list.Pref)))
	p.FromYears, p.ToYears = changeYearOptions(ind, ch)
	span := strconv.Itoa(v.From) + "→" + strconv.Itoa(v.To) + "年"
	p.Base = s.base(c, list.title(ind.Label+"の変化のランキング "+span),
		list.where()+"の市区町村を「"+ind.Label+"」の"+strconv.Itoa(v.From)+"年から"+strconv.Itoa(v.To)+"年への変化で並べたランキング。", list.url)
	return "indicator", p, nil
}

// formulaText writes a formula in its item codes as a reader recomputes it:
// 1000 × A4101 ÷ A1101, (A + B − C) ÷ D, and a change over N years as
// 100 × (A(Y) − A(Y−N)) ÷ A(Y−N).
func formulaText(f hensachi.Formula) string {
	sum := func(items []string, minus []string) (string, bool) {
		s := strings.Join(items, " + ")
		if len(minus) > 0 {
			s += " − " + strings.Join(minus, " − ")
		}
		return s, len(items)+len(minus) > 1
	}
	top, several := sum(f.Counted(), f.Minus)
	if f.ChangeOver > 0 {
		if several {
			top = "(" + top + ")"
		}
		before := top + "(Y−" + strconv.Itoa(f.ChangeOver) + ")"
		top = "(" + top + "(Y) − " + before + ") ÷ " + before
	} else if len(f.Denominator) > 0 {
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

// formulaWords is a formula as the indicator page says it in Japanese: a sentence, and each part
// (分子, 引く項目, 分母, 倍率…) with its items' codes and names.
type formulaWords struct {
	Sentence string
	Parts    []formulaPart
}

type formulaPart struct {
	Label string
	Items []formulaItem // none for the scale, which Note says
	Note  string
}

// formulaItem is an item of a formula: its code as the formula writes it (A4101,
// finance.財政力指数) and its name in its source, "" where the dataset has none.
type formulaItem struct{ Code, Name string }

// denominatorDates says in words which date of its source a ratio's denominator takes
// (hensachi.DenominatorSources), for a numerator of year Y.
var denominatorDates = map[string]string{
	hensachi.DenominatorSameYear:         "分子と同じ年（同じ調査、または同じ年度）の値",
	hensachi.DenominatorCensus:           "分子の年に最も近い国勢調査年の値",
	hensachi.DenominatorCensusJapanese:   "分子の年に最も近い国勢調査年の日本人人口",
	hensachi.DenominatorJuminNextJanuary: "分子の年の翌年1月1日の住民基本台帳の値",
	hensachi.DenominatorJuminJanuary:     "分子の年の1月1日の住民基本台帳の値",
	hensachi.DenominatorArea:             "分子の年以前で最も新しい面積調査の値（なければ最も古い値）",
}

// wordsOf writes an indicator's formula in words, its items named by name (the dataset's names of
// the items, town.Catalog.ItemName).
func wordsOf(ind *hensachi.Indicator, name func(item string) string) formulaWords {
	f := ind.Formula
	items := func(codes []string) []formulaItem {
		out := make([]formulaItem, len(codes))
		for i, c := range codes {
			out[i] = formulaItem{Code: c, Name: name(c)}
		}
		return out
	}
	said := func(codes []string) string {
		parts := make([]string, len(codes))
		for i, c := range codes {
			if n := name(c); n != "" {
				parts[i] = "「" + n + "」（" + c + "）"
			} else {
				parts[i] = c
			}
		}
		return strings.Join(parts, "と")
	}
	var w formulaWords
	counted := said(f.Counted())
	if len(f.Counted()) > 1 {
		counted += "の合計"
	}
	if len(f.Minus) > 0 {
		counted += "から" + said(f.Minus) + "を引いた値"
	}
	// divided ends a sentence that divides: "割ります", or "割り、1,000 を掛けます" with a scale
	divided := "割ります。"
	if f.Factor() != 1 {
		divided = "割り、" + docNumber(f.Factor()) + " を掛けます。"
	}
	switch {
	case f.ChangeOver > 0:
		n := strconv.Itoa(f.ChangeOver)
		w.Parts = append(w.Parts, formulaPart{Label: "項目", Items: items(f.Counted())},
			formulaPart{Label: "変化", Note: n + " 年前からの増減を " + n + " 年前の値で割る"})
		w.Sentence = counted + "の " + n + " 年間の増減を、" + n + " 年前の値で" + divided
	case len(f.Denominator) > 0:
		w.Parts = append(w.Parts, formulaPart{Label: "分子", Items: items(f.Counted())})
		if len(f.Minus) > 0 {
			w.Parts = append(w.Parts, formulaPart{Label: "分子から引く項目", Items: items(f.Minus)})
		}
		bottom := said(f.Denominator)
		if len(f.Denominator) > 1 {
			bottom += "の合計"
		}
		w.Parts = append(w.Parts, formulaPart{Label: "分母", Items: items(f.Denominator), Note: denominatorDates[ind.DenominatorSource]})
		w.Sentence = "分子 " + counted + "を、分母 " + bottom + "で" + divided
	default:
		w.Parts = append(w.Parts, formulaPart{Label: "項目", Items: items(f.Counted())})
		if len(f.Minus) > 0 {
			w.Parts = append(w.Parts, formulaPart{Label: "引く項目", Items: items(f.Minus)})
		}
		w.Sentence = counted + "です。"
		if f.Factor() != 1 {
			w.Sentence = counted + "に " + docNumber(f.Factor()) + " を掛けます。"
		}
	}
	if f.Factor() != 1 {
		w.Parts = append(w.Parts, formulaPart{Label: "倍率", Note: docNumber(f.Factor())})
	}
	return w
}

// indicatorGroup is one group of a municipality's indicators: its section on the page.
type indicatorGroup struct {
	Name  string
	Count int
	Rows  template.HTML
}

// indicatorGroups is row m's standing on every indicator, by group: each indicator's latest
// figure with its year, its national rank, deviation score and rank within its 類似団体, and its
// series as a sparkline (or its change, for two values); the name and the sparkline link to the
// municipality's page of the indicator.
//
// The rows are written here rather than by the template: some 300 rows of five actions each,
// every one escaped through reflection, took most of the page's time. A row is one list item of
// a link, text and the sparkline's link, five elements: a phone's browser parses every row of the
// collapsed sections when the page loads, and a table's nine elements a row blocked it for over a
// second under Lighthouse's slowed CPU. The links are relative to the page's
// /town/municipalities/, to keep the page within its weight.
func indicatorGroups(c *town.Catalog, m int) []indicatorGroup {
	var out []indicatorGroup
	var b []byte
	code := c.Row(m).Code
	for _, name := range hensachi.IndicatorGroups {
		standings := c.MunicipalityIndicators(m, comparableFirst(c, c.IndicatorGroupIndexes(name)))
		if len(standings) == 0 {
			continue
		}
		b = b[:0]
		for _, st := range standings {
			// keys are lower-case letters, digits and underscores (ingest), safe unquoted
			href := code + "/indicators/" + st.Indicator.Key
			b = append(b, "<li><a href="...)
			b = append(b, href...)
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
			b = appendSparkline(b, st.Indicator, st.Series, href)
			b = append(b, '\n')
		}
		out = append(out, indicatorGroup{Name: name, Count: len(standings), Rows: template.HTML(b)})
	}
	return out
}
