package site

import (
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/compute"
	"github.com/hensachi/hensachi/internal/param"
	"github.com/hensachi/hensachi/internal/testrig/towntest"
	"github.com/hensachi/hensachi/town"
)

// peerCatalog is towntest's catalog with 類似団体 and a break: 札幌市, 函館市 and 中央区 form the
// group テスト都市 (2020 census), 千代田区 one of its own, 札内町 none; births_per_1000 has a new
// definition from 2023; jobless (%) has three years, 札内町 a value in two of them.
func peerCatalog() *town.Catalog {
	base := towntest.Catalog()
	towns := towntest.Municipalities()
	groups := map[string]string{"01100": "city-2-1", "01202": "city-2-1", "13102": "city-2-1", "13101": "special_ward"}
	for i := range towns {
		towns[i].PeerGroup = groups[towns[i].Code]
	}
	meta := base.Meta
	meta.PeerGroups = []hensachi.PeerGroup{
		{Code: "city-2-1", Name: "テスト都市", CensusYear: 2020, Members: []string{"01100", "01202", "13102"}},
		{Code: "special_ward", Name: "特別区", CensusYear: 2020, Members: []string{"13101"}},
		{Code: "city-2-1", Name: "古い区分", CensusYear: 2015, Members: []string{"01100"}}, // an older census's, never read
	}
	cat, values := towntest.Indicators()
	births := &cat.Indicators[0]
	births.Breaks, births.Note = []int{2023}, "2023年から出生の数え方が変わった。"
	nan := math.NaN()
	jobless := hensachi.Indicator{Key: "jobless", Label: "完全失業率", Unit: "%", Group: "経済・雇用", Description: "労働力人口に占める完全失業者の割合。",
		Source: "国勢調査", Direction: hensachi.DirectionLowerBetter, Kind: hensachi.KindRate, Decimals: 1,
		Formula: hensachi.Formula{Numerator: []string{"A1"}, Denominator: []string{"A2"}, Scale: 100},
		Years:   []hensachi.IndicatorYear{{Year: 2010}, {Year: 2015}, {Year: 2020}}}
	cat.Indicators = append(cat.Indicators, jobless)
	column := func(vs ...float64) []hensachi.Optional[float64] {
		out := make([]hensachi.Optional[float64], len(vs))
		for i, v := range vs {
			if !math.IsNaN(v) {
				out[i] = hensachi.Some(v)
			}
		}
		return out
	}
	// 札幌市, 函館市, 札内町, 千代田区, 中央区
	values = append(values, [][]hensachi.Optional[float64]{
		column(5.1, 6.0, 4.0, 3.0, 3.5), column(4.8, 5.5, nan, 2.9, 3.1), column(4.2, 5.0, 3.2, 2.5, 3.0)})
	compute.ApplyIndicators(&cat, values)
	return town.New(towns, meta, "v1", towntest.PublicURL).WithIndicators(cat, values)
}

