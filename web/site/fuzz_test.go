package site

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

// FuzzExplorePages sends arbitrary queries to the scatter, compare and CSV routes: the answer is
// never a server error.
func FuzzExplorePages(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	for _, s := range []string{"x=income&y=young", "x=pop&y=area&pref=13", "x=&y=", "pref=%00", "codes=13101,01100", "codes=13101&pref=13", "x=income&x=young&y=pop",
		"x=income;y=young", "=1", "%FF=1", "x=%zz", "codes=" + strings.Repeat("13101,", 40), "m=births_per_1000@02020"} {
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
