package serve

import (
	"strings"
	"testing"

	"github.com/hensachi/hensachi"
)

// TestSiteOnRealData renders the public pages from the real dataset: a sample of municipality
// pages within the weight budget, every ranking, every prefecture, and searches by kanji and kana.
func TestSiteOnRealData(t *testing.T) {
	ts := newTestServer(t)
	const maxPage = 60_000
	c, err := ts.datasets.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	largest := 0
	for i, m := range c.Search("市", 2000) {
		if i%25 != 0 {
			continue
		}
		r := ts.do(t, "GET", "/town/municipalities/"+m.Code)
		if r.status != 200 || !strings.Contains(string(r.body), m.Name) || !strings.Contains(string(r.body), "<svg") {
			t.Errorf("%s %s: %d", m.Code, m.Name, r.status)
		}
		largest = max(largest, len(r.body))
	}
	if largest > maxPage {
		t.Errorf("largest municipality page %d bytes, budget %d", largest, maxPage)
	}
	for _, a := range hensachi.Axes {
		for _, path := range []string{"/town/rankings/" + a.Key, "/town/rankings/" + a.Key + "?pref=47&page=1", "/town/rankings/" + a.Key + "?page=35"} {
			if r := ts.do(t, "GET", path); r.status != 200 || !strings.Contains(string(r.body), "/town/municipalities/") {
				t.Errorf("%s: %d", path, r.status)
			}
		}
	}
	for _, p := range c.Meta.Prefectures {
		if r := ts.do(t, "GET", "/town/prefectures/"+p.Code); r.status != 200 || !strings.Contains(string(r.body), p.Name) {
			t.Errorf("prefecture %s: %d", p.Code, r.status)
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
