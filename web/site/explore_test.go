package site

import (
	"regexp"
	"strings"
	"testing"
)

func TestScatterPage(t *testing.T) {
	router := siteRouter(t)
	dot := regexp.MustCompile(`<a href="municipalities/(\d{5})"><circle cx="\d+" cy="\d+" r="\d"><title>([^<]+)</title></circle></a>`)
	for _, tc := range []struct {
		path         string
		status       int
		dots, picked int
		want, absent []string
	}{
		// 札内町 (01345) has no value on the first axis (young) and the first statistic (pop)
		{"/town/scatter", 200, 4, 0, []string{"所得（万円） →", "↑ 若さ（%）", "中央値", `<option value="income" selected>`, "1 市区町村を除く",
			"札幌市（北海道） ", `<link rel="canonical" href="https://hensachi.example/town/scatter?x=income&amp;y=young">`}, []string{`<g class="pick">`}},
		{"/town/scatter?x=income&y=young&pref=13", 200, 4, 2, []string{"東京都を強調", "千代田区（東京都）", `<option value="13" selected>`, `id="pref-towns"`},
			nil},
		{"/town/scatter?x=shops&y=fiscal&pref=01", 200, 5, 3, []string{"札内町（北海道）", "↑ 財政力指数<"}, []string{"1 市区町村を除く"}},
		{"/town/scatter?x=pop&y=area", 200, 4, 0, []string{"総人口（人）", "面積（km²）"}, nil},
		{"/town/scatter?x=income", 400, 0, 0, []string{"y には 6 軸か 16 の統計のキー"}, nil},
		{"/town/scatter?x=nope&y=young", 400, 0, 0, []string{"x には"}, nil},
		{"/town/scatter?x=income&y=income", 400, 0, 0, []string{"別のもの"}, nil},
		{"/town/scatter?x=income&y=young&pref=abc", 400, 0, 0, []string{"2 桁のコード"}, nil},
		{"/town/scatter?x=income&y=young&pref=99", 404, 0, 0, []string{"都道府県コードはありません"}, nil},
	} {
		status, body := getPage(t, router, tc.path)
		if status != tc.status {
			t.Errorf("%s: %d, want %d", tc.path, status, tc.status)
			continue
		}
		if n := len(dot.FindAllString(body, -1)); n != tc.dots || strings.Count(body, "<circle") != tc.dots {
			t.Errorf("%s: %d linked and titled dots, want %d", tc.path, n, tc.dots)
		}
		_, picked, _ := strings.Cut(body, `<g class="pick">`)
		if n := strings.Count(picked, "<circle"); n != tc.picked {
			t.Errorf("%s: %d picked dots, want %d", tc.path, n, tc.picked)
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

func TestComparePage(t *testing.T) {
	router := siteRouter(t)
	for _, tc := range []struct {
		path   string
		status int
		want   []string
	}{
		{"/town/compare?codes=13101,01100,01345", 200, []string{"3 市区町村の比較", `href="/town/municipalities/01345"`, "全国中央値",
			`aria-labelledby="compare-young-title"`, `aria-labelledby="compare-daytime-title"`, "データなし", `href="/town/municipalities.csv?codes=13101,01100,01345"`}},
		{"/town/compare?codes=13101&codes=01100", 200, []string{"2 市区町村の比較", "千代田区・札幌市の比較"}},
		{"/town/compare", 400, []string{"2 つ以上"}},
		{"/town/compare?codes=13101", 400, []string{"2 つ以上"}},
		{"/town/compare?codes=13101,1310", 400, []string{"「1310」は市区町村コード"}},
		{"/town/compare?codes=13101,<b>", 400, []string{"「&lt;b&gt;」"}},
		{"/town/compare?codes=13101,01100,13101", 400, []string{"13101 が 2 回"}},
		{"/town/compare?codes=01100,01101,01102,01103,01104,01105,01106,01107,01108,01109,01110", 400, []string{"10 市区町村まで"}},
		{"/town/compare?codes=13101,99999", 404, []string{"99999 はありません"}},
	} {
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
	}
}
