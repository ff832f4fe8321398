package site

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"html"
	"io"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/towntest"
	"github.com/hensachi/hensachi/town"
)

// TestCSVDownloadIfNoneMatch: the download reads If-None-Match as the API does
// (negotiate.NoneMatch): a list naming its tag, weak or not, is a 304 carrying the tag and the
// caching fields; a malformed field matches nothing, so the file is sent.
func TestCSVDownloadIfNoneMatch(t *testing.T) {
	router := siteRouter(t)
	for _, tc := range []struct {
		path, accept, ifNoneMatch string
		status                    int
	}{
		{"/town/municipalities.csv", "", `"v1"`, 304},
		{"/town/municipalities.csv", "", `W/"v1"`, 304},
		{"/town/municipalities.csv", "", `"v0", "v1"`, 304},
		{"/town/municipalities.csv", "gzip", `"v1.gz"`, 304},
		{"/town/municipalities.csv", "", `"v1"garbage`, 200},
		{"/town/municipalities.csv", "", `"v0" "v1"`, 200},
		{"/town/municipalities.csv", "", `"v1.gz"`, 200}, // the other representation's tag
		{"/town/municipalities.csv?pref=13", "", `"v1"garbage`, 200},
		{"/town/municipalities.csv?codes=13101,01100", "", `"v1"`, 304},
		{"/town/municipalities.csv?codes=13101,01100", "", `"v1"garbage`, 200},
	} {
		r := httptest.NewRequest("GET", tc.path, nil)
		r.Header.Set("Accept-Encoding", tc.accept)
		r.Header.Set("If-None-Match", tc.ifNoneMatch)
		w := httptest.NewRecorder()
		router.ServeHTTP(w, r)
		h := w.Result().Header
		if w.Code != tc.status || h.Get("ETag") == "" || h.Get("Cache-Control") != "public, max-age=300" || h.Get("Vary") == "" {
			t.Errorf("%s If-None-Match %s: %d, headers %v", tc.path, tc.ifNoneMatch, w.Code, h)
			continue
		}
		if tc.status == 304 && (w.Body.Len() != 0 || h.Get("Content-Type") != "" || h.Get("Content-Encoding") != "") {
			t.Errorf("%s If-None-Match %s: a 304 with %d bytes, headers %v", tc.path, tc.ifNoneMatch, w.Body.Len(), h)
		}
		if tc.status == 200 && (w.Body.Len() == 0 || h.Get("Content-Type") != "text/csv; charset=utf-8") {
			t.Errorf("%s If-None-Match %s: %d bytes, headers %v", tc.path, tc.ifNoneMatch, w.Body.Len(), h)
		}
	}
}

// TestComparedCSVGzipped: the comparison's download is gzipped for a client that accepts it, like
// the others, under the gzipped tag, and is the same file unzipped; plain for one that does not.
func TestComparedCSVGzipped(t *testing.T) {
	router := siteRouter(t)
	get := func(accept string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", "/town/municipalities.csv?codes=13101,01100", nil)
		r.Header.Set("Accept-Encoding", accept)
		w := httptest.NewRecorder()
		router.ServeHTTP(w, r)
		return w
	}
	plain, zipped := get("gzip;q=0"), get("br, gzip")
	if plain.Code != 200 || plain.Header().Get("Content-Encoding") != "" || plain.Header().Get("ETag") != `"v1"` {
		t.Fatalf("plain: %d %v", plain.Code, plain.Header())
	}
	if zipped.Code != 200 || zipped.Header().Get("Content-Encoding") != "gzip" || zipped.Header().Get("ETag") != `"v1.gz"` ||
		zipped.Header().Get("Vary") != "Accept-Encoding" {
		t.Fatalf("gzipped: %d %v", zipped.Code, zipped.Header())
	}
	z, err := gzip.NewReader(zipped.Body)
	if err != nil {
		t.Fatal(err)
	}
	if unzipped, err := io.ReadAll(z); err != nil || !bytes.Equal(unzipped, plain.Body.Bytes()) || !bytes.HasPrefix(unzipped, []byte("\uFEFFcode,")) {
		t.Errorf("unzipped: %v, %.40q", err, unzipped)
	}
}