// TestTownIndicatorPage: a municipality's page of an indicator has its value, national, prefecture
// and 類似団体 ranks and deviation score every year, the medians beside them, a chart that cuts the
// line at the break and draws the three medians in their own patterns, the definition, and the
// ranking's links that open at its row.
func TestTownIndicatorPage(t *testing.T) {
	c := peerCatalog()
	router := siteRouterWith(t, Deps{Catalogs: staticCatalogs{c}, PublicURL: towntest.PublicURL})
	births := c.IndicatorIndex("births_per_1000")
	hensachiOf := func(code string, k int) string {
		return strconv.FormatFloat(c.IndicatorPoint(births, k, c.Index(code)).Hensachi, 'f', 1, 64)
	}
	rank := func(r, n int) string { return strconv.Itoa(r) + " <span class=nb>/ " + strconv.Itoa(n) + " 位</span>" }
	row := func(year, value string, ranks [3]string, h string) string {
		return `<tr><th scope="row">` + year + `</th><td class="n"><span class=nb>` + value + `</span></td><td class="n">` + ranks[0] + `</td><td class="n">` +
			ranks[1] + `</td><td class="n">` + ranks[2] + `</td><td class="n">` + h + `</td></tr>`
	}
	checkPages(t, router, []pageCase{
		// 函館市: 2020 5.25, tied nationally with 中央区 at 3 of 4, second of 北海道's two, second of
		// its group's three; 2023 5.0, 4th of 5, 2nd of 3 in 北海道 and 3rd of its group's 3
		{"/town/municipalities/01202/indicators/births_per_1000", 200, []string{
			"<h1>出生率（人口千人当たり） <small>函館市（北海道）</small></h1>",
			row("2020", "5.25 ‰", [3]string{rank(3, 4), rank(2, 2), rank(2, 3)}, hensachiOf("01202", 0)),
			`<tr><th scope="row">2023<sup><a href="#breaks" aria-label="定義の変更">※</a></sup></th><td class="n"><span class=nb>5.00 ‰</span></td><td class="n">` +
				rank(4, 5) + `</td><td class="n">` + rank(2, 3) + `</td><td class="n">` + rank(3, 3) + `</td><td class="n">` + hensachiOf("01202", 1) + `</td></tr>`,
			`<th scope="col" class="n">北海道内</th><th scope="col" class="n">類似団体内</th>`,
			"類似団体はテスト都市（2020年の国勢調査による区分、3 市区町村）。",
			// medians: national 5.875 and 5.6, 北海道 5.875 and 5.0, the group 5.25 and 5.6
			`<tr><th scope="row">2020</th><td class="n"><span class=nb>5.25 ‰</span></td><td class="n"><span class=nb>5.88 ‰</span></td><td class="n"><span class=nb>5.88 ‰</span></td><td class="n"><span class=nb>5.25 ‰</span></td></tr>`,
			`<tr><th scope="row">2023</th><td class="n"><span class=nb>5.00 ‰</span></td><td class="n"><span class=nb>5.60 ‰</span></td><td class="n"><span class=nb>5.00 ‰</span></td><td class="n"><span class=nb>5.60 ‰</span></td></tr>`,
			// the chart: labelled axes, each value, the break marked and the legend's four lines
			`<title id="series-title">函館市の出生率（人口千人当たり）の推移：2020年 5.25 ‰、2023年 5.00 ‰`, "↑ 出生率（人口千人当たり）（‰）", "調査年 →",
			`<text class="tick" x="140" y="296">2020</text>`, `<text class="val" `, `>5.25</text>`, `>5.00</text>`, "2023年から定義変更",
			`</svg>函館市</li>`, `</svg>全国の中央値</li>`, `</svg>北海道の中央値</li>`, `</svg>類似団体（テスト都市）の中央値</li>`,
			`<p class="note" id="breaks">定義の変更（2023年から）：2023年から出生の数え方が変わった。</p>`,
			// the definition, the direction and the source
			"<code>1000 × A4101 ÷ A1101</code>", "値が大きいほど良いとみる指標です。", "<td>人口動態統計</td>", "テスト統計（<a href=\"https://example.jp/stats\">",
			`<a href="/town/indicators/births_per_1000?highlight=01202#m-01202">全国ランキングで函館市を見る（2023年）</a>`,
			`<a href="/town/indicators/births_per_1000?highlight=01202&amp;pref=01#m-01202">北海道のランキング</a>`,
			`<link rel="canonical" href="https://hensachi.example/town/municipalities/01202/indicators/births_per_1000">`,
		}, []string{"古い区分"}},
		// 札内町: no group, no value in 2020; jobless is lower-better, its latest year 2020
		{"/town/municipalities/01345/indicators/births_per_1000", 200, []string{
			`<tr><th scope="row">2020</th><td class="n">—</td><td class="n">—</td><td class="n">—</td><td class="n">—</td></tr>`,
			"この市区町村の類似団体の区分は、このデータにありません。", `<text class="tick" x="140" y="270">—</text>`,
			`href="/town/indicators/births_per_1000?highlight=01345#m-01345"`}, []string{"類似団体内", "類似団体（"}},
		{"/town/municipalities/01345/indicators/jobless", 200, []string{
			// 3.2 % in 2020: third of five nationally, the lowest and so the best of 北海道's three
			`<tr><th scope="row">2020</th><td class="n"><span class=nb>3.2 %</span></td><td class="n">` + rank(3, 5) + `</td><td class="n">` + rank(1, 3) + `</td><td class="n">` +
				strconv.FormatFloat(c.IndicatorPoint(2, 2, c.Index("01345")).Hensachi, 'f', 1, 64) + `</td></tr>`,
			"値が小さいほど良いとみる指標です。"}, nil},
		// 千代田区 is alone in its group
		{"/town/municipalities/13101/indicators/fiscal_strength", 200, []string{`<td class="n">1 <span class=nb>/ 1 位</span></td>`,
			"類似団体は特別区（2020年の国勢調査による区分、1 市区町村）。"}, nil},
		{"/town/municipalities/99999/indicators/births_per_1000", 404, []string{"市区町村コード 99999 はありません"}, nil},
		{"/town/municipalities/01202/indicators/nope", 404, []string{"この指標はありません"}, nil},
		{"/town/municipalities/1310/indicators/births_per_1000", 400, []string{"市区町村コード（5 桁の数字"}, nil},
		{"/town/municipalities/01202/indicators/BIRTHS", 404, nil, nil},
	})

	// the break cuts 函館市's line and the medians' into single years: dots, and level strokes
	_, body := getPage(t, router, "/town/municipalities/01202/indicators/births_per_1000")
	for class, want := range map[string]*regexp.Regexp{
		"ln-town":     regexp.MustCompile(`^M(\d+),(\d+)L\d+,\d+M(\d+),(\d+)L\d+,\d+$`),
		"ln-national": regexp.MustCompile(`^M\d+,\d+h28M\d+,\d+h28$`),
		"ln-pref":     regexp.MustCompile(`^M\d+,\d+h28M\d+,\d+h28$`),
		"ln-peers":    regexp.MustCompile(`^M\d+,\d+h28M\d+,\d+h28$`),
	} {
		d := pathOf(body, class)
		if !want.MatchString(d) {
			t.Errorf("%s: path %q, want %s", class, d, want)
		}
	}
	// without the break, the same line is joined
	_, body = getPage(t, router, "/town/municipalities/01202/indicators/jobless")
	if d := pathOf(body, "ln-town"); strings.Count(d, "M") != 1 || strings.Count(d, "L") != 2 {
		t.Errorf("jobless of 函館市: path %q, want one line through three years", d)
	}
}

