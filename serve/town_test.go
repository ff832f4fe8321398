package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/storetest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// TestGolden compares the data of a few responses with the files in testdata/golden.
func TestGolden(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	cases := map[string]string{
		"municipality_01100.json":        "/town/v1/municipalities/01100", // 札幌市, a designated city
		"municipality_13101.json":        "/town/v1/municipalities/13101", // 千代田区: no recycling rate
		"municipality_07546.json":        "/town/v1/municipalities/07546", // 双葉町: no residents in 2020
		"ranking_income_pref13.json":     "/town/v1/rankings/income?pref=13&limit=5&offset=2",
		"ranking_inflow_asc.json":        "/town/v1/rankings/inflow?order=asc&limit=3",
		"ranking_income_peers.json":      "/town/v1/rankings/income?peers=13229&limit=3",                                // among 西東京市's 類似団体
		"change_unemployment_peers.json": "/town/v1/indicators/unemployment_rate?from=2015&to=2020&peers=13229&limit=3", // the change among 西東京市's 類似団体
		"list_pref47.json":               "/town/v1/municipalities?pref=47",
		"meta.json":                      "/town/v1/meta",
		"similar_13101.json":             "/town/v1/municipalities/13101/similar?limit=3",
		"similar_07546.json":             "/town/v1/municipalities/07546/similar", // 双葉町: too few axes to compare
		"compare.json":                   "/town/v1/compare?codes=27100,01345",
		"compare_indicators.json":        "/town/v1/compare?codes=13101,07546&indicators=fiscal_strength,population@2015", // 双葉町: nulls in the series
		"search_pref28.json":             "/town/v1/municipalities?q=%E3%81%9F%E3%81%8B&pref=28",                          // たか
	}
	for name, path := range cases {
		t.Run(name, func(t *testing.T) {
			r := ts.get(t, path)
			if r.status != http.StatusOK {
				t.Fatalf("GET %s: %d %s", path, r.status, r.body)
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, decode[envelope](t, r.body).Data, "", "  "); err != nil {
				t.Fatal(err)
			}
			pretty.WriteByte('\n')
			file := filepath.Join("testdata", "golden", name)
			if *update {
				if err := os.WriteFile(file, pretty.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(pretty.Bytes(), want) {
				t.Errorf("GET %s differs from %s (go test -update rewrites it):\n%s", path, file, firstDiff(pretty.String(), string(want)))
			}
		})
	}
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return "line " + strconv.Itoa(i+1) + ":\n got  " + g[i] + "\n want " + w[i]
		}
	}
	return "lengths differ"
}

// TestSpecShapes checks field order, types and the documented decisions on real responses.
func TestSpecShapes(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	r := ts.get(t, "/town/v1/municipalities/01100")
	body := string(r.body)
	order := []string{`"code"`, `"name"`, `"prefecture"`, `"scores"`, `"stats"`, `"furusato"`, `"page_url"`, `"data_updated"`}
	checkOrder(t, body, order)
	axes := make([]string, len(hensachi.Axes))
	for i, a := range hensachi.Axes {
		axes[i] = `"` + a.Key + `":{"label"`
	}
	checkOrder(t, body, axes)
	if !strings.Contains(body, `"page_url":"https://hensachi.example/town/municipalities/01100"`) {
		t.Errorf("page_url not on this server: %s", body[:200])
	}
	e := decode[envelope](t, r.body)
	if !e.Success || e.Usage.Plan != "free" || e.Usage.UsedToday != 1 || e.Usage.LimitToday != 100 {
		t.Errorf("envelope = %+v", e)
	}

	list := decode[struct {
		Data struct {
			Prefecture *hensachi.Prefecture
			Total      int
			Items      []struct{ Code string }
		}
	}](t, ts.get(t, "/town/v1/municipalities").body)
	if list.Data.Prefecture != nil || list.Data.Total != 1741 || len(list.Data.Items) != 1741 {
		t.Fatalf("list: prefecture %v, total %d, %d items", list.Data.Prefecture, list.Data.Total, len(list.Data.Items))
	}
	for i := 1; i < len(list.Data.Items); i++ {
		if list.Data.Items[i-1].Code >= list.Data.Items[i].Code {
			t.Fatalf("list not in ascending code order at %d", i)
		}
	}

	type ranking struct {
		Data struct {
			Prefecture *hensachi.Prefecture
			Total      int
			Items      []struct {
				Rank     int
				Code     string
				Hensachi float64
			}
		}
	}
	// 1,735 ranked: 双葉町 had no residents in the 2020 census and five towns under evacuation
	// orders too few to describe them (the evacuation rule)
	national := decode[ranking](t, ts.get(t, "/town/v1/rankings/young?limit=100").body)
	if national.Data.Prefecture != nil || national.Data.Total != 1735 || national.Data.Items[0].Rank != 1 {
		t.Errorf("national ranking: prefecture %v, total %d, first rank %d", national.Data.Prefecture, national.Data.Total, national.Data.Items[0].Rank)
	}
	okinawa := decode[ranking](t, ts.get(t, "/town/v1/rankings/young?pref=47&limit=100").body)
	for i, it := range okinawa.Data.Items {
		if !strings.HasPrefix(it.Code, "47") || (i > 0 && it.Rank < okinawa.Data.Items[i-1].Rank) {
			t.Fatalf("Okinawa ranking item %d: %+v", i, it)
		}
	}
	if okinawa.Data.Items[0].Rank == 1 && okinawa.Data.Items[len(okinawa.Data.Items)-1].Rank < 50 {
		t.Errorf("prefecture ranks look re-numbered: %+v", okinawa.Data.Items)
	}
	if okinawa.Data.Total != 41 {
		t.Errorf("Okinawa total %d, want 41 municipalities", okinawa.Data.Total)
	}
	past := decode[ranking](t, ts.get(t, "/town/v1/rankings/young?offset=5000").body)
	if past.Data.Total != 1735 || len(past.Data.Items) != 0 {
		t.Errorf("offset past the end: total %d, %d items", past.Data.Total, len(past.Data.Items))
	}
}

