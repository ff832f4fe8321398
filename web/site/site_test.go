package site

import (
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi/internal/testrig/towntest"
	"github.com/hensachi/hensachi/town"
)

// staticCatalogs serves one catalog.
type staticCatalogs struct{ c *town.Catalog }

func (s staticCatalogs) Catalog() (*town.Catalog, error) { return s.c, nil }

func siteRouter(t testing.TB) *httprouter.Router {
	t.Helper()
	return siteRouterWith(t, Deps{Catalogs: staticCatalogs{towntest.Catalog()}, PublicURL: towntest.PublicURL, Login: true})
}

func siteRouterWith(t testing.TB, deps Deps) *httprouter.Router {
	t.Helper()
	s, err := New(deps)
	if err != nil {
		t.Fatal(err)
	}
	router := httprouter.New()
	s.Routes(router.Handle)
	return router
}

func getPage(t *testing.T, router *httprouter.Router, path string) (int, string) {
	t.Helper()
	w := httptest.NewRecorder()
	router.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
	b, _ := io.ReadAll(w.Result().Body)
	return w.Code, string(b)
}

func TestPublicPages(t *testing.T) {
	checkPages(t, siteRouter(t), []pageCase{
		{"/", 200, []string{`<html lang="ja">`, `action="/search"`, `href="/town/rankings/young"`, `href="/town/prefectures/13"`, `href="/login"`, "テスト統計"}, nil},
		{"/search?q=札幌", 200, []string{"/town/municipalities/01100", "1 件"}, []string{"千代田区"}},
		{"/search?q=ﾁﾖﾀﾞ", 200, []string{"/town/municipalities/13101", "1 件"}, nil},
		{"/search?q=チヨダク", 200, []string{"/town/municipalities/13101"}, nil},
		{"/search?q=東京都+ちゅうおう", 200, []string{"/town/municipalities/13102", "1 件"}, nil},
		{"/search?q=<script>", 200, []string{"&lt;script&gt;", "0 件", `id="search-hint"`, `href="/town/prefectures"`}, []string{"<script>"}},
		{"/search?q=sapporo", 200, []string{"/town/municipalities/01100", "1 件"}, []string{`id="search-hint"`}},
		{"/search?q=", 200, []string{`id="search-hint"`, `href="/town/prefectures"`}, []string{`id="result-count"`}}, // nothing asked yet: how to ask
		{"/search", 200, []string{`id="search-hint"`}, []string{`id="result-count"`}},
		{"/town/municipalities/13101", 200, []string{"千代田区", "ちよだく", "<svg", "偏差値（50が全国の真ん中）", "2 <span class=nb>/ 4 位</span>", "全国中央値",
			"1,234,567,000 円", "4,321 件", "全国 2 位", "R5", "R6", "12.3億", `rel="next"`, "/town/municipalities/13102", "国勢調査（2020年）", "受入の調査", "テスト統計",
			`<link rel="canonical" href="https://hensachi.example/town/municipalities/13101">`, "受入額の推移（単位：円）",
			// the link preview's fields and the icon
			`<meta property="og:title" content="千代田区（東京都）の偏差値と統計">`, `<meta property="og:type" content="website">`,
			`<meta property="og:url" content="https://hensachi.example/town/municipalities/13101">`, `<meta property="og:site_name" content="hensachi">`,
			`<meta property="og:description" content="`, `<meta name="twitter:card" content="summary">`, `<link rel="icon" href="/favicon.svg" type="image/svg+xml">`,
			// its 類似団体, the special wards: 千代田区 is 2nd nationally, 1st of the two
			`類似団体：<strong>特別区</strong>（2020年国勢調査の人口と産業構造による、2 市区町村）`, `<th scope="col" class="n">全国順位<br><span class="note">類似団体内</span></th>`,
			`<br><span class="note"><a href="/town/rankings/young?peers=13101" aria-label="1 / 2 位、類似団体の中の若さのランキング">1 <span class=nb>/ 2 位</span></a></span></td>`, `href="/town/indicators/fiscal_strength?peers=13101"`, `href="/town/map?m=income&amp;peer_group=special_ward"`},
			[]string{"/town/v1/meta\">", "千円"}},
		{"/town/municipalities/01345", 200, []string{"データなし", "—"}, nil},
		{"/town/municipalities/99999", 404, nil, nil},
		{"/town/rankings/young", 200, []string{"4 市区町村中 1〜4 位", "札幌市", `aria-current="page"`, `href="/town/municipalities.csv?header=ja"`}, []string{"札内町"}},
		{"/town/rankings/young?pref=13", 200, []string{"2 市区町村中 1〜2 位", "千代田区", "中央区", `value="13" selected`, `href="/town/municipalities.csv?header=ja&amp;pref=13"`,
			`<th scope="col" class="n">東京都内</th>`, `<td class="n">2</td><td class="n">1</td><td class="name"><a href="/town/municipalities/13101">`, // national 2nd, Tokyo's 1st
			`href="/town/scatter?pref=13&amp;x=young&amp;y=income" id="scatter-link"`}, []string{"札幌市"}},
		// among 千代田区's 類似団体, the special wards: national ranks, and theirs among the two
		{"/town/rankings/young?peers=13101", 200, []string{"2 市区町村中 1〜2 位", `id="peers-note"`, `<input type="hidden" name="peers" value="13101">`,
			`<th scope="col" class="n">類似団体内</th>`, `<td class="n">2</td><td class="n">1</td><td class="name"><a href="/town/municipalities/13101">`}, []string{"札幌市"}},
		{"/town/rankings/young?peers=99999", 404, nil, nil},
		{"/town/rankings/young?page=2", 404, nil, nil},
		{"/town/rankings/nope", 404, []string{`action="/search"`, `<a href="/">トップページへ</a>`}, nil},
		{"/town/rankings/young?pref=99", 400, []string{"都道府県コード 99 はありません"}, nil},
		{"/town/rankings/young?pref=%zz", 400, nil, nil},
		{"/town/rankings/young?page=abc", 400, []string{"page には 1 から 100 までの整数", `action="/search"`, `<a href="/">トップページへ</a>`}, nil}, // the way on, as a 404's
		{"/town/rankings/young?page=1&page=2", 400, nil, nil},
		{"/town/rankings/young?pref=&utm_source=x", 200, []string{"4 市区町村中 1〜4 位"}, nil}, // a form's empty option, a link's tag
		{"/town/municipalities/1310", 400, []string{"市区町村コード（5 桁の数字"}, nil},
		{"/town/prefectures/x", 400, nil, nil},
		{"/town/prefectures", 200, []string{"/town/prefectures/01", "/town/prefectures/13", "<h2>北海道</h2>", "<h2>関東</h2>",
			`<td class="n">3</td>`, `<a href="/town/municipalities/01`}, []string{"<h2>東北</h2>"}},
		{"/town/prefectures/01", 200, []string{"札幌市", "函館市", "札内町", "3 市区町村", "/town/rankings/young?pref=01", `href="/town/municipalities.csv?header=ja&amp;pref=01"`}, []string{"千代田区"}},
		{"/town/prefectures/48", 404, nil, nil},
	})
}