// TestGeoJSONDownload: the GeoJSON download is the export's file with its content type and name,
// its validator and gzip as the CSV's; a comparison's has the compared municipalities in their
// order; the landing page links to it.
func TestGeoJSONDownload(t *testing.T) {
	router := siteRouter(t)
	get := func(path, accept string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", path, nil)
		r.Header.Set("Accept-Encoding", accept)
		w := httptest.NewRecorder()
		router.ServeHTTP(w, r)
		return w
	}
	plain, zipped := get("/town/municipalities.geojson", ""), get("/town/municipalities.geojson", "gzip")
	h := plain.Header()
	if plain.Code != 200 || h.Get("Content-Type") != "application/geo+json" || h.Get("ETag") != `"v1"` ||
		h.Get("Content-Disposition") != `attachment; filename="hensachi-municipalities-2026-01-01.geojson"` {
		t.Fatalf("GeoJSON: %d %v", plain.Code, h)
	}
	var fc struct {
		Type     string
		Features []struct{ ID string }
	}
	if err := json.Unmarshal(plain.Body.Bytes(), &fc); err != nil || fc.Type != "FeatureCollection" || len(fc.Features) != 5 {
		t.Fatalf("%v: %s of %d features", err, fc.Type, len(fc.Features))
	}
	if zipped.Header().Get("Content-Encoding") != "gzip" || zipped.Header().Get("ETag") != `"v1.gz"` {
		t.Errorf("gzipped: %v", zipped.Header())
	} else if z, err := gzip.NewReader(zipped.Body); err != nil {
		t.Error(err)
	} else if unzipped, err := io.ReadAll(z); err != nil || !bytes.Equal(unzipped, plain.Body.Bytes()) {
		t.Errorf("unzipped: %v, %d bytes of %d", err, len(unzipped), plain.Body.Len())
	}
	if r := get("/town/municipalities.geojson?pref=13", ""); r.Code != 200 || bytes.Count(r.Body.Bytes(), []byte(`{"type":"Feature"`)) != 2 {
		t.Errorf("Tokyo's GeoJSON: %d %.200s", r.Code, r.Body.Bytes())
	}
	compared := get("/town/municipalities.geojson?codes=13101,01100", "")
	if err := json.Unmarshal(compared.Body.Bytes(), &fc); err != nil || len(fc.Features) != 2 || fc.Features[0].ID != "13101" || fc.Features[1].ID != "01100" {
		t.Errorf("compared GeoJSON: %v %+v", err, fc.Features)
	}
	if _, home := getPage(t, router, "/"); !strings.Contains(home, `href="/town/municipalities.geojson"`) {
		t.Error("the landing page does not link to the GeoJSON")
	}
}

// TestGeoJSONDownloadWithoutBoundaries: a dataset built without boundaries has no GeoJSON: the
// download is the 503 unavailable page with the reason, and the landing page links to none.
func TestGeoJSONDownloadWithoutBoundaries(t *testing.T) {
	c := towntest.Catalog()
	var towns []hensachi.Municipality
	for r := range c.Len() {
		towns = append(towns, *c.Row(r))
	}
	meta := c.Meta
	meta.Boundaries = &hensachi.BoundaryMeta{Unavailable: "no municipality boundaries: the dataset was built without boundary files"}
	s, err := New(Deps{Catalogs: staticCatalogs{town.New(towns, meta, "v1", towntest.PublicURL)}, PublicURL: towntest.PublicURL})
	if err != nil {
		t.Fatal(err)
	}
	router := httprouter.New()
	s.Routes(router.Handle)
	status, body := getPage(t, router, "/town/municipalities.geojson")
	if status != 503 || !strings.Contains(body, "利用できません") || !strings.Contains(body, "built without boundary files") {
		t.Errorf("GeoJSON without boundaries: %d %.300s", status, body)
	}
	if _, home := getPage(t, router, "/"); !strings.Contains(home, "/town/municipalities.csv") || strings.Contains(home, "municipalities.geojson") {
		t.Error("the landing page offers a GeoJSON it cannot serve, or no CSV")
	}
}