// pathOf is the d of the chart's path of a class.
func pathOf(body, class string) string {
	_, after, ok := strings.Cut(body, `<path class="ln `+class+`" d="`)
	if !ok {
		return ""
	}
	d, _, _ := strings.Cut(after, `"`)
	return d
}

// TestSparklineOrChange: on the municipality page an indicator of three values or more is a
// sparkline linking to its page, one of two values the change between them in its own terms, one
// of a single value nothing.
func TestSparklineOrChange(t *testing.T) {
	c := peerCatalog()
	router := siteRouterWith(t, Deps{Catalogs: staticCatalogs{c}, PublicURL: towntest.PublicURL})
	checkPages(t, router, []pageCase{
		{"/town/municipalities/01202", 200, []string{
			// a rate: the difference in its unit, across the break: none
			`<li><a href=01202/indicators/births_per_1000>出生率（人口千人当たり）</a> `,
			// a percentage: the difference in points
			`<li><a href=01202/indicators/jobless>完全失業率</a> <span class=nb>5.0 %</span>（2020）・全国 5 / 5 位・偏差値 ` + strconv.FormatFloat(c.IndicatorPoint(2, 2, 1).Hensachi, 'f', 1, 64) +
				`・類似団体 3 / 3 位<a href=01202/indicators/jobless><svg role=img aria-label="2010年 6.0 % → 2020年 5.0 %"><path d=`,
			`<li><a href=01202/indicators/fiscal_strength>財政力指数</a> 0.41（2022）・全国 4 / 5 位・偏差値 `},
			[]string{"<small class=nb>2020 → 2023", "../indicators/"}},
		// 札内町's jobless has two values: 4.0 % in 2010, 3.2 % in 2020
		{"/town/municipalities/01345", 200, []string{`<li><a href=01345/indicators/jobless>完全失業率</a> <span class=nb>3.2 %</span>（2020）・全国 3 / 5 位・偏差値 `,
			` <small class=nb>2010 → 2020: -0.8 ポイント</small>`}, []string{"01345/indicators/jobless><svg"}},
	})
}

