package site

import (
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
)

// TestScatterOnRealData draws every axis and statistic against income and against the young
// over the real dataset: one circle per municipality with both values, each titled and linking to
// its page, the picked prefecture's circles in their own group, and every page within the 300 KB
// budget uncompressed.
func TestScatterOnRealData(t *testing.T) {
	s := newRealSite(t, "https://hensachi.example")
	c, err := s.towns.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	const budget = 300_000
	circle := regexp.MustCompile(`<a href="municipalities/(\d{5})"><circle [^>]*><title>([^<]+)</title></circle></a>`)
	largest, largestPath := 0, ""
	var keys []string
	for _, f := range append(append([]hensachi.Field{}, hensachi.Axes...), hensachi.Stats...) {
		keys = append(keys, f.Key)
	}
	for _, other := range []string{"income", "young"} {
		for _, key := range keys {
			if key == other {
				continue
			}
			x, _ := measureOf(c, key)
			y, _ := measureOf(c, other)
			want, wantPicked := 0, 0
			for _, m := range allTowns(c) {
				if x.value(m).Valid && y.value(m).Valid {
					want++
					if m.Prefecture.Code == "13" {
						wantPicked++
					}
				}
			}
			path := "/town/scatter?x=" + key + "&y=" + other + "&pref=13"
			status, body := s.get(t, path)
			if status != 200 {
				t.Errorf("%s: %d", path, status)
				continue
			}
			dots := circle.FindAllStringSubmatch(body, -1)
			if len(dots) != want || want < 1700 {
				t.Errorf("%s: %d linked, titled circles, want %d", path, len(dots), want)
			}
			if n := strings.Count(body, "<circle"); n != want {
				t.Errorf("%s: %d circles, want %d", path, n, want)
			}
			_, picked, _ := strings.Cut(body, `<g class="pick">`)
			if n := strings.Count(picked, "<circle"); n != wantPicked || !strings.Contains(picked, "八王子市（東京都）") {
				t.Errorf("%s: %d circles in the picked group, want %d", path, n, wantPicked)
			}
			if len(body) > largest {
				largest, largestPath = len(body), path
			}
		}
	}
	if largest > budget {
		t.Errorf("largest scatter page %s: %d bytes, budget %d", largestPath, largest, budget)
	}
	t.Logf("largest scatter page %s: %d bytes", largestPath, largest)
}

// BenchmarkExplorePages measures the server time of the scatter (every municipality, a
// prefecture picked out) and of a comparison of ten, each as a ratio to the municipality page
// timed in the same run (x-municipality), and reports their weights.
func BenchmarkExplorePages(b *testing.B) {
	s := newRealSite(b, "https://hensachi.example")
	render := func(b *testing.B, path string) int {
		w := httptest.NewRecorder()
		s.handler.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		if w.Code != 200 {
			b.Fatalf("%s: %d", path, w.Code)
		}
		return w.Body.Len()
	}
	const baseRuns = 300
	start := time.Now()
	for range baseRuns {
		render(b, "/town/municipalities/28214")
	}
	base := time.Since(start) / baseRuns
	for _, page := range []struct{ name, path string }{
		{"scatter", "/town/scatter?x=income&y=young&pref=28"},
		{"compare-10", "/town/compare?codes=28214,14207,13215,12204,23219,11203,28217,29209,12203,13225"},
	} {
		b.Run(page.name, func(b *testing.B) {
			var size int
			for b.Loop() {
				size = render(b, page.path)
			}
			b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(base), "x-municipality")
			b.ReportMetric(float64(size)/1000, "KB/page")
		})
	}
}
