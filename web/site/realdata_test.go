package site

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/realdata"
	"github.com/hensachi/hensachi/town"
)

// realSite is the public pages and the API documentation over the real dataset, served on a
// loopback port as the server routes them (GET also answers HEAD), without the API.
type realSite struct {
	URL      string
	catalogs *town.Catalogs
	handler  http.Handler // the routes, for a benchmark that calls them directly
}

// newRealSite serves the site over the real dataset; its links and the documentation's examples
// point at publicURL, or at the site itself when publicURL is empty.
func newRealSite(t testing.TB, publicURL string) *realSite {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &realSite{URL: "http://" + ln.Addr().String()}
	if publicURL == "" {
		publicURL = s.URL
	}
	s.catalogs = realdata.Catalogs(t, publicURL)
	doc, err := os.ReadFile("../../serve/openapi.json")
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	pages, err := New(Deps{Catalogs: s.catalogs, PublicURL: publicURL, OpenAPI: doc})
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	router := httprouter.New()
	router.RedirectTrailingSlash, router.RedirectFixedPath = false, false
	pages.Routes(func(method, path string, h httprouter.Handle) {
		router.Handle(method, path, h)
		if method == http.MethodGet {
			router.Handle(http.MethodHead, path, h)
		}
	})
	s.handler = router
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: router}}
	srv.Start()
	t.Cleanup(srv.Close)
	return s
}

