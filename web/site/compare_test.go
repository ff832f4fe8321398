package site

import (
	"math"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/town"
)

// form is a page's form as a browser sends it: its action and the values of its fields.
type form struct {
	action string
	fields []formField
}

type formField struct {
	tag, name, value string // tag: input, hidden (an input of that type) or select
	selected         int    // options marked selected, for a select
}

// findForm reads the form of id on a page: every named input's value and every select's selected
// option (the first when none is marked, as a browser sends it).
func findForm(t *testing.T, body, id string) form {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	attr := func(n *html.Node, key string) (string, bool) {
		for _, a := range n.Attr {
			if a.Key == key {
				return a.Val, true
			}
		}
		return "", false
	}
	var found *html.Node
	for n := range doc.Descendants() {
		if v, _ := attr(n, "id"); n.Type == html.ElementNode && n.Data == "form" && v == id {
			found = n
		}
	}
	if found == nil {
		t.Fatalf("no form %s", id)
	}
	f := form{}
	f.action, _ = attr(found, "action")
	for n := range found.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		name, named := attr(n, "name")
		switch {
		case !named:
		case n.Data == "input":
			v, _ := attr(n, "value")
			tag := n.Data
			if typ, _ := attr(n, "type"); typ == "hidden" {
				tag = typ
			}
			f.fields = append(f.fields, formField{tag: tag, name: name, value: v})
		case n.Data == "select":
			field := formField{tag: n.Data, name: name}
			first := true
			for o := range n.Descendants() {
				if o.Type != html.ElementNode || o.Data != "option" {
					continue
				}
				v, ok := attr(o, "value")
				if !ok && o.FirstChild != nil {
					v = o.FirstChild.Data
				}
				if _, sel := attr(o, "selected"); sel {
					field.selected++
					field.value = v
				} else if first && field.selected == 0 {
					field.value = v
				}
				first = false
			}
			f.fields = append(f.fields, field)
		}
	}
	return f
}

// submit is the address the form sends, with fill's values in the fields they name that a reader
// can change (not the hidden ones).
func (f form) submit(fill map[string]string) string {
	v := url.Values{}
	for _, field := range f.fields {
		value := field.value
		if x, ok := fill[field.name]; ok && field.tag != "hidden" {
			value = x
		}
		v.Add(field.name, value)
	}
	return f.action + "?" + v.Encode()
}

// field is the value of the form's field name (the last of that name).
func (f form) field(name string) (formField, bool) {
	for _, field := range slices.Backward(f.fields) {
		if field.name == name {
			return field, true
		}
	}
	return formField{}, false
}