// TestAppendChange: the change between two values in the indicator's own terms.
func TestAppendChange(t *testing.T) {
	at := func(year int, v float64) town.IndicatorPoint {
		return town.IndicatorPoint{Year: year, Value: hensachi.Some(v)}
	}
	tests := []struct {
		name     string
		ind      hensachi.Indicator
		from, to town.IndicatorPoint
		want     string
	}{
		{"percent declared", hensachi.Indicator{Unit: "人", Kind: hensachi.KindCount, Change: hensachi.ChangePercent}, at(2015, 1000), at(2020, 1031),
			" <small class=nb>2015 → 2020: +3.1 %</small>"},
		{"a count, undeclared: percent", hensachi.Indicator{Unit: "人", Kind: hensachi.KindCount}, at(2015, 12_000), at(2020, 11_000),
			" <small class=nb>2015 → 2020: -8.3 %</small>"},
		{"a share: points", hensachi.Indicator{Unit: "%", Kind: hensachi.KindRate, Decimals: 2}, at(2015, 10.25), at(2020, 11.05),
			" <small class=nb>2015 → 2020: +0.80 ポイント</small>"},
		{"a rate in its unit", hensachi.Indicator{Unit: "‰", Kind: hensachi.KindRate, Decimals: 2}, at(2020, 6.5), at(2023, 6.1),
			" <small class=nb>2020 → 2023: -0.40 ‰</small>"},
		{"an index without a unit", hensachi.Indicator{Kind: hensachi.KindIndex, Decimals: 2}, at(2020, 0.5), at(2023, 0.5),
			" <small class=nb>2020 → 2023: ±0.00</small>"},
		{"difference declared for an amount", hensachi.Indicator{Unit: "千円", Kind: hensachi.KindPerCapita, Change: hensachi.ChangeDifference}, at(2020, 1200), at(2023, 1450),
			" <small class=nb>2020 → 2023: +250 千円</small>"},
		{"percent of nothing", hensachi.Indicator{Unit: "所", Kind: hensachi.KindCount}, at(2015, 0), at(2020, 3), ""},
		{"across a break", hensachi.Indicator{Unit: "店", Kind: hensachi.KindCount, Breaks: []int{2016}}, at(2014, 10), at(2021, 12), ""},
		{"a break before", hensachi.Indicator{Unit: "店", Kind: hensachi.KindCount, Breaks: []int{2016}}, at(2016, 10), at(2021, 12), " <small class=nb>2016 → 2021: +20.0 %</small>"},
	}
	for _, tc := range tests {
		if got := string(appendChange(nil, &tc.ind, tc.from, tc.to)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestRankingHighlight: ?highlight= opens the ranking at the page that holds the municipality and
// marks its row; a page asked for wins; a municipality the ranking lacks gets the first page and a
// note; a malformed code is refused, naming highlight.
func TestRankingHighlight(t *testing.T) {
	c := towntest.Catalog()
	const total = 1741
	hakodate := c.Index("01202")
	source := func(_ string, offset, limit int) ([]rankingRow, int) {
		rows := make([]rankingRow, min(limit, total-offset))
		for i := range rows {
			rows[i] = rankingRow{Rank: strconv.Itoa(offset + i + 1), Code: "x"}
			if offset+i == 120 {
				rows[i].Code = "01202"
			}
		}
		return rows, total
	}
	locate := func(_ string, m int) (int, bool) { return 120, m == hakodate }
	for _, tc := range []struct {
		query  string
		page   int
		marked int // the row marked on the page, -1 for none
		note   string
		err    string
	}{
		{"highlight=01202", 3, 20, "", ""},
		{"highlight=01202&page=2", 2, -1, "", ""},
		{"highlight=01202&page=3", 3, 20, "", ""},
		{"highlight=13101", 1, -1, "千代田区はこの年の値がないため、このランキングにはありません。", ""},
		{"highlight=13101&pref=01", 1, -1, "千代田区（東京都）は北海道の市区町村ではないため、このランキングにはありません。", ""},
		{"highlight=99999", 1, -1, "市区町村コード 99999 はありません。", ""},
		{"highlight=1310", 0, -1, "", "highlight"},
		{"", 1, -1, "", ""},
	} {
		q, err := param.ParsePage(tc.query)
		if err != nil {
			t.Fatal(err)
		}
		l, err := listRanking(c, q, "/r", url.Values{"year": {"2020"}}, nil, source, locate)
		if tc.err != "" {
			if e, ok := err.(*hensachi.Error); !ok || e.Code != hensachi.EInvalidParameter || e.Param != tc.err {
				t.Errorf("%s: %v, want invalid %s", tc.query, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		marked := -1
		for j, r := range l.Items {
			if r.Marked {
				marked = j
			}
		}
		if l.pageNo != tc.page || marked != tc.marked || l.HighlightNote != tc.note {
			t.Errorf("%s: page %d, row %d marked, note %q; want page %d, row %d, %q", tc.query, l.pageNo, marked, l.HighlightNote, tc.page, tc.marked, tc.note)
		}
		// the pager leads to the ranking itself, the page's address is the plain page's
		for _, p := range l.Pages {
			if strings.Contains(p.URL, "highlight") {
				t.Errorf("%s: the pager's link %s keeps highlight", tc.query, p.URL)
			}
		}
	}
	// without a locator (an axis's ranking) highlight is not read
	q, _ := param.ParsePage("highlight=1310")
	if _, err := listRanking(c, q, "/r", nil, nil, source, nil); err != nil {
		t.Errorf("an axis's ranking reads highlight: %v", err)
	}
}

// TestIndicatorRankingHighlight: the indicator's ranking page marks the row, anchored for the
// browser to scroll to, keeps highlight in its form, and says why a municipality is not there.
func TestIndicatorRankingHighlight(t *testing.T) {
	checkPages(t, siteRouter(t), []pageCase{
		{"/town/indicators/births_per_1000?highlight=13102", 200, []string{
			`<tr class="mark" id="m-13102" aria-current="true"><td class="n">3</td><td class="name"><a href="/town/municipalities/13102">中央区</a>`,
			`<input type="hidden" name="highlight" value="13102">`}, []string{`id="highlight-note"`}},
		{"/town/indicators/births_per_1000?year=2020&highlight=01345", 200, []string{
			`<p class="note" id="highlight-note">札内町はこの年の値がないため、このランキングにはありません。</p>`}, []string{`class="mark"`}},
		{"/town/indicators/births_per_1000?pref=13&highlight=01100", 200, []string{"札幌市（北海道）は東京都の市区町村ではないため"}, []string{`class="mark"`}},
		{"/town/indicators/births_per_1000?highlight=abc", 400, []string{"市区町村コード（5 桁の数字"}, nil},
		{"/town/indicators/births_per_1000", 200, nil, []string{`class="mark"`, `name="highlight"`}},
	})
}