// get fetches a page.
func (s *realSite) get(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(s.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// TestSiteOnRealData renders the public pages from the real dataset: a sample of municipality
// pages within the weight budget, every ranking, every prefecture, and searches by kanji and kana.
func TestSiteOnRealData(t *testing.T) {
	s := newRealSite(t, "https://hensachi.example")
	const maxPage = municipalityBudget
	c, err := s.catalogs.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	largest := 0
	for i, m := range c.Search("市", 2000) {
		if i%25 != 0 {
			continue
		}
		status, body := s.get(t, "/town/municipalities/"+m.Code)
		if status != 200 || !strings.Contains(body, m.Name) || !strings.Contains(body, "<svg") {
			t.Errorf("%s %s: %d", m.Code, m.Name, status)
		}
		largest = max(largest, len(body))
	}
	if largest > maxPage {
		t.Errorf("largest municipality page %d bytes, budget %d", largest, maxPage)
	}
	for _, a := range hensachi.Axes {
		for _, path := range []string{"/town/rankings/" + a.Key, "/town/rankings/" + a.Key + "?pref=47&page=1", "/town/rankings/" + a.Key + "?page=35"} {
			if status, body := s.get(t, path); status != 200 || !strings.Contains(body, "/town/municipalities/") {
				t.Errorf("%s: %d", path, status)
			}
		}
	}
	for _, p := range c.Meta.Prefectures {
		if status, body := s.get(t, "/town/prefectures/"+p.Code); status != 200 || !strings.Contains(body, p.Name) {
			t.Errorf("prefecture %s: %d", p.Code, status)
		}
	}
	for _, q := range []string{"宝塚", "たからづか", "タカラヅカ", "ﾀｶﾗﾂﾞｶ", "兵庫県 宝塚"} {
		found := c.Search(q, 10)
		if len(found) == 0 || found[0].Code != "28214" {
			t.Errorf("search %q: %v", q, found)
		}
	}
	t.Logf("largest sampled municipality page: %d bytes", largest)
}

// TestNoResidentsOnRealData: a municipality whose census population is 0 (双葉町, 07546, in the
// 2020 census: the whole town was under an evacuation order) says why on its page and on a
// comparison, beside the income it still has; no other page says so. Compared
// alone, it offers its prefecture's municipalities to add, having too few values for nearest ones.
func TestNoResidentsOnRealData(t *testing.T) {
	s := newRealSite(t, "https://hensachi.example")
	c, err := s.catalogs.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	pop := hensachi.StatIndex("pop")
	var empty []string
	for m := range c.Len() {
		if v := c.Row(m).Stats[pop]; v.Valid && v.V == 0 {
			empty = append(empty, c.Row(m).Code)
		}
	}
	if !slices.Equal(empty, []string{"07546"}) {
		t.Errorf("municipalities with no residents: %v, want 双葉町 (07546); check that each reads well", empty)
	}
	for _, code := range append(empty, "07547", "13101") { // 浪江町 beside it has residents
		m, _ := c.Municipality(code)
		_, body := s.get(t, "/town/municipalities/"+code)
		note := strings.Contains(body, `id="no-residents"`)
		if want := slices.Contains(empty, code); note != want {
			t.Errorf("%s %s: the note on no residents shown %v, want %v", code, m.Name, note, want)
		}
		if note {
			for _, want := range []string{m.Name + "の総人口が 0 人なのは、国勢調査（2020年）の時点で", "避難指示", `<td class="n"><span class=nb>0 人</span></td>`} {
				if !strings.Contains(body, want) {
					t.Errorf("%s: no %q", code, want)
				}
			}
			if _, cmp := s.get(t, "/town/compare?codes=13101,"+code); strings.Count(cmp, `class="dev no-residents"`) != 1 {
				t.Errorf("the comparison of 13101 and %s explains no residents %d times, want once", code, strings.Count(cmp, `class="dev no-residents"`))
			}
			// too few values for a similar list: a comparison of it alone offers its prefecture's
			if _, alone := s.get(t, "/town/compare?codes="+code); !strings.Contains(alone, `id="nearby"`) || !strings.Contains(alone, "加える（"+m.Prefecture.Name+"の市区町村）") {
				t.Errorf("the comparison of %s alone offers no municipality to add", code)
			}
		}
	}
}

// TestCountsGroupedOnRealData: a count or a rank of a thousand or more is written 1,741 on every
// page, never 1741, wherever it stands (tables, headings, the charts' and maps' titles).
func TestCountsGroupedOnRealData(t *testing.T) {
	s := newRealSite(t, "https://hensachi.example")
	bare := regexp.MustCompile(`(?:^|[^0-9,.])[0-9]{4,}(?: 位| 市区町村| / | 個| 件)|<td class="n">[0-9]{4,}</td>`)
	grouped := regexp.MustCompile(`[0-9],[0-9]{3}(?: 位| 市区町村| / | 個| 件|</td>)`)
	for _, path := range []string{"/", "/town/municipalities/07546", "/town/rankings/income?page=35", "/town/indicators/population",
		"/town/indicators/population?page=35", "/town/map?m=income", "/town/scatter", "/town/compare?codes=13101,07546"} {
		status, body := s.get(t, path)
		if status != 200 {
			t.Fatalf("%s: %d", path, status)
		}
		if found := bare.FindAllString(body, 5); len(found) > 0 {
			t.Errorf("%s: %q", path, found)
		}
		if !grouped.MatchString(body) {
			t.Errorf("%s: no count or rank of 1,000 or more: the test looks at nothing", path)
		}
	}
}

// TestScatterMissedOnRealData: a scatter names the few municipalities it leaves out for want of a
// value, and counts them when they are many (the 23 wards have no recycling rate; 双葉町 and the
// towns under evacuation orders no share of young people).
func TestScatterMissedOnRealData(t *testing.T) {
	s := newRealSite(t, "https://hensachi.example")
	for path, want := range map[string]string{
		"/town/scatter?x=jobless&y=income": `どちらかの値がない <a href="municipalities/07546">双葉町（福島県）</a>を除く`,
		"/town/scatter":                    "どちらかの値がない 6 市区町村を除く", // 双葉町 and the five the evacuation rule nulls
		"/town/scatter?x=recycle&y=income": "どちらかの値がない 23 市区町村を除く",
	} {
		if status, body := s.get(t, path); status != 200 || !strings.Contains(body, want) {
			t.Errorf("%s: status %d, no %q", path, status, want)
		}
	}
}

// TestCensusWithheldOnRealData: a municipality whose 2020 census population is under half its
// registered one (the evacuation rule) says on its page why its rates over the census population
// are left out, with both populations; a municipality with no residents at all (双葉町) and one
// whose census describes it (浪江町's neighbour 南相馬市, 千代田区) do not.
func TestCensusWithheldOnRealData(t *testing.T) {
	s := newRealSite(t, "https://hensachi.example")
	for code, want := range map[string]string{
		"07564": "飯舘村 は、2020 年の国勢調査が数えた人口（1,318 人）が、2021 年 1 月 1 日に住民基本台帳に登録されていた人口（5,246 人）の半分に満たない",
		"07545": "大熊町 は、2020 年の国勢調査が数えた人口（847 人）",
		"07546": "",
		"07212": "",
		"13101": "",
	} {
		_, body := s.get(t, "/town/municipalities/"+code)
		if shown := strings.Contains(body, `id="census-withheld"`); shown != (want != "") || !strings.Contains(body, want) {
			t.Errorf("%s: note shown %v, want %q", code, shown, want)
		}
	}
}

// TestSearchPageOnRealData: the search page says which ward found a designated city, proposes a
// name for a reading one letter off (もしかして), and lists what town's search finds.
func TestSearchPageOnRealData(t *testing.T) {
	s := newRealSite(t, "https://hensachi.example")
	tests := []struct {
		query     string
		want, not []string
	}{
		{"横浜市港北区", []string{`id="search-wards"`, `港北区は<a href="/town/municipalities/14100">横浜市</a>の区`, "1 件"}, []string{`id="search-suggest"`}},
		{"港北区", []string{`港北区は<a href="/town/municipalities/14100">横浜市</a>の区`}, nil},
		{"横浜市", []string{"/town/municipalities/14100"}, []string{`id="search-wards"`}},
		{"たからずく", []string{`id="search-suggest"`, "もしかして", `<a href="/town/municipalities/28214">宝塚市</a>`, "0 件"}, []string{`id="search-wards"`}},
		{"takarazka", []string{"もしかして", `href="/town/municipalities/28214"`}, nil},
		{"鎌ヶ谷", []string{"/town/municipalities/12224", "1 件"}, []string{"もしかして"}},
		{"282146", []string{"/town/municipalities/28214", "1 件"}, nil},
		{"xqzwv", []string{"0 件", `id="search-hint"`}, []string{"もしかして"}},
	}
	for _, tt := range tests {
		status, body := s.get(t, "/search?q="+url.QueryEscape(tt.query))
		if status != 200 {
			t.Errorf("search %q: %d", tt.query, status)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(body, w) {
				t.Errorf("search %q: page lacks %s", tt.query, w)
			}
		}
		for _, n := range tt.not {
			if strings.Contains(body, n) {
				t.Errorf("search %q: page has %s", tt.query, n)
			}
		}
	}
}