func checkOrder(t *testing.T, body string, keys []string) {
	t.Helper()
	rest := body
	for _, k := range keys {
		i := strings.Index(rest, k)
		if i < 0 {
			t.Errorf("%s missing or out of order", k)
			return
		}
		rest = rest[i+len(k):]
	}
}

// TestErrors covers every failure path of the statistics service with its status and code.
func TestErrors(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	revokedKey, a := storetest.CreateAccount(t, ts.store, "revoked@example.com", hensachi.PlanFree)
	if _, err := ts.store.RevokeKeys(context.Background(), a.ID); err != nil {
		t.Fatal(err)
	}
	unknownKey, _ := hensachi.NewAPIKey()
	key := ts.freeKey
	long := strings.Repeat("9", 100)
	tests := []struct {
		name   string
		method string
		path   string
		header []string
		status int
		code   string
		param  string
	}{
		{"no key", "GET", "/town/v1/meta", nil, 401, "missing_api_key", ""},
		{"malformed key", "GET", "/town/v1/meta", []string{"X-API-Key", "hello"}, 401, "invalid_api_key", ""},
		{"unknown key", "GET", "/town/v1/meta", []string{"X-API-Key", unknownKey}, 401, "invalid_api_key", ""},
		{"wrong scheme", "GET", "/town/v1/meta", []string{"Authorization", "Basic " + key}, 401, "invalid_api_key", ""},
		{"bearer works", "GET", "/town/v1/meta", []string{"Authorization", "Bearer " + key}, 200, "", ""},
		{"revoked key", "GET", "/town/v1/meta", []string{"X-API-Key", revokedKey}, 403, "revoked_api_key", ""},
		{"unknown route", "GET", "/town/v1/nothing", nil, 404, "not_found", ""},
		{"trailing slash", "GET", "/town/v1/meta/", nil, 404, "not_found", ""},
		{"wrong method", "POST", "/town/v1/meta", nil, 405, "method_not_allowed", ""},
		{"unknown code", "GET", "/town/v1/municipalities/99999", []string{"X-API-Key", key}, 404, "not_found", ""},
		{"northern territories", "GET", "/town/v1/municipalities/01695", []string{"X-API-Key", key}, 404, "not_found", ""},
		{"short code", "GET", "/town/v1/municipalities/1100", []string{"X-API-Key", key}, 400, "invalid_parameter", "code"},
		{"letters in code", "GET", "/town/v1/municipalities/0110a", []string{"X-API-Key", key}, 400, "invalid_parameter", "code"},
		{"huge code", "GET", "/town/v1/municipalities/" + long, []string{"X-API-Key", key}, 400, "invalid_parameter", "code"},
		{"query on municipality", "GET", "/town/v1/municipalities/01100?x=1", []string{"X-API-Key", key}, 400, "invalid_parameter", "x"},
		{"unknown axis", "GET", "/town/v1/rankings/beauty", []string{"X-API-Key", key}, 404, "not_found", ""},
		{"order wrong", "GET", "/town/v1/rankings/young?order=up", []string{"X-API-Key", key}, 400, "invalid_parameter", "order"},
		{"order empty", "GET", "/town/v1/rankings/young?order=", []string{"X-API-Key", key}, 400, "invalid_parameter", "order"},
		{"order repeated", "GET", "/town/v1/rankings/young?order=asc&order=desc", []string{"X-API-Key", key}, 400, "invalid_parameter", "order"},
		{"limit zero", "GET", "/town/v1/rankings/young?limit=0", []string{"X-API-Key", key}, 400, "invalid_parameter", "limit"},
		{"limit 101", "GET", "/town/v1/rankings/young?limit=101", []string{"X-API-Key", key}, 400, "invalid_parameter", "limit"},
		{"limit text", "GET", "/town/v1/rankings/young?limit=ten", []string{"X-API-Key", key}, 400, "invalid_parameter", "limit"},
		{"limit signed", "GET", "/town/v1/rankings/young?limit=+5", []string{"X-API-Key", key}, 400, "invalid_parameter", "limit"},
		{"limit fraction", "GET", "/town/v1/rankings/young?limit=2.5", []string{"X-API-Key", key}, 400, "invalid_parameter", "limit"},
		{"limit huge", "GET", "/town/v1/rankings/young?limit=" + long, []string{"X-API-Key", key}, 400, "invalid_parameter", "limit"},
		{"offset negative", "GET", "/town/v1/rankings/young?offset=-1", []string{"X-API-Key", key}, 400, "invalid_parameter", "offset"},
		{"offset overflow", "GET", "/town/v1/rankings/young?offset=99999999999999999999", []string{"X-API-Key", key}, 400, "invalid_parameter", "offset"},
		{"offset empty", "GET", "/town/v1/rankings/young?offset=", []string{"X-API-Key", key}, 400, "invalid_parameter", "offset"},
		{"pref unknown", "GET", "/town/v1/rankings/young?pref=48", []string{"X-API-Key", key}, 400, "invalid_parameter", "pref"},
		{"pref one digit", "GET", "/town/v1/municipalities?pref=1", []string{"X-API-Key", key}, 400, "invalid_parameter", "pref"},
		{"pref repeated", "GET", "/town/v1/municipalities?pref=01&pref=02", []string{"X-API-Key", key}, 400, "invalid_parameter", "pref"},
		{"unknown parameter", "GET", "/town/v1/municipalities?prefecture=13", []string{"X-API-Key", key}, 400, "invalid_parameter", "prefecture"},
		{"malformed query", "GET", "/town/v1/municipalities?pref=%zz", []string{"X-API-Key", key}, 400, "invalid_parameter", "pref"},
		{"semicolon", "GET", "/town/v1/rankings/young?limit=1;offset=2", []string{"X-API-Key", key}, 400, "invalid_parameter", "limit"},
		{"search malformed", "GET", "/town/v1/municipalities?q=%zz", []string{"X-API-Key", key}, 400, "invalid_parameter", "q"},
		{"name not UTF-8", "GET", "/town/v1/municipalities?%FF=1", []string{"X-API-Key", key}, 400, "invalid_parameter", ""},
		{"no name", "GET", "/town/v1/municipalities?=1", []string{"X-API-Key", key}, 400, "invalid_parameter", ""},
		{"key in query is not a key", "GET", "/town/v1/meta?api_key=" + key, nil, 401, "missing_api_key", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ts.do(t, tt.method, tt.path, tt.header...)
			if r.status != tt.status {
				t.Fatalf("%s %s: status %d, want %d: %s", tt.method, tt.path, r.status, tt.status, r.body)
			}
			if tt.status == 200 {
				return
			}
			if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
				t.Errorf("Content-Type %q", ct)
			}
			p := decode[problem](t, r.body)
			if p.Success || p.Code != tt.code || p.Status != tt.status || p.Param != tt.param || p.RequestID == "" || p.RequestID != r.header.Get("X-Request-Id") || p.Detail == "" || p.Type != "/problems/"+tt.code {
				t.Errorf("problem = %+v, want code %s param %q", p, tt.code, tt.param)
			}
			switch tt.status {
			case 401:
				if r.header.Get("WWW-Authenticate") == "" {
					t.Error("401 without WWW-Authenticate")
				}
			case 405:
				if r.header.Get("Allow") == "" {
					t.Error("405 without Allow")
				}
			}
		})
	}
	// none of the failures counted
	if used := ts.Quota.Used(ts.freeID, hensachi.ServiceTown); used != 1 {
		t.Errorf("used_today = %d after one success and many failures, want 1", used)
	}
}

