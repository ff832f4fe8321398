package site

import (
	"compress/gzip"
	"encoding/csv"
	"flag"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestScatterPage(t *testing.T) {
	router := siteRouter(t)
	dot := regexp.MustCompile(`<a href=municipalities/(\d{5})><circle cx=\d+ cy=\d+ r=\d><title>([^<]+)</title></circle></a>`)
	for _, tc := range []struct {
		path         string
		status       int
		dots, picked int
		want, absent []string
	}{
		// 札内町 (01345) has no value on the first axis (young) and the first statistic (pop)
		{"/town/scatter", 200, 4, 0, []string{"所得（万円） →", "↑ 若さ（%）", "中央値", `<option value="income" selected>`, `どちらかの値がない <a href="municipalities/01345">札内町（北海道）</a>を除く`,
			"札幌市（北海道） ", `<link rel="canonical" href="https://hensachi.example/town/scatter?x=income&amp;y=young">`}, []string{`<g class="pick">`}},
		{"/town/scatter?x=income&y=young&pref=13", 200, 4, 2, []string{"東京都を強調", "千代田区（東京都）", `<option value="13" selected>`, `id="pref-towns"`},
			nil},
		{"/town/scatter?x=shops&y=fiscal&pref=01", 200, 5, 3, []string{"札内町（北海道）", "↑ 財政力指数<"}, []string{"を除く"}},
		{"/town/scatter?x=pop&y=area", 200, 4, 0, []string{"総人口（人）", "面積（km²）"}, nil},
		{"/town/scatter?x=pop", 200, 4, 0, []string{"総人口（人）", "若さ（%）"}, nil}, // y defaults as x does
		{"/town/scatter?x=income&y=nope", 400, 0, 0, []string{"y には 6 軸か 16 の統計のキー"}, nil},
		{"/town/scatter?x=income&x=pop&y=young", 400, 0, 0, []string{"x が 2 回指定されています"}, nil},
		{"/town/scatter?x=income&y=young&pref=%zz", 400, 0, 0, []string{"形が正しくありません"}, nil},
		{"/town/scatter?x=income&y=%ff", 400, 0, 0, []string{"UTF-8"}, nil},
		{"/town/scatter?x=income;y=young", 400, 0, 0, []string{"x に ; があります"}, nil}, // the API's reading: x at fault
		{"/town/scatter?x=income&=young", 400, 0, 0, []string{"「=young」に指定の名前がありません"}, nil},
		{"/town/scatter?x=nope&y=young", 400, 0, 0, []string{"x には"}, nil},
		{"/town/scatter?x=income&y=income", 400, 0, 0, []string{"別のもの"}, nil},
		{"/town/scatter?x=income&y=young&pref=abc", 400, 0, 0, []string{"2 桁のコード"}, nil},
		{"/town/scatter?x=income&y=young&pref=99", 400, 0, 0, []string{"都道府県コード 99 はありません"}, nil},
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
		checkBody(t, tc.path, body, tc.want, tc.absent)
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
			`aria-labelledby="compare-young-title"`, `aria-labelledby="compare-daytime-title"`, "データなし", `href="/town/municipalities.csv?header=ja&amp;codes=13101,01100,01345"`,
			// each can be taken out, the first one's nearest added; the hometown-tax figures
			`href="/town/compare?codes=01100,01345" aria-label="千代田区を比較から外す"`, `href="/town/compare?codes=13101,01345"`,
			`id="nearby"`, `href="/town/compare?codes=13101,01100,01345,`, "ふるさと納税の受入額", "ふるさと納税の収支"}},
		{"/town/compare?codes=13101&codes=01100", 200, []string{"2 市区町村の比較", "千代田区・札幌市の比較"}},
		{"/town/compare", 400, []string{"1 つ以上"}},
		// the similar list's form sent with nothing ticked: the one municipality, and others to add
		{"/town/compare?codes=13101", 200, []string{"<h1>千代田区と比べる市区町村を選ぶ</h1>", `id="add-hint"`, `id="nearby"`, `href="/town/compare?codes=13101,`}},
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
		checkBody(t, tc.path, body, tc.want, nil)
	}
}

