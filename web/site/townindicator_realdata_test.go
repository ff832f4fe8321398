package site

import (
	"bytes"
	"compress/gzip"
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hensachi/hensachi/web/page"
)

// townIndicatorBudget is the most a municipality's page of an indicator may weigh gzipped.
const townIndicatorBudget = 60_000

// TestTownIndicatorPagesOnRealData renders, from the real dataset, the page of every indicator
// for 千代田区, 横浜市 (the largest figures), a village and the towns of Fukushima under evacuation
// orders (双葉町 with no residents, 大熊町 and 飯舘村 whose census rates are withheld): each has a
// row per survey year with the municipality's value and national rank, the value of the table
// drawn, a line cut at each break, and weighs under the budget gzipped; a sample of their links to
// the ranking opens at the page that marks the municipality's row.
func TestTownIndicatorPagesOnRealData(t *testing.T) {
	s := newRealSite(t, "https://hensachi.example")
	c, err := s.catalogs.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	rankingLink := regexp.MustCompile(`<a href="(/town/indicators/[^"#]+)#m-(\d{5})">全国ランキングで`)
	var slowest time.Duration
	largest, largestPath, nulls := 0, "", 0
	for _, code := range []string{"13101", "14100", "01100", "07546", "07545", "07564", "47382"} {
		row := c.Index(code)
		if row < 0 {
			t.Fatalf("no municipality %s", code)
		}
		m := c.Row(row)
		for i, ind := range c.Indicators("") {
			path := "/town/municipalities/" + code + "/indicators/" + ind.Key
			start := time.Now()
			status, body := s.render(t, path)
			slowest = max(slowest, time.Since(start))
			if status != 200 {
				t.Errorf("%s: %d", path, status)
				continue
			}
			var zipped bytes.Buffer
			zw := gzip.NewWriter(&zipped)
			zw.Write([]byte(body))
			zw.Close()
			if zipped.Len() > largest {
				largest, largestPath = zipped.Len(), path
			}
			_, table, _ := strings.Cut(body, `id="town-years"`)
			table, _, _ = strings.Cut(table, "</table>")
			if got := strings.Count(table, `<tr><th scope="row">`); got != len(ind.Years) {
				t.Errorf("%s: %d years in the table, want %d", path, got, len(ind.Years))
			}
			valued := 0
			for k, y := range ind.Years {
				p := c.IndicatorPoint(i, k, row)
				want := `<tr><th scope="row">` + strconv.Itoa(y.Year)
				if p.Value.Valid {
					valued++
					want = `<td class="n">` + string(page.Nowrap(withUnit(p.Value, ind.Field()))) + `</td><td class="n">` + integer(p.Rank) + ` <span class=nb>/ ` + integer(y.Count) + ` 位</span>`
				} else {
					nulls++
				}
				if !strings.Contains(table, want) {
					t.Errorf("%s %d: no %s", path, y.Year, want)
				}
			}
			d := pathOf(body, "ln-town")
			if valued > 0 && !strings.Contains(body, `<circle class="pt"`) {
				t.Errorf("%s: %d values, no dot drawn", path, valued)
			}
			if valued > 1 && len(ind.Breaks) > 0 && strings.Count(d, "M") < 2 {
				t.Errorf("%s: breaks %v, but the line %q is not cut", path, ind.Breaks, d)
			}
			if !strings.Contains(body, m.Name) || !strings.Contains(body, html.EscapeString(ind.Source)) {
				t.Errorf("%s: no name or source", path)
			}
			if i%40 != 0 {
				continue
			}
			link := rankingLink.FindStringSubmatch(body)
			if valued == 0 {
				if link != nil {
					t.Errorf("%s: no value, yet a link to the ranking's row %s", path, link[0])
				}
				continue
			}
			if link == nil {
				t.Errorf("%s: no link to the ranking's row", path)
				continue
			}
			target := html.UnescapeString(link[1])
			if status, ranking := s.render(t, target); status != 200 || !strings.Contains(ranking, `<tr class="mark" id="m-`+code+`"`) {
				t.Errorf("%s: %s (%d) marks no row of %s", path, target, status, code)
			}
		}
	}
	if largest > townIndicatorBudget {
		t.Errorf("largest page %s: %d bytes gzipped, budget %d", largestPath, largest, townIndicatorBudget)
	}
	if nulls == 0 {
		t.Error("no year without a value: the evacuated towns' nulls are not looked at")
	}
	t.Logf("largest %s: %d bytes gzipped; slowest render %v; %d years without a value", largestPath, largest, slowest, nulls)
}
