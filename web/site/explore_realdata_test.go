package site

import (
	"regexp"
	"strings"
	"testing"

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