// pageCase is a page asked for, the status it must answer with, and what its body must and must
// not have.
type pageCase struct {
	path   string
	status int
	want   []string
	absent []string
}

func checkPages(t *testing.T, router *httprouter.Router, tests []pageCase) {
	t.Helper()
	for _, tc := range tests {
		status, body := getPage(t, router, tc.path)
		if status != tc.status {
			t.Errorf("%s: %d, want %d", tc.path, status, tc.status)
			continue
		}
		checkBody(t, tc.path, body, tc.want, tc.absent)
	}
}

// TestPagesWithoutLogin: a server that takes no logins links to no login or account page, which
// would only answer 503, and the landing page says how to get a key instead.
func TestPagesWithoutLogin(t *testing.T) {
	router := siteRouterWith(t, Deps{Catalogs: staticCatalogs{towntest.Catalog()}, PublicURL: towntest.PublicURL})
	for _, path := range []string{"/", "/town/municipalities/13101", "/town/rankings/young", "/search?q=x"} {
		status, body := getPage(t, router, path)
		if status != 200 {
			t.Errorf("%s: %d", path, status)
		}
		checkBody(t, path, body, nil, []string{`href="/login"`, `href="/account"`})
	}
	_, body := getPage(t, router, "/")
	checkBody(t, "/", body, []string{`id="login-off"`}, nil)
}

// checkBody checks that a page has every string of want and none of absent.
func checkBody(t *testing.T, path, body string, want, absent []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("%s: no %q", path, w)
		}
	}
	for _, w := range absent {
		if strings.Contains(body, w) {
			t.Errorf("%s: has %q", path, w)
		}
	}
}

// TestFavicon: the icon the pages link to is served, and /favicon.ico, which browsers and crawlers
// ask for whatever a page links to, leads to it.
func TestFavicon(t *testing.T) {
	router := siteRouter(t)
	w := httptest.NewRecorder()
	router.ServeHTTP(w, httptest.NewRequest("GET", "/favicon.svg", nil))
	if w.Code != 200 || w.Header().Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(w.Body.String(), "<svg") {
		t.Errorf("/favicon.svg: %d %q", w.Code, w.Header().Get("Content-Type"))
	}
	w = httptest.NewRecorder()
	router.ServeHTTP(w, httptest.NewRequest("GET", "/favicon.ico", nil))
	if w.Code != 301 || w.Header().Get("Location") != "/favicon.svg" {
		t.Errorf("/favicon.ico: %d to %q", w.Code, w.Header().Get("Location"))
	}
}

// failingCatalogs has no dataset to give.
type failingCatalogs struct{}

func (failingCatalogs) Catalog() (*town.Catalog, error) { return nil, errors.New("no dataset") }

// TestPublicPageFailure: a public page that cannot be made says so in Japanese, and offers no
// login: logging in would not help.
func TestPublicPageFailure(t *testing.T) {
	s, err := New(Deps{Catalogs: failingCatalogs{}, PublicURL: towntest.PublicURL})
	if err != nil {
		t.Fatal(err)
	}
	router := httprouter.New()
	s.Routes(router.Handle)
	status, body := getPage(t, router, "/town/prefectures")
	if status != 503 || !strings.Contains(body, "利用できません") || strings.Contains(body, `class="button" href="/login"`) {
		t.Errorf("failed public page: %d\n%s", status, body)
	}
}