// TestCSVDownload: the download links' route serves the API's CSV export, whole, of a
// prefecture or of compared municipalities in their order, as an attachment with the dataset
// version as its validator; bad parameters are the site's 400 and 404 pages.
func TestCSVDownload(t *testing.T) {
	router := siteRouter(t)
	for _, tc := range []struct {
		path     string
		status   int
		codes    []string // the rows, in order
		filename string
	}{
		{"/town/municipalities.csv", 200, []string{"01100", "01202", "01345", "13101", "13102"}, "hensachi-municipalities-2026-01-01.csv"},
		{"/town/municipalities.csv?pref=13", 200, []string{"13101", "13102"}, "hensachi-municipalities-13-2026-01-01.csv"},
		{"/town/municipalities.csv?codes=13102,01100", 200, []string{"13102", "01100"}, "hensachi-compare-2026-01-01.csv"},
		{"/town/municipalities.csv?codes=13102&codes=01100", 200, []string{"13102", "01100"}, "hensachi-compare-2026-01-01.csv"},
		{"/town/municipalities.csv?pref=99", 400, nil, ""},
		{"/town/municipalities.csv?pref=%zz", 400, nil, ""},
		{"/town/municipalities.csv?pref=13&pref=01", 400, nil, ""},
		{"/town/municipalities.csv?pref=1", 400, nil, ""},
		{"/town/municipalities.csv?codes=13102", 200, []string{"13102"}, "hensachi-compare-2026-01-01.csv"}, // a comparison of one's link
		{"/town/municipalities.csv?codes=13102,99999", 404, nil, ""},
		{"/town/municipalities.csv?codes=13102,01100&pref=13", 400, nil, ""},
	} {
		w := httptest.NewRecorder()
		router.ServeHTTP(w, httptest.NewRequest("GET", tc.path, nil))
		if w.Code != tc.status {
			t.Errorf("%s: %d, want %d", tc.path, w.Code, tc.status)
			continue
		}
		if tc.status != 200 {
			if !strings.HasPrefix(w.Header().Get("Content-Type"), "text/html") {
				t.Errorf("%s: %s, want the site's message page", tc.path, w.Header().Get("Content-Type"))
			}
			continue
		}
		h := w.Result().Header
		if h.Get("Content-Type") != "text/csv; charset=utf-8" || h.Get("Content-Disposition") != `attachment; filename="`+tc.filename+`"` || h.Get("ETag") != `"v1"` {
			t.Errorf("%s: headers %v", tc.path, h)
		}
		body, ok := strings.CutPrefix(w.Body.String(), "\uFEFF")
		records, err := csv.NewReader(strings.NewReader(body)).ReadAll()
		if !ok || err != nil || len(records) != len(tc.codes)+1 || records[0][0] != "code" || records[0][1] != "name" {
			t.Errorf("%s: BOM %v, %v, %d records", tc.path, ok, err, len(records))
			continue
		}
		for i, code := range tc.codes {
			if records[i+1][0] != code {
				t.Errorf("%s: row %d is %s, want %s", tc.path, i+1, records[i+1][0], code)
			}
		}
	}

	// gzipped when asked, under its own tag; a matching tag is a 304
	for _, tc := range []struct {
		accept, etag string
		gzip         bool
	}{{"gzip", `"v1.gz"`, true}, {"", `"v1"`, false}} {
		r := httptest.NewRequest("GET", "/town/municipalities.csv", nil)
		r.Header.Set("Accept-Encoding", tc.accept)
		w := httptest.NewRecorder()
		router.ServeHTTP(w, r)
		if (w.Header().Get("Content-Encoding") == "gzip") != tc.gzip || w.Header().Get("ETag") != tc.etag {
			t.Errorf("Accept-Encoding %q: %v", tc.accept, w.Header())
		}
		if tc.gzip {
			if _, err := gzip.NewReader(w.Body); err != nil {
				t.Errorf("gzipped CSV: %v", err)
			}
		}
		r.Header.Set("If-None-Match", tc.etag)
		w = httptest.NewRecorder()
		router.ServeHTTP(w, r)
		if w.Code != 304 || w.Body.Len() != 0 {
			t.Errorf("If-None-Match %s: %d with %d bytes", tc.etag, w.Code, w.Body.Len())
		}
	}
}

// TestSimilarList: the municipality page lists its nearest municipalities as links with check
// boxes of a form to the compare page (the municipality itself always compared), and links to
// compare them all and to the scatter with its prefecture picked out.
func TestSimilarList(t *testing.T) {
	router := siteRouter(t)
	status, body := getPage(t, router, "/town/municipalities/13101")
	if status != 200 {
		t.Fatalf("%d", status)
	}
	_, list, _ := strings.Cut(body, `id="similar-list"`)
	list, _, _ = strings.Cut(list, "</table>")
	links := regexp.MustCompile(`<a href="/town/municipalities/(\d{5})">`).FindAllStringSubmatch(list, -1)
	boxes := regexp.MustCompile(`<input type="checkbox" name="codes" value="(\d{5})"`).FindAllStringSubmatch(list, -1)
	if len(links) != 4 || len(boxes) != 4 {
		t.Fatalf("%d links and %d check boxes, want the 4 other municipalities", len(links), len(boxes))
	}
	for i := range links {
		if links[i][1] == "13101" || links[i][1] != boxes[i][1] {
			t.Errorf("row %d: link %s, box %s", i, links[i][1], boxes[i][1])
		}
	}
	for _, want := range []string{`<form action="/town/compare" method="get"><input type="hidden" name="codes" value="13101">`,
		`href="/town/compare?codes=13101,` + links[0][1], `href="/town/scatter?pref=13&amp;x=income&amp;y=young"`} {
		if !strings.Contains(body, want) {
			t.Errorf("no %q", want)
		}
	}
}

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// TestScatterChartGolden compares the scatter of the test catalog (income against the young,
// Tokyo picked out) with testdata/golden/scatter.svg; go test -update rewrites it.
func TestScatterChartGolden(t *testing.T) {
	_, body := getPage(t, siteRouter(t), "/town/scatter?x=income&y=young&pref=13")
	start, end := strings.Index(body, "<svg"), strings.Index(body, "</svg>")
	if start < 0 || end < start {
		t.Fatal("no chart")
	}
	chart := body[start:end+len("</svg>")] + "\n"
	file := filepath.Join("testdata", "golden", "scatter.svg")
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(chart), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if chart != string(want) {
		t.Errorf("the scatter differs from %s (go test -update rewrites it):\n%s", file, chart)
	}
}