// links are the hrefs of the anchors of a page whose text is text, with the entities unescaped.
func links(body, text string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<a (?:[a-z]+="[^"]*" )*href="([^"]+)"[^>]*>`+regexp.QuoteMeta(text)+`</a>`).FindAllStringSubmatch(body, -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}

// TestCompareIndicators: a comparison with indicators draws one chart per indicator, a line per
// municipality in their order and the national median's, with each municipality's value,
// deviation score and rank of every survey year in a table under it; the page keeps the
// indicators in every address it prints and refuses more than four.
func TestCompareIndicators(t *testing.T) {
	router := siteRouter(t)
	path := "/town/compare?codes=13101,01100,01345&indicators=births_per_1000,fiscal_strength@2022"
	status, body := getPage(t, router, path)
	if status != 200 {
		t.Fatalf("%s: %d", path, status)
	}
	checkBody(t, path, body, []string{
		`<h3 id="indicator-births_per_1000">出生率（人口千人当たり）`, `<h3 id="indicator-fiscal_strength">財政力指数`,
		`aria-labelledby="series-1-title"`, `aria-labelledby="series-2-title"`,
		// 札内町 has no 2020 value: a dash in the table, its 2023 one alone in the text alternative
		"札内町 2023年 4.20 ‰、", `<td class="n">—</td>`,
		// 千代田区's 2020 birth rate, its deviation score and rank, and the national median
		`<td class="n"><span class=nb>7.10 ‰</span><br><span class="note">61.5・<span class=nb>1 位</span></span></td>`,
		"全国の中央値 2020年 5.88 ‰ → 2023年 5.60 ‰",
		// the hidden fields keep the comparison; the canonical address names the indicators without a year
		`<input type="hidden" name="codes" value="13101,01100,01345">`, `<input type="hidden" name="indicators" value="births_per_1000,fiscal_strength">`,
		`<link rel="canonical" href="https://hensachi.example/town/compare?codes=13101,01100,01345&amp;indicators=births_per_1000,fiscal_strength">`,
		`<option value="births_per_1000" disabled>`, `<option value="">指標を選ぶ</option>`,
	}, nil)
	if n := strings.Count(body, `<svg class="chart series"`); n != 2 {
		t.Errorf("%d series charts, want 2", n)
	}
	if n := strings.Count(body, `<tr><th scope="row">20`); n != 3 {
		t.Errorf("%d rows of years, want 3 (2020, 2023; 2022)", n)
	}
	// every municipality's line, each in its own colour, the median dashed
	for _, colour := range seriesColours[:3] {
		if !strings.Contains(body, `stroke="`+colour+`" stroke-width="2.5" stroke-linejoin`) {
			t.Errorf("no line in %s", colour)
		}
	}
	// every link to another comparison keeps the indicators
	for _, l := range append(links(body, "外す"), links(body, "函館市")...) {
		u, err := url.Parse(l)
		if err != nil || u.Path != "/town/compare" {
			t.Errorf("link %q", l)
			continue
		}
		if got := u.Query().Get("indicators"); got != "births_per_1000,fiscal_strength" && got != "births_per_1000" && got != "fiscal_strength" {
			t.Errorf("link %q drops the indicators", l)
		}
	}
	for _, tc := range []struct {
		path string
		want string
	}{
		{"/town/compare?codes=13101&indicators=nope", "「nope」"},
		{"/town/compare?codes=13101&indicators=young", "「young」"},
		{"/town/compare?codes=13101&indicators=births_per_1000,fiscal_strength,births_per_1000@2020,fiscal_strength@2022,births_per_1000@2023", "1 から 4 までのキー"},
		{"/town/compare?codes=13101&indicators=births_per_1000@1999", "births_per_1000 の年は 2020, 2023"},
		{"/town/compare?codes=13101&q=a&q=b", "q が 2 回"},
	} {
		status, body := getPage(t, router, tc.path)
		if status != 400 || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d, want 400 with %q", tc.path, status, tc.want)
		}
	}
}

// TestCompareFormRoundTrip walks the comparison as a reader does, through its forms and links:
// search a name, add what it finds, add an indicator, take a municipality and an indicator out;
// each step keeps what the others chose.
func TestCompareFormRoundTrip(t *testing.T) {
	router := siteRouter(t)
	get := func(path string) string {
		t.Helper()
		status, body := getPage(t, router, path)
		if status != 200 {
			t.Fatalf("%s: %d", path, status)
		}
		return body
	}
	// compared is what the indicator form's hidden fields keep
	compared := func(body string) (codes []string, indicators []string) {
		t.Helper()
		for _, field := range findForm(t, body, "indicator-form").fields {
			if field.tag == "hidden" {
				list := strings.Split(field.value, ",")
				if field.name == "codes" {
					codes = list
				} else {
					indicators = list
				}
			}
		}
		return codes, indicators
	}

	body := get("/town/compare?codes=13101&indicators=fiscal_strength")
	// a name search: the text field sent with the hidden fields lists what it finds, each to add
	path := findForm(t, body, "add-form").submit(map[string]string{"q": "はこだて"})
	body = get(path)
	add := links(body, "追加")
	if len(add) != 1 || !strings.Contains(body, `<ul class="links" id="found"><li>函館市 `) {
		t.Fatalf("%s: adding %v", path, add)
	}
	body = get(add[0])
	if codes, inds := compared(body); !slices.Equal(codes, []string{"13101", "01202"}) || !slices.Equal(inds, []string{"fiscal_strength"}) {
		t.Fatalf("%s: compares %v on %v", add[0], codes, inds)
	}
	// a search finds nothing it already compares, and says so
	body2 := get(findForm(t, body, "add-form").submit(map[string]string{"q": "函館"}))
	if len(links(body2, "追加")) != 0 || !strings.Contains(body2, `id="found-none"`) {
		t.Errorf("a search for a compared municipality offers it again")
	}
	// an indicator added with the select
	f := findForm(t, body, "indicator-form")
	if sel, _ := f.field("indicators"); sel.value != "" || sel.selected != 0 {
		t.Errorf("the indicator select starts on %q (%d selected), want its prompt", sel.value, sel.selected)
	}
	path = f.submit(map[string]string{"indicators": "births_per_1000"})
	body = get(path)
	if codes, inds := compared(body); !slices.Equal(codes, []string{"13101", "01202"}) || !slices.Equal(inds, []string{"fiscal_strength", "births_per_1000"}) {
		t.Fatalf("%s: compares %v on %v", path, codes, inds)
	}
	// the select sent on its prompt changes nothing
	if same := get(findForm(t, body, "indicator-form").submit(nil)); !strings.Contains(same, `aria-labelledby="series-2-title"`) {
		t.Errorf("the indicator form sent as it is lost an indicator")
	}
	// a municipality taken out, then an indicator
	out := links(body, "外す")
	if len(out) != 4 { // two municipalities, two indicators
		t.Fatalf("remove links %v", out)
	}
	body = get(out[0])
	if codes, inds := compared(body); !slices.Equal(codes, []string{"01202"}) || !slices.Equal(inds, []string{"fiscal_strength", "births_per_1000"}) {
		t.Errorf("%s: compares %v on %v", out[0], codes, inds)
	}
	body = get(out[2])
	if codes, inds := compared(body); !slices.Equal(codes, []string{"13101", "01202"}) || !slices.Equal(inds, []string{"births_per_1000"}) {
		t.Errorf("%s: compares %v on %v", out[2], codes, inds)
	}
}

// TestScatterFormKeepsAxes: the scatter's form has exactly the drawn measures and years selected,
// so that sending it again (with another prefecture) draws the same axes; every indicator is
// offered on both axes, and the year select offers each drawn indicator's years.
func TestScatterFormKeepsAxes(t *testing.T) {
	router := siteRouter(t)
	drawn := func(body string) (string, string) {
		m := regexp.MustCompile(`<link rel="canonical" href="([^"]+)">`).FindStringSubmatch(body)
		if m == nil {
			return "", ""
		}
		u, _ := url.Parse(html.UnescapeString(m[1]))
		return u.Query().Get("x"), u.Query().Get("y")
	}
	for _, tc := range []struct{ path, x, y string }{
		{"/town/scatter", "income", "young"},
		{"/town/scatter?x=births_per_1000@2020&y=fiscal_strength", "births_per_1000@2020", "fiscal_strength@2022"},
		{"/town/scatter?x=pop&y=births_per_1000&yyear=2020", "pop", "births_per_1000@2020"},
		{"/town/scatter?x=births_per_1000&y=doctor", "births_per_1000@2023", "doctor"},
		{"/town/scatter?x=fiscal_strength&y=births_per_1000@2023&pref=13", "fiscal_strength@2022", "births_per_1000@2023"},
	} {
		status, body := getPage(t, router, tc.path)
		if status != 200 {
			t.Fatalf("%s: %d", tc.path, status)
		}
		if x, y := drawn(body); x != tc.x || y != tc.y {
			t.Fatalf("%s draws %s × %s, want %s × %s", tc.path, x, y, tc.x, tc.y)
		}
		f := findForm(t, body, "scatter-form")
		for _, name := range []string{"x", "y"} {
			sel, _ := f.field(name)
			year, dated := f.field(name + "year")
			want := map[string]string{"x": tc.x, "y": tc.y}[name]
			key, wantYear, _ := strings.Cut(want, "@")
			if sel.selected != 1 || sel.value != key {
				t.Errorf("%s: %s select has %d selected, %q; want %q alone", tc.path, name, sel.selected, sel.value, key)
			}
			if dated != (wantYear != "") || dated && year.selected != 1 {
				t.Errorf("%s: %syear select %v with %d selected, want one for %q", tc.path, name, dated, year.selected, want)
			}
		}
		for _, ind := range []string{"births_per_1000", "fiscal_strength"} {
			if n := strings.Count(body, `<option value="`+ind+`"`); n != 2 {
				t.Errorf("%s: %s offered %d times, want on both axes", tc.path, ind, n)
			}
		}
		// the form sent again, another prefecture picked, draws the same axes
		again := f.submit(map[string]string{"pref": "01"})
		status, body = getPage(t, router, again)
		if x, y := drawn(body); status != 200 || x != tc.x || y != tc.y {
			t.Errorf("%s: its form sends %s, which draws %s × %s (%d)", tc.path, again, x, y, status)
		}
	}
	// an older year is offered for the drawn indicator, and drawn when picked
	_, body := getPage(t, router, "/town/scatter?x=births_per_1000&y=income")
	path := findForm(t, body, "scatter-form").submit(map[string]string{"xyear": "2020"})
	if _, body = getPage(t, router, path); !strings.Contains(body, "出生率（人口千人当たり）（2020年）") {
		t.Errorf("%s: not drawn in 2020", path)
	}
	if status, body := getPage(t, router, "/town/scatter?x=income&xyear=2020"); status != 400 || !strings.Contains(body, "xyear は指標のキー") {
		t.Errorf("a year beside an axis: %d", status)
	}
}

