package serve

import (
	"net/http"
	"strings"

	"github.com/julienschmidt/httprouter"
)

// CORS: pages of other origins may call the APIs and read /openapi.json. Keys travel in headers,
// never in cookies, so the answers allow any origin ("*") and never credentials; an account that
// lists origins (hensachi.Account.Origins) has its calls from other origins refused in keyed,
// once the key is known. A preflight carries no key, so it is answered alike for every origin.
// The site's pages, whose forms use the session cookie, get no CORS headers at all.

// Header values of the CORS answers, shared: net/http only reads them.
var (
	corsAnyOrigin     = []string{"*"}
	corsExposeHeaders = []string{"ETag, RateLimit, RateLimit-Policy, Retry-After, X-Request-Id, Content-Disposition"}
	corsAllowHeaders  = []string{"X-API-Key, Authorization, If-None-Match, Content-Type, X-Request-Id"}
	corsMaxAge        = []string{"7200"} // Chromium's cap, in seconds
	// Vary's values, shared, by what they name (addVary)
	varyValues = map[string][]string{"Origin": {"Origin"}, "Accept-Encoding": {"Accept-Encoding"},
		"Origin, Accept-Encoding": {"Origin, Accept-Encoding"}}
)

// addVary adds a request field to the Vary of an answer, after those it names already (setting
// Vary would drop them: Origin, which CORS adds, and Accept-Encoding, which a gzipped export adds).
func addVary(h http.Header, field string) {
	value := field
	if old := h["Vary"]; len(old) > 0 {
		for _, line := range old {
			for name := range strings.SplitSeq(line, ",") {
				if name = strings.TrimSpace(name); name == "*" || strings.EqualFold(name, field) {
					return
				}
			}
		}
		value = strings.Join(old, ", ") + ", " + field
	}
	if shared, ok := varyValues[value]; ok {
		h["Vary"] = shared
	} else {
		h["Vary"] = []string{value}
	}
}

// corsPath reports whether a path is one other origins may call: the two APIs and the document.
func corsPath(path string) bool {
	return strings.HasPrefix(path, "/town/v1/") || strings.HasPrefix(path, "/face/v1/") || path == "/openapi.json"
}

// allowCORS lets a browser page of another origin read an answer: errors included, so that a
// refused call shows its problem to the page's script.
func allowCORS(h http.Header) {
	h["Access-Control-Allow-Origin"] = corsAnyOrigin
	h["Access-Control-Expose-Headers"] = corsExposeHeaders
	addVary(h, "Origin")
}

// cors wraps the handler of a route other origins may call. An answer to a page (a request with an
// Origin) varies on Origin (allowCORS), whatever else it varies on: an account's allow-list
// refuses the origins it does not list. One without an Origin does not say so: keyed answers are
// private and a browser's cache is partitioned by site, while a ninth header field costs every
// call three allocations (BenchmarkMunicipality).
func cors(next httprouter.Handle) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		if _, ok := r.Header["Origin"]; ok {
			allowCORS(w.Header())
		}
		next(w, r, ps)
	}
}

// corsRefusal wraps the router's answers for a path or method it has no route for, under the paths
// other origins may call.
func corsRefusal(next httprouter.Handle) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		if _, ok := r.Header["Origin"]; ok && corsPath(r.URL.Path) {
			allowCORS(w.Header())
		}
		next(w, r, ps)
	}
}

// preflight answers OPTIONS, which the router sends here with Allow already set to the path's
// methods: a CORS preflight to an API route gets 204 and what it may send, its methods those of
// the path; anything else just the Allow list.
func preflight(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	if corsPath(r.URL.Path) && r.Header.Get("Access-Control-Request-Method") != "" && r.Header.Get("Origin") != "" {
		allowCORS(h)
		h["Access-Control-Allow-Methods"] = []string{corsMethods(h.Get("Allow"))}
		h["Access-Control-Allow-Headers"] = corsAllowHeaders
		h["Access-Control-Max-Age"] = corsMaxAge
	}
	w.WriteHeader(http.StatusNoContent)
}

// corsMethods is an Allow list without OPTIONS, which a preflight does not ask for.
func corsMethods(allow string) string {
	var methods []string
	for m := range strings.SplitSeq(allow, ",") {
		if m = strings.TrimSpace(m); m != "" && m != http.MethodOptions {
			methods = append(methods, m)
		}
	}
	return strings.Join(methods, ", ")
}
