package site

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hensachi/hensachi/internal/param"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

// scatterBudget is the most a scatter page may weigh uncompressed: its 1,741 dots and the two
// selects of every measure and indicator.
const scatterBudget = 360_000

// gzipBudget is the most the scatter and the comparison may weigh gzipped, as a phone receives them.
const gzipBudget = 60_000

// gzipped is how many bytes body takes gzipped at the default level.
func gzipped(t testing.TB, body []byte) int {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write(body); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Len()
}

// measureKeys are the keys of the six axes and the sixteen statistics.
func measureKeys() []string {
	var keys []string
	for _, f := range append(append([]hensachi.Field{}, hensachi.Axes...), hensachi.Stats...) {
		keys = append(keys, f.Key)
	}
	return keys
}

// scatterPages renders the scatter, Tokyo picked out, for every pair of measures that pick
// accepts, and keeps the heaviest within the budget.
func scatterPages(t *testing.T, s *realSite, pick func(x, y string) bool, check func(x, y, path, body string)) {
	largest, largestPath := 0, ""
	for _, x := range measureKeys() {
		for _, y := range measureKeys() {
			if x == y || !pick(x, y) {
				continue
			}
			path := "/town/scatter?x=" + x + "&y=" + y + "&pref=13"
			w := httptest.NewRecorder()
			s.handler.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
			if w.Code != 200 {
				t.Errorf("%s: %d", path, w.Code)
				continue
			}
			if w.Body.Len() > largest {
				largest, largestPath = w.Body.Len(), path
				if z := gzipped(t, w.Body.Bytes()); z > gzipBudget {
					t.Errorf("%s: %d bytes gzipped, budget %d", path, z, gzipBudget)
				}
			}
			check(x, y, path, w.Body.String())
		}
	}
	if largest > scatterBudget {
		t.Errorf("largest scatter page %s: %d bytes, budget %d", largestPath, largest, scatterBudget)
	}
	t.Logf("largest scatter page %s: %d bytes", largestPath, largest)
}

// TestScatterOnRealData draws every axis and statistic against income and against the young
// over the real dataset, Tokyo picked out: one circle per municipality with both values, each
// titled and linking to its page, Tokyo's circles in their own group, and the page within the
// budget.
func TestScatterOnRealData(t *testing.T) {
	s := newRealSite(t, "https://hensachi.example")
	c, err := s.catalogs.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	circle := regexp.MustCompile(`<a href=municipalities/(\d{5})><circle cx=\d+ cy=\d+ r=\d><title>([^<]+)</title></circle></a>`)
	withIncomeOrYoung := func(x, y string) bool { return x == "income" || x == "young" || y == "income" || y == "young" }
	scatterPages(t, s, withIncomeOrYoung, func(xKey, yKey, path, body string) {
		q, _ := param.ParsePage(url.Values{"x": {xKey}, "y": {yKey}}.Encode())
		x, _ := param.MeasureOf(c, q, "x", "")
		y, _ := param.MeasureOf(c, q, "y", "")
		want, wantPicked := 0, 0
		for _, m := range allTowns(c) {
			if x.Value(m).Valid && y.Value(m).Valid {
				want++
				if m.Prefecture.Code == "13" {
					wantPicked++
				}
			}
		}
		if n := len(circle.FindAllString(body, -1)); n != want || want < 1700 {
			t.Errorf("%s: %d linked, titled circles, want %d", path, n, want)
		}
		if n := strings.Count(body, "<circle"); n != want {
			t.Errorf("%s: %d circles, want %d", path, n, want)
		}
		_, picked, _ := strings.Cut(body, `<g class="pick">`)
		if n := strings.Count(picked, "<circle"); n != wantPicked || !strings.Contains(picked, "八王子市（東京都）") {
			t.Errorf("%s: %d circles in the picked group, want %d", path, n, wantPicked)
		}
	})
}

// TestCompareOnRealData compares ten municipalities (the longest names) on the four indicators
// of the most survey years: a chart per indicator with a line per municipality in its colour, a
// table with a row per year, and the page within the budget gzipped.
func TestCompareOnRealData(t *testing.T) {
	s := newRealSite(t, "https://hensachi.example")
	c, err := s.catalogs.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	all := c.Indicators("")
	slices.SortStableFunc(all, func(a, b *hensachi.Indicator) int { return cmp.Compare(len(b.Years), len(a.Years)) })
	var keys []string
	for _, ind := range all[:param.MaxChartedIndicators] {
		keys = append(keys, ind.Key)
	}
	path := "/town/compare?codes=46304,11341,21502,43403,47324,21501,01458,08235,24344,07461&indicators=" + strings.Join(keys, ",")
	w := httptest.NewRecorder()
	s.handler.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
	body := w.Body.String()
	if w.Code != 200 {
		t.Fatalf("%s: %d", path, w.Code)
	}
	if n := strings.Count(body, `<svg class="chart series"`); n != len(keys) {
		t.Errorf("%d charts, want %d", n, len(keys))
	}
	for k, colour := range seriesColours {
		if n := strings.Count(body, `stroke="`+colour+`" stroke-width="2.5" stroke-linejoin`); n != len(keys) {
			t.Errorf("line %d (%s) drawn %d times, want once per chart", k, colour, n)
		}
	}
	for _, ind := range all[:len(keys)] {
		if n := strings.Count(body[strings.Index(body, `id="series-table-`+ind.Key+`"`):], `<tr><th scope="row">`); n < len(ind.Years) {
			t.Errorf("%s: table of %d rows, want %d years", ind.Key, n, len(ind.Years))
		}
	}
	z := gzipped(t, w.Body.Bytes())
	if z > gzipBudget {
		t.Errorf("%s: %d bytes gzipped, budget %d", path, z, gzipBudget)
	}
	t.Logf("ten municipalities on %v: %d bytes, %d gzipped", keys, len(body), z)
}

// TestScatterBudget keeps every pair of the 22 measures (462 pages) within the budget.
func TestScatterBudget(t *testing.T) {
	testenv.Slow(t, "every scatter page")
	s := newRealSite(t, "https://hensachi.example")
	scatterPages(t, s, func(string, string) bool { return true }, func(string, string, string, string) {})
}

// BenchmarkExplorePages measures the server time of the scatter (every municipality, a
// prefecture picked out) and of a comparison of ten, without and with four indicators' series, each as a ratio to the municipality page
// timed in the same run (x-municipality), and reports their weights.
func BenchmarkExplorePages(b *testing.B) {
	benchmarkPages(b, []benchPage{
		{"scatter", "/town/scatter?x=income&y=young&pref=28"},
		{"compare-10", "/town/compare?codes=28214,14207,13215,12204,23219,11203,28217,29209,12203,13225"},
		{"compare-10-indicators-4", "/town/compare?codes=28214,14207,13215,12204,23219,11203,28217,29209,12203,13225&indicators=fiscal_strength,current_balance_ratio,real_debt_service_ratio,laspeyres_index"},
	})
}

// benchPage is a page a benchmark times.
type benchPage struct{ name, path string }

// benchmarkPages times each page over the real dataset as a ratio to the municipality page timed
// in the same run (x-municipality) and reports its weight. Each page is asked once before it is
// timed, as what a dataset version draws once (a map's geometry) is not what every request costs.
func benchmarkPages(b *testing.B, pages []benchPage) {
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
	for _, page := range pages {
		b.Run(page.name, func(b *testing.B) {
			render(b, page.path)
			var size int
			for b.Loop() {
				size = render(b, page.path)
			}
			b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(base), "x-municipality")
			b.ReportMetric(float64(size)/1000, "KB/page")
		})
	}
}
