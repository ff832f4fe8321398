package serve_test

import (
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

// FuzzTownRequest sends arbitrary paths and queries through the whole handler: the answer is
// never a server error, under the API's paths always a JSON document but for an export's file
// (CSV, Parquet), and elsewhere (the web pages) a JSON document whenever its Content-Type says so.
func FuzzTownRequest(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	for _, s := range []string{"/town/v1/municipalities/01100", "/town/v1/rankings/young?limit=5&order=asc", "/town/v1/municipalities?pref=13",
		"/town/v1/meta", "/town/v1/rankings/%00", "/town/v1/municipalities/０１１００", "/town/v1/rankings/young?offset=1741&limit=100",
		"/town/v1/municipalities/13101/similar?limit=50", "/town/v1/compare?codes=13101,27100", "/town/v1/compare?codes=,,",
		"/town/v1/export?format=json&pref=13", "/town/v1/export?format=csv", "/town/v1/municipalities?q=%EF%BE%80%EF%BD%B6&pref=28",
		"/town/v1/indicators?group=%E8%B2%A1%E6%94%BF", "/town/v1/indicators/population?year=2015&pref=13&order=asc",
		"/town/v1/municipalities/13101/indicators?keys=population,fiscal_strength", "/town/v1/municipalities/13101/similar?measures=income,population@2020",
		"/town/v1/compare?codes=13101,27100&indicators=population@2015", "/town/v1/export?format=csv&pref=13&indicators=all&year=2020",
		"/town/v1/export/series?format=csv&pref=47&indicators=fiscal_strength", "/town/v1/rankings/young?limit=1;offset=2",
		"/town/v1/municipalities?%FF=1", "/town/v1/municipalities?=1", "/town/v1/municipalities?q=%zz", "/town/v1/indicators/population?year=02020",
		"/town/v1/export?format=csv&indicators=population&year=02020", "/town/v1/municipalities/13101/indicators?keys=" + strings.Repeat("population,", 40)} {
		f.Add(s)
	}
	ts := newTestServer(f)
	f.Fuzz(func(t *testing.T, target string) {
		if _, err := url.ParseRequestURI(target); err != nil || !strings.HasPrefix(target, "/") || strings.ContainsAny(target, " \r\n#") {
			return // net/http answers such request lines itself, before any handler
		}
		req := httptest.NewRequest("GET", "http://x"+target, nil)
		req.Header.Set("X-API-Key", ts.proKey)
		rec := httptest.NewRecorder()
		ts.Handler().ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("GET %q: %d %s", target, rec.Code, rec.Body.String())
		}
		saysJSON := strings.Contains(rec.Header().Get("Content-Type"), "json")
		file := rec.Code == 200 && rec.Header().Get("Content-Disposition") != "" && !saysJSON
		api := (strings.HasPrefix(target, "/town/v1/") || strings.HasPrefix(target, "/face/v1/")) && !file
		if rec.Code != 304 && (api || saysJSON) && !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("GET %q: %d, Content-Type %q, with a body that is not JSON", target, rec.Code, rec.Header().Get("Content-Type"))
		}
	})
}
