package serve

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/hensachi/hensachi"
)

// TestCORS checks the CORS answers: preflights to the API and the document are answered for any
// origin, keyed calls and their errors are readable from any origin, credentials are never
// allowed, the site's cookie routes get no CORS, and an account's origin allow-list refuses calls
// from other origins (and from no others: a call without Origin is not a browser page's).
func TestCORS(t *testing.T) {
	ts := newTestServer(t)
	const app, other = "https://app.example.com", "https://other.example"
	preflight := func(path, method, headers string) []string {
		return []string{"Origin", app, "Access-Control-Request-Method", method, "Access-Control-Request-Headers", headers}
	}
	key := func(origin string) []string {
		h := []string{"X-API-Key", ts.freeKey}
		if origin != "" {
			h = append(h, "Origin", origin)
		}
		return h
	}
	type want struct {
		status int
		cors   bool // Access-Control-Allow-Origin: * with the exposed headers
		code   string
	}
	cases := []struct {
		name, method, path string
		header             []string
		origins            string // the free account's allow-list during the call
		want               want
	}{
		{"preflight of a statistics call", http.MethodOptions, "/town/v1/municipalities/13101", preflight("", "GET", "x-api-key,if-none-match"), "", want{204, true, ""}},
		{"preflight with an allow-list", http.MethodOptions, "/town/v1/meta", preflight("", "GET", "authorization"), "https://else.example", want{204, true, ""}},
		{"preflight of the document", http.MethodOptions, "/openapi.json", preflight("", "GET", ""), "", want{204, true, ""}},
		{"OPTIONS to a cookie page", http.MethodOptions, "/account", preflight("", "POST", "content-type"), "", want{204, false, ""}},
		{"keyed call from a page", http.MethodGet, "/town/v1/meta", key(app), "", want{200, true, ""}},
		{"keyed HEAD from a page", http.MethodHead, "/town/v1/meta", key(app), "", want{200, true, ""}},
		{"error to a page", http.MethodGet, "/town/v1/municipalities/99999", key(app), "", want{404, true, ""}},
		{"unknown API route from a page", http.MethodGet, "/town/v1/nowhere", key(app), "", want{404, true, ""}},
		{"method not allowed from a page", http.MethodPost, "/town/v1/meta", key(app), "", want{405, true, hensachi.EMethodNotAllowed}},
		{"missing key from a page", http.MethodGet, "/town/v1/meta", []string{"Origin", app}, "", want{401, true, hensachi.EMissingAPIKey}},
		{"the document from a page", http.MethodGet, "/openapi.json", []string{"Origin", app}, "", want{200, true, ""}},
		{"a public page", http.MethodGet, "/town/prefectures", []string{"Origin", app}, "", want{200, false, ""}},
		{"the login page", http.MethodGet, "/login", []string{"Origin", app}, "", want{503, false, ""}},
		{"listed origin", http.MethodGet, "/town/v1/meta", key(app), app + " https://else.example", want{200, true, ""}},
		{"origin not listed", http.MethodGet, "/town/v1/meta", key(other), app, want{403, true, hensachi.EOriginNotAllowed}},
		{"origin not listed, HEAD", http.MethodHead, "/town/v1/meta", key(other), app, want{403, true, ""}},
		{"no Origin with a list (not a page)", http.MethodGet, "/town/v1/meta", key(""), app, want{200, false, ""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := (hensachi.Accounts{Store: ts.store}).SetOrigins(context.Background(), ts.freeID, c.origins); err != nil {
				t.Fatal(err)
			}
			r := ts.do(t, c.method, c.path, c.header...)
			if r.status != c.want.status {
				t.Fatalf("status %d, want %d: %s", r.status, c.want.status, r.body)
			}
			if v := r.header.Get("Access-Control-Allow-Credentials"); v != "" {
				t.Errorf("Access-Control-Allow-Credentials: %q; credentials are never allowed", v)
			}
			acao := r.header.Get("Access-Control-Allow-Origin")
			if !c.want.cors {
				if acao != "" {
					t.Errorf("Access-Control-Allow-Origin %q on a route without CORS", acao)
				}
				return
			}
			if acao != "*" {
				t.Errorf("Access-Control-Allow-Origin %q, want *", acao)
			}
			if c.method == http.MethodOptions {
				allowed := strings.ToLower(r.header.Get("Access-Control-Allow-Headers"))
				for _, h := range []string{"x-api-key", "authorization", "if-none-match", "content-type"} {
					if !strings.Contains(allowed, h) {
						t.Errorf("Access-Control-Allow-Headers %q lacks %s", allowed, h)
					}
				}
				// the path's own methods: these paths are GET only
				if m := r.header.Get("Access-Control-Allow-Methods"); !strings.Contains(m, "GET") || strings.Contains(m, "POST") || strings.Contains(m, "OPTIONS") {
					t.Errorf("Access-Control-Allow-Methods %q", m)
				}
				return
			}
			exposed := r.header.Get("Access-Control-Expose-Headers")
			for _, h := range []string{"ETag", "RateLimit", "RateLimit-Policy", "Retry-After", "X-Request-Id"} {
				if !strings.Contains(exposed, h) {
					t.Errorf("Access-Control-Expose-Headers %q lacks %s", exposed, h)
				}
			}
			if c.want.code != "" {
				if p := decode[problem](t, r.body); p.Code != c.want.code || p.Status != c.want.status {
					t.Errorf("problem %+v, want code %s", p, c.want.code)
				}
			}
		})
	}
}

// TestAddVary: Vary keeps what it names already, once each, in one line.
func TestAddVary(t *testing.T) {
	h := http.Header{}
	addVary(h, "Origin")
	addVary(h, "Accept-Encoding")
	addVary(h, "origin")
	if got := h.Values("Vary"); len(got) != 1 || got[0] != "Origin, Accept-Encoding" {
		t.Errorf("Vary %q", got)
	}
	h = http.Header{"Vary": {"Cookie", "Accept-Encoding"}}
	addVary(h, "Origin")
	if got := h.Values("Vary"); len(got) != 1 || got[0] != "Cookie, Accept-Encoding, Origin" {
		t.Errorf("Vary %q", got)
	}
	h = http.Header{"Vary": {"*"}}
	if addVary(h, "Origin"); h.Get("Vary") != "*" {
		t.Errorf("Vary %q after *", h.Values("Vary"))
	}
}