func TestETag(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	first := ts.get(t, "/town/v1/municipalities/13101")
	etag := first.header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) || strings.HasPrefix(etag, "W/") {
		t.Fatalf("ETag %q is not a strong tag", etag)
	}
	for _, inm := range []string{etag, `"other", ` + etag, "*"} {
		r := ts.do(t, "GET", "/town/v1/municipalities/13101", "X-API-Key", ts.freeKey, "If-None-Match", inm)
		if r.status != http.StatusNotModified || len(r.body) != 0 || r.header.Get("ETag") != etag {
			t.Errorf("If-None-Match %s: status %d, etag %q", inm, r.status, r.header.Get("ETag"))
		}
	}
	if r := ts.do(t, "GET", "/town/v1/meta", "X-API-Key", ts.freeKey, "If-None-Match", `"stale"`); r.status != 200 {
		t.Errorf("stale tag: status %d", r.status)
	}
	if used := ts.Quota.Used(ts.freeID, hensachi.ServiceTown); used != 2 {
		t.Errorf("used %d after two 200s and three 304s, want 2", used)
	}
	// a 304 still needs a valid key
	if r := ts.do(t, "GET", "/town/v1/meta", "If-None-Match", etag); r.status != 401 {
		t.Errorf("304 without a key: status %d", r.status)
	}
}

