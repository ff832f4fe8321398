package webui

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
)

// staticTowns serves one catalog.
type staticTowns struct{ c *Catalog }

func (s staticTowns) Catalog() (*Catalog, error) { return s.c, nil }

// testCatalog has five municipalities in two prefectures; 01345 has no values on the first axis.
func testCatalog() *Catalog {
	meta := hensachi.Meta{DataUpdated: "2026-01-01", Method: "順位を正規分布に当てはめる。",
		Source:      hensachi.Link{Name: "テスト統計", URL: "https://example.jp/stats"},
		Prefectures: []hensachi.Prefecture{{Code: "01", Name: "北海道"}, {Code: "13", Name: "東京都"}},
		Furusato: hensachi.FurusatoMeta{DataUpdated: "2025-07-31", Receipts: hensachi.FurusatoSource{FiscalYear: "令和6年度", Source: "受入の調査"},
			Deductions: hensachi.FurusatoTaxSource{TaxYear: "令和7年度", Source: "控除の調査"},
			History:    hensachi.FurusatoHistory{FiscalYears: []string{"令和5年度", "令和6年度"}, Unit: "千円", Source: "推移の調査"}}}
	for _, a := range hensachi.Axes {
		meta.Axes = append(meta.Axes, hensachi.AxisMeta{Key: a.Key, Label: a.Label, Source: "国勢調査（2020年）"})
	}
	for _, s := range hensachi.Stats {
		meta.Stats = append(meta.Stats, hensachi.StatMeta{Key: s.Key, Label: s.Label, Source: "統計調査（2021年）"})
	}
	town := func(code, name, kana, pref string, rank int) hensachi.Municipality {
		m := hensachi.Municipality{Code: code, Name: name, Kana: kana, Prefecture: hensachi.Prefecture{Code: code[:2], Name: pref}}
		for range hensachi.Axes {
			m.Scores = append(m.Scores, hensachi.Score{Value: hensachi.Some(float64(10 - rank)), Hensachi: 60 - 5*float64(rank), Rank: rank})
		}
		for s := range hensachi.Stats {
			m.Stats = append(m.Stats, hensachi.Some(float64(100*rank+s)))
		}
		m.Furusato = hensachi.Furusato{ReceiptsYen: hensachi.Some(int64(1_234_567_000)), ReceiptsRank: rank, ReceiptsCount: hensachi.Some(int64(4321)),
			DeductionsYen: hensachi.Some(int64(98_765)), BalanceYen: hensachi.Some(int64(1_234_468_235)), BalanceRank: rank,
			HistoryThousandYen: []hensachi.Optional[int64]{hensachi.Some(int64(900_000)), hensachi.Some(int64(1_234_567))}}
		return m
	}
	towns := []hensachi.Municipality{
		town("01100", "札幌市", "さっぽろし", "北海道", 1),
		town("01202", "函館市", "はこだてし", "北海道", 3),
		town("01345", "札内町", "さつないちょう", "北海道", 4),
		town("13101", "千代田区", "ちよだく", "東京都", 2),
		town("13102", "中央区", "ちゅうおうく", "東京都", 5),
	}
	towns[2].Scores[0] = hensachi.Score{}
	towns[2].Stats[0] = hensachi.Optional[float64]{}
	return NewCatalog(towns, meta, "v1")
}

func siteRouter(t *testing.T) *httprouter.Router {
	t.Helper()
	ui, err := New(LoginConfig{}, Deps{Towns: staticTowns{testCatalog()}, PublicURL: "https://hensachi.example"})
	if err != nil {
		t.Fatal(err)
	}
	router := httprouter.New()
	ui.Routes(router.Handle)
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
	router := siteRouter(t)
	tests := []struct {
		path   string
		status int
		want   []string
		absent []string
	}{
		{"/", 200, []string{`<html lang="ja">`, `action="/search"`, `href="/town/rankings/young"`, `href="/town/prefectures/13"`, `href="/login"`, "テスト統計"}, nil},
		{"/search?q=札幌", 200, []string{"/town/municipalities/01100", "1 件"}, []string{"千代田区"}},
		{"/search?q=ﾁﾖﾀﾞ", 200, []string{"/town/municipalities/13101", "1 件"}, nil},
		{"/search?q=チヨダク", 200, []string{"/town/municipalities/13101"}, nil},
		{"/search?q=東京都+ちゅうおう", 200, []string{"/town/municipalities/13102", "1 件"}, nil},
		{"/search?q=<script>", 200, []string{"&lt;script&gt;", "0 件"}, []string{"<script>"}},
		{"/town/municipalities/13101", 200, []string{"千代田区", "ちよだく", "<svg", "偏差値（50が全国の真ん中）", "2 / 4 位", "全国中央値",
			"1,234,567,000 円", "4,321 件", "全国 2 位", "R5", "R6", "12.3億", `rel="next"`, "/town/municipalities/13102", "国勢調査（2020年）", "受入の調査", "テスト統計",
			`<link rel="canonical" href="https://hensachi.example/town/municipalities/13101">`}, []string{"/town/v1/meta\">"}},
		{"/town/municipalities/01345", 200, []string{"データなし", "—"}, nil},
		{"/town/municipalities/99999", 404, nil, nil},
		{"/town/rankings/young", 200, []string{"4 市区町村中 1〜4 位", "札幌市", `aria-current="page"`}, []string{"札内町"}},
		{"/town/rankings/young?pref=13", 200, []string{"2 市区町村中 1〜2 位", "千代田区", "中央区", `value="13" selected`}, []string{"札幌市"}},
		{"/town/rankings/young?page=2", 404, nil, nil},
		{"/town/rankings/nope", 404, nil, nil},
		{"/town/rankings/young?pref=99", 404, nil, nil},
		{"/town/prefectures", 200, []string{"/town/prefectures/01", "/town/prefectures/13"}, nil},
		{"/town/prefectures/01", 200, []string{"札幌市", "函館市", "札内町", "3 市区町村", "/town/rankings/young?pref=01"}, []string{"千代田区"}},
		{"/town/prefectures/48", 404, nil, nil},
	}
	for _, tc := range tests {
		status, body := getPage(t, router, tc.path)
		if status != tc.status {
			t.Errorf("%s: %d, want %d", tc.path, status, tc.status)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: no %q", tc.path, w)
			}
		}
		for _, w := range tc.absent {
			if strings.Contains(body, w) {
				t.Errorf("%s: has %q", tc.path, w)
			}
		}
	}
}

func TestRankingPaging(t *testing.T) {
	c := testCatalog()
	page, total := c.Ranking(0, "", 1, 2)
	if total != 4 || len(page) != 2 || page[0].Code != "13101" || page[1].Code != "01202" {
		t.Errorf("page 2 of 2: total %d, %v", total, page)
	}
}
