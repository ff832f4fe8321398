package site

import (
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

// FuzzComparedCodes: whatever the query, comparedCodes accepts 2 to 10 distinct five-digit codes
// or fails with invalid_parameter.
func FuzzComparedCodes(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	for _, s := range []string{"", "codes=13101,01100", "codes=13101&codes=01100", "codes=,,,", "codes=13101,13101", "codes=%zz", "codes=１３１０１,01100"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		codes, err := comparedCodes(q)
		if err != nil {
			if hensachi.ErrorCode(err) != hensachi.EInvalidParameter {
				t.Fatalf("error of code %s: %v", hensachi.ErrorCode(err), err)
			}
			return
		}
		seen := map[string]bool{}
		for _, c := range codes {
			if !municipalityCode.MatchString(c) || seen[c] {
				t.Fatalf("accepted %q in %q", c, codes)
			}
			seen[c] = true
		}
		if len(codes) < 2 || len(codes) > maxCompared {
			t.Fatalf("accepted %d codes", len(codes))
		}
	})
}

// FuzzExplorePages sends arbitrary queries to the scatter, compare and CSV routes: the answer is
// never a server error.
func FuzzExplorePages(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	for _, s := range []string{"x=income&y=young", "x=pop&y=area&pref=13", "x=&y=", "pref=%00", "codes=13101,01100", "codes=13101&pref=13", "x=income&x=young&y=pop"} {
		f.Add(s)
	}
	router := siteRouter(f)
	f.Fuzz(func(t *testing.T, raw string) {
		for _, path := range []string{"/town/scatter", "/town/compare", "/town/municipalities.csv"} {
			w := httptest.NewRecorder()
			router.ServeHTTP(w, httptest.NewRequest("GET", path+"?"+url.PathEscape(raw), nil))
			if w.Code >= 500 {
				t.Fatalf("%s?%s: %d", path, raw, w.Code)
			}
		}
	})
}