// TestSeriesScale: a series chart's scale is logarithmic only for positive values spanning two
// orders of magnitude.
func TestSeriesScale(t *testing.T) {
	for _, tc := range []struct {
		values []float64
		log    bool
	}{
		{[]float64{800, 3_700_000, 20_000}, true},
		{[]float64{0.06, 0.95, 0.5}, false}, // sixteen times apart: the differences are what a reader compares
		{[]float64{0, 500, 100_000}, false},
		{[]float64{-3, 2}, false},
		{nil, false},
	} {
		if s := seriesScale(tc.values, 100, 0); s.log != tc.log {
			t.Errorf("%v: log %v, want %v", tc.values, s.log, tc.log)
		}
	}
}

// TestComparedSeriesChart: a compared series chart joins a line's values year to year, never across a year without
// a value nor across a break in the definition, marks every value with the line's own marker,
// tells up to ten lines apart by colour and by marker, and says each line's first and last
// values.
func TestComparedSeriesChart(t *testing.T) {
	ind := &hensachi.Indicator{Key: "k", Label: "指標", Unit: "%", Decimals: 1, Breaks: []int{2019}}
	points := func(vs ...float64) []town.IndicatorPoint {
		out := make([]town.IndicatorPoint, len(vs))
		for k, v := range vs {
			out[k].Year = 2015 + k
			if v == v {
				out[k].Value = hensachi.Some(v)
			}
		}
		return out
	}
	for y := 2015; y <= 2020; y++ {
		ind.Years = append(ind.Years, hensachi.IndicatorYear{Year: y, Count: 1})
	}
	nan := math.NaN()
	lines := []seriesLine{
		{Name: "甲町", Points: points(1, 2, nan, 4, 5, 6)}, // 2015–16, 2018 (the break at 2019 ends it), 2019–20
		{Name: "乙村", Points: points(nan, nan, nan, nan, nan, nan)},
		{Name: "全国の中央値", Class: "ln-national", Points: points(3, 3, 3, 3, 3, 3)},
	}
	chart := string(comparedSeriesChart("s", ind, lines))
	paths := regexp.MustCompile(`<path d="([^"]*)" fill="none" stroke="([^"]+)"`).FindAllStringSubmatch(chart, -1)
	if len(paths) != 1 { // 乙村 has no value to draw
		t.Fatalf("%d municipalities' lines drawn, want 1: %s", len(paths), chart)
	}
	if runs := strings.Count(paths[0][1], "M"); runs != 3 || paths[0][2] != seriesColours[0] {
		t.Errorf("甲町's line %q in %d runs of %s, want 3 (apart at the missing 2017 and the 2019 break) of the first colour", paths[0][1], runs, paths[0][2])
	}
	median := regexp.MustCompile(`<path class="ln ln-national" d="([^"]*)"/>`).FindStringSubmatch(chart)
	if median == nil || strings.Count(median[1], "M") != 2 {
		t.Errorf("the median %q, want two runs", median)
	}
	checkBody(t, "series chart", chart, []string{
		"<title id=\"s-title\">指標の推移：甲町 2015年 1.0 % → 2020年 6.0 %、乙村 データなし、全国の中央値 2015年 3.0 % → 2020年 3.0 %</title>",
		`marker-start="url(#s-m0)" marker-mid="url(#s-m0)" marker-end="url(#s-m0)"`, "定義変更", "↑ 指標（%）", "調査年",
		`<ul class="legend">`, "</svg>甲町</li>", "</svg>乙村</li>", `<path class="ln ln-national" d="M3,7h38"/></svg>全国の中央値</li>`,
	}, nil)
	seen := map[string]bool{}
	for k := range seriesColours {
		if seen[seriesMark(k)] || seen[seriesColours[k]] {
			t.Errorf("line %d shares its colour or marker", k)
		}
		seen[seriesMark(k)], seen[seriesColours[k]] = true, true
	}
}