// TestPageCSVLinks: each page of values links the CSV of what it shows, for spreadsheets
// (header=ja), and the link answers that file: the page's municipalities (every one of its area,
// an empty cell where one has no value), its measure's columns named in Japanese with the unit,
// and the credit as the last row.
func TestPageCSVLinks(t *testing.T) {
	router := siteRouter(t)
	for _, tc := range []struct {
		page, link string
		columns    []string // the last of the header
		codes      []string // the rows' first cells, the credit's last
		filename   string
	}{
		{"/town/indicators/births_per_1000", "/town/indicators/births_per_1000.csv?header=ja&year=2023",
			[]string{"出生率（人口千人当たり）_2023（‰）", "出生率（人口千人当たり）_2023_全国順位", "出生率（人口千人当たり）_2023_偏差値"},
			[]string{"01100", "01202", "01345", "13101", "13102"}, "hensachi-births_per_1000-2023-2026-01-01.csv"},
		{"/town/indicators/births_per_1000?year=2020&pref=13&page=1", "/town/indicators/births_per_1000.csv?header=ja&pref=13&year=2020",
			[]string{"都道府県", "出生率（人口千人当たり）_2020（‰）", "出生率（人口千人当たり）_2020_全国順位", "出生率（人口千人当たり）_2020_偏差値"},
			[]string{"13101", "13102"}, "hensachi-births_per_1000-2020-13-2026-01-01.csv"},
		{"/town/indicators/births_per_1000?from=2020&to=2023", "/town/indicators/births_per_1000.csv?from=2020&header=ja&to=2023",
			[]string{"出生率（人口千人当たり）_2023_偏差値", "出生率（人口千人当たり）_2020→2023_増減（‰）", "出生率（人口千人当たり）_2020→2023_増減_全国順位", "出生率（人口千人当たり）_2020→2023_増減_偏差値"},
			[]string{"01100", "01202", "01345", "13101", "13102"}, "hensachi-births_per_1000-change-2020-2023-2026-01-01.csv"},
		// among 中央区's 類似団体, the special wards: their rows, with the rank within the group
		{"/town/indicators/births_per_1000?peers=13102", "/town/indicators/births_per_1000.csv?header=ja&peers=13102&year=2023",
			[]string{"出生率（人口千人当たり）_2023_全国順位", "出生率（人口千人当たり）_2023_類似団体内順位", "出生率（人口千人当たり）_2023_偏差値"},
			[]string{"13101", "13102"}, "hensachi-births_per_1000-2023-peers-special_ward-2026-01-01.csv"},
		{"/town/indicators/births_per_1000?from=2020&to=2023&peers=13102", "/town/indicators/births_per_1000.csv?from=2020&header=ja&peers=13102&to=2023",
			[]string{"出生率（人口千人当たり）_2020→2023_増減_全国順位", "出生率（人口千人当たり）_2020→2023_増減_類似団体内順位", "出生率（人口千人当たり）_2020→2023_増減_偏差値"},
			[]string{"13101", "13102"}, "hensachi-births_per_1000-change-2020-2023-peers-special_ward-2026-01-01.csv"},
		{"/town/map?m=births_per_1000&year=2020&pref=01", "/town/indicators/births_per_1000.csv?header=ja&pref=01&year=2020",
			[]string{"出生率（人口千人当たり）_2020_偏差値"}, []string{"01100", "01202", "01345"}, "hensachi-births_per_1000-2020-01-2026-01-01.csv"},
		{"/town/map?m=births_per_1000&from=2020&to=2023&pref=13", "/town/indicators/births_per_1000.csv?from=2020&header=ja&pref=13&to=2023",
			[]string{"出生率（人口千人当たり）_2020→2023_増減_偏差値"}, []string{"13101", "13102"}, "hensachi-births_per_1000-change-2020-2023-13-2026-01-01.csv"},
		{"/town/map?m=pop", "/town/municipalities.csv?header=ja",
			[]string{"ふるさと納税_受入額_令和6年度（千円）"}, []string{"01100", "01202", "01345", "13101", "13102"}, "hensachi-municipalities-2026-01-01.csv"},
		{"/town/map?m=young&pref=13", "/town/municipalities.csv?header=ja&pref=13",
			[]string{"ふるさと納税_受入額_令和6年度（千円）"}, []string{"13101", "13102"}, "hensachi-municipalities-13-2026-01-01.csv"},
		{"/town/municipalities/01100/indicators/births_per_1000", "/town/municipalities/01100/indicators/births_per_1000.csv?header=ja",
			[]string{"市区町村コード", "市区町村名", "都道府県コード", "指標", "年", "値", "全国順位", "偏差値"}, []string{"01100", "01100"}, "hensachi-01100-births_per_1000-2026-01-01.csv"},
		{"/town/rankings/young?pref=13", "/town/municipalities.csv?header=ja&pref=13",
			[]string{"ふるさと納税_受入額_令和6年度（千円）"}, []string{"13101", "13102"}, "hensachi-municipalities-13-2026-01-01.csv"},
	} {
		status, page := getPage(t, router, tc.page)
		link := csvHref.FindStringSubmatch(page)
		if status != 200 || link == nil || html.UnescapeString(link[1]) != tc.link {
			t.Errorf("GET %s: %d, the CSV link %q, want %s", tc.page, status, link, tc.link)
			continue
		}
		w := httptest.NewRecorder()
		router.ServeHTTP(w, httptest.NewRequest("GET", tc.link, nil))
		h := w.Result().Header
		if w.Code != 200 || h.Get("Content-Type") != "text/csv; charset=utf-8" || h.Get("Content-Disposition") != `attachment; filename="`+tc.filename+`"` {
			t.Errorf("GET %s: %d %v", tc.link, w.Code, h)
			continue
		}
		body, ok := bytes.CutPrefix(w.Body.Bytes(), []byte("\uFEFF"))
		rows, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
		if !ok || err != nil {
			t.Errorf("GET %s: a byte-order mark %t, %v", tc.link, ok, err)
			continue
		}
		var codes []string
		for _, row := range rows[1 : len(rows)-1] {
			codes = append(codes, row[0])
		}
		header := rows[0]
		if got := header[len(header)-len(tc.columns):]; !slices.Equal(got, tc.columns) || !slices.Equal(codes, tc.codes) ||
			rows[len(rows)-1][0] != "出典：テスト統計（https://example.jp/stats）を加工して作成" {
			t.Errorf("GET %s: columns %q, rows %v, the last %q", tc.link, got, codes, rows[len(rows)-1])
		}
	}
}

