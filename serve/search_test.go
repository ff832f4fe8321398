package serve_test

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestSearchSameOnAPIAndPage: GET /town/v1/municipalities?q= and the page /search answer a query
// with the same municipalities in the same order, since both ask town's one search.
func TestSearchSameOnAPIAndPage(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	row := regexp.MustCompile(`<tr><td><a href="/town/municipalities/(\d{5})">`)
	for _, q := range []string{"宝塚", "たからずか", "takaraduka", "Ōita", "鎌ヶ谷", "竜ヶ崎", "関が原", "五条", "檮原",
		"282146", "28214", "横浜市港北区", "港北区", "北区", "とうきょう", "おおさか", "ﾀｶﾗﾂﾞｶ", "兵庫県 寳塚", "たからずく"} {
		api := decode[struct {
			Data struct {
				Total int
				Items []struct{ Code string }
			}
		}](t, ts.do(t, http.MethodGet, "/town/v1/municipalities?q="+url.QueryEscape(q), "X-API-Key", ts.proKey).body)
		var fromAPI []string
		for _, m := range api.Data.Items {
			fromAPI = append(fromAPI, m.Code)
		}
		r := ts.do(t, http.MethodGet, "/search?q="+url.QueryEscape(q))
		if r.status != http.StatusOK {
			t.Fatalf("page /search?q=%s: %d", q, r.status)
		}
		var fromPage []string
		for _, m := range row.FindAllStringSubmatch(string(r.body), -1) {
			fromPage = append(fromPage, m[1])
		}
		if len(fromAPI) > 100 || len(fromAPI) == 0 && q != "たからずく" {
			t.Fatalf("q=%s: %d hits, want some and no more than the page lists", q, len(fromAPI))
		}
		if !slices.Equal(fromAPI, fromPage) || api.Data.Total != len(fromAPI) {
			t.Errorf("q=%s: API %s (total %d), page %s", q, strings.Join(fromAPI, ","), api.Data.Total, strings.Join(fromPage, ","))
		}
	}
}
