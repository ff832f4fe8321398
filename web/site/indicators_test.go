package site

import (
	"strconv"
	"strings"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/towntest"
	"github.com/hensachi/hensachi/town"
	"github.com/hensachi/hensachi/web/page"
)

// TestIndicatorPages: the catalogue, an indicator's ranking by year and prefecture, and the
// municipality page's indicators, over towntest's two indicators (births_per_1000 in 2020 and
// 2023, fiscal_strength in 2022); bad keys, years, prefectures and pages answer as the ranking
// pages do.
func TestIndicatorPages(t *testing.T) {
	checkPages(t, siteRouter(t), []pageCase{
		{"/", 200, []string{`<a href="/town/indicators">指標</a>`}, nil},
		{"/town/indicators", 200, []string{"2 指標", `<a href="#group-1">人口・世帯</a>`, `<h2 id="group-3">財政 <small>1 指標</small></h2>`,
			`<li><a href=indicators/births_per_1000>出生率（人口千人当たり）</a> 中央値 <span class=nb>5.60 ‰</span>（2023）`, `<li><a href=indicators/fiscal_strength>財政力指数</a> 中央値 0.72（2022）`,
			`<link rel="canonical" href="https://hensachi.example/town/indicators">`}, []string{">教育 <small>"}},
		{"/town/indicators/births_per_1000", 200, []string{"<h1>出生率（人口千人当たり） <small>2023年</small></h1>", "5 市区町村中 1〜5 位",
			`<td class="n">1</td><td class="name"><a href="/town/municipalities/13101">千代田区</a></td><td class="name">東京都</td>`,
			`<td class="n">6.80</td>`, `<option selected>2023</option>`, `<th scope="col" class="n">値<br><span class="unit">‰</span></th>`,
			`<a href="/town/map?m=births_per_1000&amp;year=2023">`, `aria-labelledby="histogram-title"`, `aria-labelledby="medians-title"`,
			"全国中央値の推移：2020年 5.88 ‰、2023年 5.60 ‰", "<code>1000 × A4101 ÷ A1101</code>",
			// the formula in words, each item named
			`<span id="formula-words">分子 「出生数」（A4101）を、分母 「総人口」（A1101）で割り、1,000 を掛けます。</span>`,
			`<tr><th scope="row">分子</th><td><code>A4101</code> 出生数</td></tr>`, `<tr><th scope="row">分母</th><td><code>A1101</code> 総人口</td></tr>`,
			`<tr><th scope="row">倍率</th><td>1,000</td></tr>`, "人口動態統計", "年ごとに順位を付ける。",
			`<a href="/town/indicators/births_per_1000?year=2020">2020</a>`, `<strong aria-current="page">2023</strong>`,
			`<link rel="canonical" href="https://hensachi.example/town/indicators/births_per_1000">`}, nil},
		// 札内町 has no value in 2020
		{"/town/indicators/births_per_1000?year=2020", 200, []string{"4 市区町村中 1〜4 位", `<option selected>2020</option>`,
			`<a href="/town/map?m=births_per_1000&amp;year=2020">`, `href="https://hensachi.example/town/indicators/births_per_1000?year=2020"`}, []string{"札内町"}},
		{"/town/indicators/births_per_1000?year=2020&pref=01", 200, []string{"2 市区町村中 1〜2 位", `value="01" selected`,
			`<td class="n">2</td><td class="n">1</td><td class="name"><a href="/town/municipalities/01100">札幌市</a></td><td class="n">`, `<td class="n">6.50</td>`,
			`href="https://hensachi.example/town/indicators/births_per_1000?pref=01&amp;year=2020"`}, []string{"千代田区", `<th scope="col">都道府県</th>`}}, // one prefecture: no column of it
		{"/town/indicators/fiscal_strength", 200, []string{"<code>finance.財政力指数</code>", "5 市区町村中 1〜5 位", "<th scope=\"col\" class=\"n\">値</th>",
			`<a href="/town/map?m=fiscal_strength&amp;year=2022">`}, []string{`id="from"`}}, // one year: no change to rank
		// among 中央区's 類似団体, the special wards: national ranks, and the rank within the group
		{"/town/indicators/births_per_1000?peers=13102", 200, []string{"<small>2023年・中央区の類似団体</small>", "2 市区町村中 1〜2 位",
			`<th scope="col" class="n">類似団体内</th>`, `<input type="hidden" name="peers" value="13102">`, `id="peers-note"`,
			`<td class="n">3</td><td class="n">2</td><td class="name"><a href="/town/municipalities/13102">中央区</a>`,
			`href="https://hensachi.example/town/indicators/births_per_1000?peers=13102"`}, []string{"札幌市"}},
		{"/town/indicators/births_per_1000?peers=99999", 404, []string{"市区町村コード 99999 はありません"}, nil},
		{"/town/indicators/births_per_1000?peers=abc", 400, nil, nil},
		// the change among the 類似団体: 中央区 first in the country and in the group; the forms keep peers
		{"/town/indicators/births_per_1000?from=2020&to=2023&peers=13102", 200, []string{"<small>2020→2023年の変化・中央区の類似団体</small>", "2 市区町村中 1〜2 位",
			`<th scope="col" class="n">類似団体内</th>`, `<td class="n">1</td><td class="n">1</td><td class="name"><a href="/town/municipalities/13102">中央区</a>`,
			`<input type="hidden" name="peers" value="13102"><span class="field"><label for="from">`,
			`<a href="/town/indicators/births_per_1000?from=2020&amp;to=2023">全国のランキングへ</a>`,
			`href="https://hensachi.example/town/indicators/births_per_1000?from=2020&amp;peers=13102&amp;to=2023"`}, []string{"札幌市"}},
		// a municipality outside the group is not marked, and the page says why
		{"/town/indicators/births_per_1000?peers=13102&highlight=01100", 200, []string{"札幌市は中央区の類似団体（特別区）ではないため、このランキングにはありません。"}, []string{`class="mark"`}},
		// the change 2020→2023: 中央区 5.25 → 5.60 (+0.35) first, 札内町 (no 2020) left out
		{"/town/indicators/births_per_1000?from=2020&to=2023", 200, []string{"<h1>出生率（人口千人当たり） <small>2020→2023年の変化</small></h1>", "4 市区町村中 1〜4 位",
			`<td class="n">1</td><td class="name"><a href="/town/municipalities/13102">中央区</a></td><td class="name">東京都</td><td class="n">61.5</td><td class="n">&#43;0.35</td><td class="n">5.25</td><td class="n">5.60</td>`,
			`<td class="n">-0.40</td><td class="n">6.50</td><td class="n">6.10</td>`,
			`<th scope="col" class="n">変化<br><span class="unit">‰</span></th><th scope="col" class="n">2020年（‰）</th><th scope="col" class="n">2023年（‰）</th>`,
			`<select id="from" name="from"><option selected>2020</option>`, `<option selected>2023</option></select></span>`,
			"変化は2023年の値から2020年の値を引いた差（‰）です。", "最も増えた（上がった）市区町村が1位",
			`<a href="/town/map?from=2020&amp;m=births_per_1000&amp;to=2023">`, "from=2020&amp;to=2023</code>",
			`href="https://hensachi.example/town/indicators/births_per_1000?from=2020&amp;to=2023"`}, []string{"札内町", `id="distribution"`}},
		{"/town/indicators/births_per_1000?from=2020&to=2023&pref=01", 200, []string{"2 市区町村中 1〜2 位", `<input type="hidden" name="pref" value="01">`,
			`href="https://hensachi.example/town/indicators/births_per_1000?from=2020&amp;pref=01&amp;to=2023"`}, []string{"千代田区"}},
		{"/town/indicators/births_per_1000?from=2020&to=2023&highlight=01100", 200, []string{`<tr class="mark" id="m-01100" aria-current="true"><td class="n">4</td>`,
			`<input type="hidden" name="highlight" value="01100"><button type="submit">変化で並べる</button>`}, nil},
		{"/town/indicators/births_per_1000?from=2023&to=2020", 400, []string{"to の年（2020）は from の年（2023）より後に"}, nil},
		{"/town/indicators/births_per_1000?from=2020", 400, []string{"from と to の両方"}, nil},
		{"/town/indicators/births_per_1000?year=2020&from=2020&to=2023", 400, []string{"year と from・to は一緒に指定できません"}, nil},
		{"/town/indicators/fiscal_strength?from=2022&to=2022", 400, []string{"変化を出しません"}, nil},
		{"/town/indicators/nope", 404, []string{"この指標はありません"}, nil},
		{"/town/indicators/births_per_1000?year=2019", 400, []string{"この指標の年は 2020, 2023 のいずれかです"}, nil},
		{"/town/indicators/births_per_1000?year=abc", 400, nil, nil},
		{"/town/indicators/births_per_1000?year=2020&year=2023", 400, nil, nil},
		{"/town/indicators/births_per_1000?pref=99", 400, []string{"都道府県コード 99 はありません"}, nil},
		{"/town/indicators/births_per_1000?page=2", 404, []string{"このページはありません"}, nil},
		{"/town/indicators/births_per_1000?page=0", 400, nil, nil},
		// two values: their change instead of a line; one: nothing
		{"/town/municipalities/01100", 200, []string{`<h2 id="indicators">`, `<details class="ind"><summary><h3>人口・世帯 <small>1 指標</small></h3></summary>`,
			`<li><a href=01100/indicators/births_per_1000>出生率（人口千人当たり）</a> <span class=nb>6.10 ‰</span>（2023）・全国 2 / 5 位・偏差値 55.2・類似団体 1 / 1 位 <small class=nb>2020 → 2023: -0.40 ‰</small>` + "\n",
			`<li><a href=01100/indicators/fiscal_strength>財政力指数</a> 0.72（2022）・全国 3 / 5 位・偏差値 50.0・類似団体 1 / 1 位` + "\n"}, []string{"<svg role=img"}},
		// no value in 2020: one value, nothing drawn
		{"/town/municipalities/01345", 200, []string{` <span class=nb>4.20 ‰</span>（2023）・全国 5 / 5 位・偏差値 37.2・類似団体 1 / 1 位` + "\n"}, nil},
	})
}

