package serve

import (
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/hensachi/hensachi"
)

func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"", "limit=20", "limit=1&limit=2", "pref=%zz", "a=b&c", "order=asc&pref=13&limit=100&offset=0", "%", "&&&", "limit=" + strings.Repeat("9", 80)} {
		f.Add(s)
	}
	allowed := []string{"order", "pref", "limit", "offset"}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := parseQuery(raw, allowed...)
		if err != nil {
			if hensachi.ErrorCode(err) != hensachi.EInvalidParameter {
				t.Fatalf("error of code %s: %v", hensachi.ErrorCode(err), err)
			}
			return
		}
		for k, v := range q {
			if !slices.Contains(allowed, k) || v == "" || len(v) > maxParamLen {
				t.Fatalf("accepted %q=%q", k, v)
			}
		}
		if _, err := intParam(q, "limit", 20, 1, 100); err == nil {
			if n, _ := intParam(q, "limit", 20, 1, 100); n < 1 || n > 100 {
				t.Fatalf("limit %d accepted", n)
			}
		}
	})
}

// FuzzTownRequest sends arbitrary paths and queries through the whole handler: the answer is
// never a server error, under the API's paths always a JSON document, and elsewhere (the web
// pages) a JSON document whenever its Content-Type says so.
func FuzzTownRequest(f *testing.F) {
	for _, s := range []string{"/town/v1/municipalities/01100", "/town/v1/rankings/young?limit=5&order=asc", "/town/v1/municipalities?pref=13",
		"/town/v1/meta", "/town/v1/rankings/%00", "/town/v1/municipalities/０１１００", "/town/v1/rankings/young?offset=1741&limit=100"} {
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
		api := strings.HasPrefix(target, "/town/v1/") || strings.HasPrefix(target, "/face/v1/")
		saysJSON := strings.Contains(rec.Header().Get("Content-Type"), "json")
		if rec.Code != 304 && (api || saysJSON) && !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("GET %q: %d, Content-Type %q, with a body that is not JSON", target, rec.Code, rec.Header().Get("Content-Type"))
		}
	})
}