func TestPanicIsAProblem(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	h := ts.Instrument("/panic", func(http.ResponseWriter, *http.Request, httprouter.Params) { panic("boom") })
	rec := httptest.NewRecorder()
	h(rec, httptest.NewRequest("GET", "/panic", nil), nil)
	if rec.Code != 500 {
		t.Fatalf("status %d", rec.Code)
	}
	p := decode[problem](t, rec.Body.Bytes())
	if p.Code != "internal_error" || strings.Contains(p.Detail, "boom") {
		t.Errorf("problem %+v leaks or misses the code", p)
	}
}

// TestHead: every GET resource answers HEAD with GET's status and headers and no body.
func TestHead(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	for _, path := range []string{"/town/v1/municipalities/13101", "/town/v1/municipalities", "/town/v1/rankings/income",
		"/town/v1/meta", "/town/municipalities/13101", "/healthz", "/openapi.json", "/problems/not_found", "/town/v1/municipalities/99999",
		"/town/v1/municipalities/13101/similar", "/town/v1/compare?codes=13101,13102", "/town/v1/export?format=csv&pref=13",
		"/town/v1/export?format=parquet&pref=13"} {
		get := ts.do(t, "GET", path, "X-API-Key", ts.proKey)
		head := ts.do(t, "HEAD", path, "X-API-Key", ts.proKey)
		if head.status != get.status || len(head.body) != 0 || head.header.Get("Content-Type") != get.header.Get("Content-Type") {
			t.Errorf("HEAD %s: %d %q (%d body bytes), GET: %d %q", path, head.status, head.header.Get("Content-Type"), len(head.body),
				get.status, get.header.Get("Content-Type"))
		}
	}
}

// TestUnknownPathForBrowsers: a browser that follows a wrong link gets the site's not-found page,
// in Japanese with the search box; an API client, and any caller of an API path, the problem.
func TestUnknownPathForBrowsers(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	const browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	tests := []struct {
		path, accept, contentType, want string
	}{
		{"/no/such/page", browser, "text/html", `action="/search"`},
		{"/town/municipalities/13101/typo", browser, "text/html", "このページはありません"},
		{"/no/such/page", "*/*", "application/problem+json", `"/problems/not_found"`},
		{"/town/v1/no-such-call", browser, "application/problem+json", `"/problems/not_found"`},
	}
	for _, tt := range tests {
		r := ts.do(t, "GET", tt.path, "Accept", tt.accept)
		if r.status != 404 || !strings.HasPrefix(r.header.Get("Content-Type"), tt.contentType) || !strings.Contains(string(r.body), tt.want) {
			t.Errorf("GET %s (Accept %.20s): %d %s, want 404 %s with %q\n%.300s", tt.path, tt.accept, r.status, r.header.Get("Content-Type"), tt.contentType, tt.want, r.body)
		}
	}
}