// TestMunicipalityIndicatorFigures: every municipality page shows town's latest value, rank,
// deviation score and rank within its 類似団体 of every indicator, after a link to the
// municipality's page of it.
func TestMunicipalityIndicatorFigures(t *testing.T) {
	router := siteRouter(t)
	c := towntest.Catalog()
	for m := range c.Len() {
		code := c.Row(m).Code
		_, body := getPage(t, router, "/town/municipalities/"+code)
		for _, st := range c.MunicipalityIndicators(m, c.IndicatorGroupIndexes("")) {
			link := "<li><a href=" + code + "/indicators/" + st.Indicator.Key + ">" + st.Indicator.Label + "</a> "
			want := link + "—（" + strconv.Itoa(st.Latest.Year) + "）"
			if p := st.Latest; p.Value.Valid {
				want = link + string(page.Nowrap(number(p.Value.V, st.Indicator.Decimals)+optionalUnit(st.Indicator))) + "（" + strconv.Itoa(p.Year) +
					"）・全国 " + strconv.Itoa(p.Rank) + " / " + strconv.Itoa(st.RankTotal) + " 位・偏差値 " + strconv.FormatFloat(p.Hensachi, 'f', 1, 64)
				peers := c.RankInPeers(c.IndicatorIndex(st.Indicator.Key), len(st.Series)-1, m)
				want += "・類似団体 " + strconv.Itoa(peers.Rank) + " / " + strconv.Itoa(peers.Total) + " 位"
			}
			if !strings.Contains(body, want) {
				t.Errorf("%s %s: no %q", code, st.Indicator.Key, want)
			}
		}
	}
}

