package site

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hensachi/hensachi/internal/testrig/browsertest"
)

// lighthouseReport is what the test reads of a Lighthouse report.
type lighthouseReport struct {
	Categories map[string]struct{ Score float64 }
	Audits     map[string]struct {
		Title string
		Score *float64
	}
}

// performanceAttempts is how many audits a page gets to reach its performance floor. Lighthouse
// simulates a slow phone from the timings it observes, so its performance score drops when other
// work takes the CPU (the model pass of `make test-all` beside the race pass): a page is held to
// its floor in the best of a few audits. The other categories do not depend on timing and are
// held to theirs in every audit.
const performanceAttempts = 3

// TestLighthouse audits the landing, municipality, ranking, documentation, scatter, compare and
// indicator pages (the catalogue and one indicator's ranking) and the map pages (national and
// 兵庫県) with Lighthouse in Debian's Chromium: accessibility, best practices and SEO must score at
// least 95, performance at least 90.
// The reports are kept beside the screenshots ($SCREENSHOT_DIR); -run TestLighthouse/map audits the
// maps alone.
func TestLighthouse(t *testing.T) {
	lighthouse := browsertest.NewLighthouse(t)
	s := newRealSite(t, "https://hensachi.example")
	floors := map[string]float64{"performance": 0.90, "accessibility": 0.95, "best-practices": 0.95, "seo": 0.95}
	for name, path := range map[string]string{"landing": "/", "municipality": "/town/municipalities/28214", "ranking": "/town/rankings/income?pref=28", "docs": "/docs",
		"scatter": "/town/scatter?x=income&y=young&pref=28", "compare": "/town/compare?codes=28214,14207,13215",
		"indicators": "/town/indicators", "indicator": "/town/indicators/population_density?year=2020&pref=28",
		"map-national": "/town/map?m=income", "map-prefecture": "/town/map?m=income&pref=28",
		"town-indicator": "/town/municipalities/28214/indicators/population", "indicator-change": "/town/indicators/unemployment_rate?from=2015&to=2020&pref=28",
		"compare-indicators": "/town/compare?codes=28214,14207,13215&indicators=fiscal_strength,population"} {
		t.Run(name, func(t *testing.T) {
			report := filepath.Join(t.TempDir(), "report.json")
			if dir := os.Getenv("SCREENSHOT_DIR"); dir != "" {
				report = filepath.Join(dir, "lighthouse-"+name+".json")
			}
			var r lighthouseReport
			for attempt := 1; attempt <= performanceAttempts; attempt++ {
				r = audit(t, lighthouse, s.URL+path, report)
				for category, floor := range floors {
					if got := r.Categories[category].Score; category != "performance" && got < floor {
						t.Errorf("%s %s: %.2f, floor %.2f", path, category, got, floor)
					}
				}
				t.Logf("%s (audit %d): performance %.2f, accessibility %.2f, best practices %.2f, SEO %.2f", path, attempt,
					r.Categories["performance"].Score, r.Categories["accessibility"].Score, r.Categories["best-practices"].Score, r.Categories["seo"].Score)
				if r.Categories["performance"].Score >= floors["performance"] {
					break
				}
			}
			if got := r.Categories["performance"].Score; got < floors["performance"] {
				t.Errorf("%s performance: %.2f in the last of %d audits, floor %.2f", path, got, performanceAttempts, floors["performance"])
			}
			for id, a := range r.Audits {
				if a.Score != nil && *a.Score == 0 {
					t.Logf("%s: audit %s failed: %s", path, id, a.Title)
				}
			}
		})
	}
}

// audit runs Lighthouse on url, writing its report to report, and reads the report.
func audit(t *testing.T, lighthouse *browsertest.Lighthouse, url, report string) lighthouseReport {
	t.Helper()
	lighthouse.Audit(t, url, report)
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var r lighthouseReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}