// csvHref is a page's CSV link.
var csvHref = regexp.MustCompile(`<a href="([^"]*)" download id="csv">`)

// TestPageCSVBadParameters: the downloads read the page's parameters as the page does, and header
// as the API: en or ja, ja of the CSV only.
func TestPageCSVBadParameters(t *testing.T) {
	router := siteRouter(t)
	for _, tc := range []struct {
		path   string
		status int
	}{
		{"/town/indicators/nope.csv", 404},
		{"/town/indicators/births_per_1000.csv?year=1999", 400},
		{"/town/indicators/births_per_1000.csv?from=2023&to=2020", 400},
		{"/town/indicators/births_per_1000.csv?pref=99", 400},
		{"/town/indicators/births_per_1000.csv?header=jp", 400},
		{"/town/indicators/births_per_1000.csv?peers=99999", 404},
		{"/town/indicators/births_per_1000.csv?peers=abc", 400},
		{"/town/municipalities/99999/indicators/births_per_1000.csv", 404},
		{"/town/municipalities/01100/indicators/nope.csv", 404},
		{"/town/municipalities.geojson?header=ja", 400},
		{"/town/indicators/births_per_1000.csv", 200},
		{"/town/indicators/births_per_1000.csv?header=en&page=3", 200}, // a page's parameters it has no use for
	} {
		if status, body := getPage(t, router, tc.path); status != tc.status {
			t.Errorf("GET %s: %d, want %d\n%.300s", tc.path, status, tc.status, body)
		}
	}
}