func optionalUnit(ind *hensachi.Indicator) string {
	if ind.Unit == "" {
		return ""
	}
	return " " + ind.Unit
}

func TestFormulaText(t *testing.T) {
	tests := []struct {
		f    hensachi.Formula
		want string
	}{
		{hensachi.Formula{Items: []string{"A1101"}}, "A1101"},
		{hensachi.Formula{Items: []string{"A1301", "A1302"}}, "A1301 + A1302"},
		{hensachi.Formula{Items: []string{"A4101"}, Minus: []string{"A4200"}}, "A4101 − A4200"},
		{hensachi.Formula{Items: []string{"A1301", "A1302"}, Scale: 0.001}, "0.001 × (A1301 + A1302)"},
		{hensachi.Formula{Numerator: []string{"A4101"}, Denominator: []string{"A1101"}, Scale: 1000}, "1000 × A4101 ÷ A1101"},
		{hensachi.Formula{Numerator: []string{"A5101"}, Minus: []string{"A5102"}, Denominator: []string{"A1101", "A1102"}, Scale: 100},
			"100 × (A5101 − A5102) ÷ (A1101 + A1102)"},
		{hensachi.Formula{Numerator: []string{"furusato.receipts_thousand_yen"}, Denominator: []string{"D3201"}}, "furusato.receipts_thousand_yen ÷ D3201"},
		{hensachi.Formula{Items: []string{"jumin.population"}, Scale: 100, ChangeOver: 5}, "100 × (jumin.population(Y) − jumin.population(Y−5)) ÷ jumin.population(Y−5)"},
	}
	for _, tc := range tests {
		if got := formulaText(tc.f); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.f, got, tc.want)
		}
	}
}

