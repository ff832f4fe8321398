package site

import (
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
	"github.com/hensachi/hensachi/town"
)

// municipalityBudget is the most a municipality page may weigh uncompressed, every section of
// indicators included.
const municipalityBudget = 150_000

// pageBudget is the most any other public page but the scatter may weigh uncompressed: the
// heaviest is the catalogue, some 190 bytes for each of the 319 indicators (about 10 KB gzipped).
const pageBudget = 64_000

// render serves a page through the site's routes without a socket.
func (s *realSite) render(t *testing.T, path string) (int, string) {
	t.Helper()
	w := httptest.NewRecorder()
	s.handler.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
	return w.Code, w.Body.String()
}

// municipalityIndicatorPages renders the municipality pages of the rows pick accepts: each has
// a section per group with a row and a sparkline (or the change of two values) per indicator, each
// linking to the municipality's page of it, and the heaviest is within the budget. The heaviest are those with the largest figures: 横浜市 (14100), then 札幌市 (01100).
func municipalityIndicatorPages(t *testing.T, s *realSite, c *town.Catalog, pick func(m int, code string) bool) {
	n := len(c.Indicators(""))
	sizes := map[string]int{}
	largest, largestCode := 0, ""
	// Matched line by line: searching a whole page for the pattern costs five times more.
	row := regexp.MustCompile(`^<li><a href=(\d{5}/indicators/[a-z0-9_]+)>[^<]+</a> (<span class=nb>[^<]+</span>)?[^<]+` +
		`(<a href=(\d{5}/indicators/[a-z0-9_]+)><svg role=img aria-label="[^"]+"><path d=[ML0-9,]+ /></svg></a>| <small class=nb>[^<]+</small>)?\n$`)
	for m := range c.Len() {
		code := c.Row(m).Code
		if !pick(m, code) {
			continue
		}
		status, body := s.render(t, "/town/municipalities/"+code)
		if status != 200 {
			t.Errorf("%s: %d", code, status)
			continue
		}
		if got := strings.Count(body, `<details class="ind">`); got != len(hensachi.IndicatorGroups) {
			t.Errorf("%s: %d sections of indicators, want %d", code, got, len(hensachi.IndicatorGroups))
		}
		rows := 0
		for line := range strings.Lines(body) {
			if !strings.HasPrefix(line, "<li><a href="+code+"/indicators/") {
				continue
			}
			// the name and the sparkline lead to the same page
			if r := row.FindStringSubmatch(line); r != nil && (r[4] == "" || r[4] == r[1]) {
				rows++
			}
		}
		if got := rows; got != n {
			t.Errorf("%s: %d indicator rows, want %d", code, got, n)
		}
		if len(body) > largest {
			largest, largestCode = len(body), code
		}
		sizes[code] = len(body)
	}
	if largest > municipalityBudget {
		t.Errorf("largest municipality page %s: %d bytes, budget %d", largestCode, largest, municipalityBudget)
	}
	t.Logf("%d municipality pages: largest %s %d bytes; 横浜市 %d, 札幌市 %d", len(sizes), largestCode, largest, sizes["14100"], sizes["01100"])
}

// TestMunicipalityPageBudget renders every municipality's page within the budget.
func TestMunicipalityPageBudget(t *testing.T) {
	testenv.Slow(t, "every municipality page")
	s := newRealSite(t, "https://hensachi.example")
	c, err := s.catalogs.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	municipalityIndicatorPages(t, s, c, func(int, string) bool { return true })
}