// TestAppendPath: a series' line breaks at a missing year and at a break in its definition, and
// a lone point is a dot.
func TestAppendPath(t *testing.T) {
	at := func(year int, v float64) town.IndicatorPoint {
		return town.IndicatorPoint{Year: year, Value: hensachi.Some(v)}
	}
	none := func(year int) town.IndicatorPoint { return town.IndicatorPoint{Year: year} }
	sx, sy := scale{lo: 2010, hi: 2020, from: 0, to: 100}, scale{lo: 0, hi: 10, from: 10, to: 0}
	tests := []struct {
		name   string
		points []town.IndicatorPoint
		breaks []int
		want   string
	}{
		{"whole", []town.IndicatorPoint{at(2010, 0), at(2015, 5), at(2020, 10)}, nil, "M0,10L50,5L100,0"},
		{"gap", []town.IndicatorPoint{at(2010, 0), at(2012, 2), none(2015), at(2018, 8), at(2020, 10)}, nil, "M0,10L20,8M80,2L100,0"},
		{"lone points", []town.IndicatorPoint{at(2010, 0), none(2015), at(2020, 10)}, nil, "M0,10L0,10M100,0L100,0"},
		{"break", []town.IndicatorPoint{at(2010, 0), at(2015, 5), at(2020, 10)}, []int{2015}, "M0,10L0,10M50,5L100,0"},
		{"nothing", []town.IndicatorPoint{none(2010), none(2020)}, nil, ""},
	}
	for _, tc := range tests {
		if got := string(appendPath(nil, tc.points, tc.breaks, sx, sy)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	// a reference line's lone points are level strokes
	lone := []town.IndicatorPoint{at(2010, 0), at(2015, 5), none(2018), at(2020, 10)}
	if got, want := string(appendRuns(nil, lone, []int{2015}, sx, sy, 4)), "M-4,10h8M46,5h8M96,0h8"; got != want {
		t.Errorf("lone points of a reference: %q, want %q", got, want)
	}
}

// TestFormulaWords: an indicator's formula in words, as its page shows it: a sentence, and 分子,
// 分母 and 倍率 (or the items summed, or the change over years), each item's code with its name
// beside it, the denominator's date in words; an item the dataset does not name shows its code.
func TestFormulaWords(t *testing.T) {
	names := map[string]string{"A4101": "出生数", "A1101": "総人口", "A4200": "死亡数", "A1102": "日本人人口",
		"finance.財政力指数": "財政力指数", "jumin.population": "住民基本台帳人口（1月1日、日本人住民と外国人住民）"}
	name := func(item string) string { return names[item] }
	tests := []struct {
		ind      hensachi.Indicator
		sentence string
		parts    []string // label: items and note, as the page's rows read
	}{
		{hensachi.Indicator{Formula: hensachi.Formula{Numerator: []string{"A4101"}, Denominator: []string{"A1102"}, Scale: 1000},
			DenominatorSource: hensachi.DenominatorCensusJapanese},
			"分子 「出生数」（A4101）を、分母 「日本人人口」（A1102）で割り、1,000 を掛けます。",
			[]string{"分子: A4101 出生数", "分母: A1102 日本人人口 / 分子の年に最も近い国勢調査年の日本人人口", "倍率: / 1,000"}},
		{hensachi.Indicator{Formula: hensachi.Formula{Numerator: []string{"A4101"}, Minus: []string{"A4200"}, Denominator: []string{"A1101"}, Scale: 1000},
			DenominatorSource: hensachi.DenominatorCensus},
			"分子 「出生数」（A4101）から「死亡数」（A4200）を引いた値を、分母 「総人口」（A1101）で割り、1,000 を掛けます。",
			[]string{"分子: A4101 出生数", "分子から引く項目: A4200 死亡数", "分母: A1101 総人口 / 分子の年に最も近い国勢調査年の値", "倍率: / 1,000"}},
		{hensachi.Indicator{Formula: hensachi.Formula{Items: []string{"finance.財政力指数"}}},
			"「財政力指数」（finance.財政力指数）です。", []string{"項目: finance.財政力指数 財政力指数"}},
		{hensachi.Indicator{Formula: hensachi.Formula{Items: []string{"A1301", "A1302"}, Scale: 0.001}},
			"A1301とA1302の合計に 0.001 を掛けます。", []string{"項目: A1301, A1302", "倍率: / 0.001"}},
		{hensachi.Indicator{Formula: hensachi.Formula{Items: []string{"jumin.population"}, Scale: 100, ChangeOver: 5}},
			"「住民基本台帳人口（1月1日、日本人住民と外国人住民）」（jumin.population）の 5 年間の増減を、5 年前の値で割り、100 を掛けます。",
			[]string{"項目: jumin.population 住民基本台帳人口（1月1日、日本人住民と外国人住民）", "変化: / 5 年前からの増減を 5 年前の値で割る", "倍率: / 100"}},
	}
	for _, tc := range tests {
		w := wordsOf(&tc.ind, name)
		if w.Sentence != tc.sentence {
			t.Errorf("%+v: %q, want %q", tc.ind.Formula, w.Sentence, tc.sentence)
		}
		var parts []string
		for _, p := range w.Parts {
			var items []string
			for _, it := range p.Items {
				items = append(items, strings.TrimSpace(it.Code+" "+it.Name))
			}
			s := strings.TrimSpace(p.Label + ": " + strings.Join(items, ", "))
			if p.Note != "" {
				s += " / " + p.Note
			}
			parts = append(parts, s)
		}
		if strings.Join(parts, "\n") != strings.Join(tc.parts, "\n") {
			t.Errorf("%+v: parts\n%s\nwant\n%s", tc.ind.Formula, strings.Join(parts, "\n"), strings.Join(tc.parts, "\n"))
		}
	}
}