// TestIndicatorPagesOnRealData renders a sample of municipality pages (the heaviest among them),
// the catalogue and every indicator's ranking in every survey year from the real dataset: the
// municipality pages have every indicator within their budget, the catalogue links every
// indicator, and each ranking page shows town's first rank and value and the count ranked, within
// the budget of the other pages.
func TestIndicatorPagesOnRealData(t *testing.T) {
	s := newRealSite(t, "https://hensachi.example")
	c, err := s.catalogs.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	all := c.Indicators("")
	if len(all) < 300 {
		t.Fatalf("%d indicators in the real dataset", len(all))
	}
	municipalityIndicatorPages(t, s, c, func(m int, code string) bool { return m%25 == 0 || code == "14100" || code == "01100" })

	status, body := s.render(t, "/town/indicators")
	if status != 200 || len(body) > pageBudget {
		t.Errorf("/town/indicators: %d, %d bytes, budget %d", status, len(body), pageBudget)
	}
	for _, ind := range all {
		if !strings.Contains(body, `<li><a href=indicators/`+ind.Key+`>`) {
			t.Errorf("/town/indicators: no link to %s", ind.Key)
		}
	}
	t.Logf("/town/indicators: %d bytes", len(body))

	largest, largestPath := 0, ""
	for i, ind := range all {
		for k, y := range ind.Years {
			path := "/town/indicators/" + ind.Key + "?year=" + strconv.Itoa(y.Year)
			status, body := s.render(t, path)
			if status != 200 {
				t.Errorf("%s: %d", path, status)
				continue
			}
			if len(body) > largest {
				largest, largestPath = len(body), path
			}
			first := c.IndicatorRankingPage(i, k, town.BestFirst, town.Scope{}, 0, 1)
			if len(first.Items) == 0 {
				t.Errorf("%s: nobody ranked", path)
				continue
			}
			top := first.Items[0]
			want := `<td class="n">` + strconv.Itoa(top.Rank) + `</td><td class="name"><a href="/town/municipalities/` + top.Municipality.Code + `">` +
				top.Municipality.Name + `</a></td><td class="name">` + top.Municipality.Prefecture.Name + `</td><td class="n">` +
				strconv.FormatFloat(top.Hensachi, 'f', 1, 64) + `</td><td class="n">` + number(top.Value.V, ind.Decimals)
			if top.Value.V == 0 && ind.ZeroLabel != "" {
				want += "（" + ind.ZeroLabel + "）"
			}
			want += `</td>`
			if !strings.Contains(body, want) || !strings.Contains(body, number(float64(first.Total), 0)+" 市区町村中 1〜") {
				t.Errorf("%s: no first row %s or total %d", path, want, first.Total)
			}
		}
	}
	if largest > pageBudget {
		t.Errorf("largest indicator page %s: %d bytes, budget %d", largestPath, largest, pageBudget)
	}
	t.Logf("largest indicator page %s: %d bytes", largestPath, largest)
}

// TestFormulaWordsOnRealData: on the real dataset every item of every formula has its name, and
// the indicator pages say a few real formulas in words with those names.
func TestFormulaWordsOnRealData(t *testing.T) {
	s := newRealSite(t, "https://hensachi.example")
	c, err := s.catalogs.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	for _, ind := range c.Indicators("") {
		f := ind.Formula
		for _, item := range slices.Concat(f.Counted(), f.Minus, f.Denominator) {
			if c.ItemName(item) == "" {
				t.Errorf("%s: item %s has no name in the dataset", ind.Key, item)
			}
		}
	}
	if !strings.Contains(c.ItemName("A4101"), "出生") || !strings.Contains(c.ItemName("A1102"), "日本人") || !strings.Contains(c.ItemName("A4200"), "死亡") {
		t.Errorf("SSDSE-A's names: A4101 %q, A1102 %q, A4200 %q", c.ItemName("A4101"), c.ItemName("A1102"), c.ItemName("A4200"))
	}
	named := func(item string) string { return "「" + c.ItemName(item) + "」（" + item + "）" }
	for path, want := range map[string][]string{
		"/town/indicators/births_per_1000": {"分子 " + named("A4101") + "を、分母 " + named("A1102") + "で割り、1,000 を掛けます。",
			`<tr><th scope="row">分母</th><td><code>A1102</code> ` + c.ItemName("A1102") + `<br><span class="note">分子の年に最も近い国勢調査年の日本人人口</span></td></tr>`,
			`<tr><th scope="row">倍率</th><td>1,000</td></tr>`},
		"/town/indicators/natural_increase_per_1000": {"分子 " + named("A4101") + "から" + named("A4200") + "を引いた値を、分母 " + named("A1102") + "で割り、1,000 を掛けます。",
			`<tr><th scope="row">分子から引く項目</th><td><code>A4200</code> ` + c.ItemName("A4200") + `</td></tr>`},
		"/town/indicators/fiscal_strength": {`<span id="formula-words">「財政力指数」（finance.財政力指数）です。</span>`},
		"/town/indicators/jumin_population_change_5y": {"「住民基本台帳人口（1月1日、日本人住民と外国人住民）」（jumin.population）の 5 年間の増減を、5 年前の値で割り、100 を掛けます。",
			"<code>100 × (jumin.population(Y) − jumin.population(Y−5)) ÷ jumin.population(Y−5)</code>"},
	} {
		status, body := s.render(t, path)
		if status != 200 {
			t.Errorf("%s: %d", path, status)
			continue
		}
		for _, w := range want {
			if !strings.Contains(body, w) {
				t.Errorf("%s has no %s", path, w)
			}
		}
	}
}
