package site

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hensachi/hensachi/internal/testrig/realdata"
)

// TestScoreChartCoversRealScores: the score chart's scale holds the real dataset's highest and
// lowest scores on every axis, so that no bar is clipped: 千代田区's 84.4 is drawn longer than an 80.
func TestScoreChartCoversRealScores(t *testing.T) {
	c := realdata.Catalog(t, "https://hensachi.example")
	list, _ := c.List("")
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, m := range list.Items {
		for _, s := range m.Scores {
			if s.Value.Valid {
				lo, hi = min(lo, s.Hensachi), max(hi, s.Hensachi)
			}
		}
	}
	if lo < scoreLo || hi > scoreHi {
		t.Fatalf("scores span %.1f–%.1f, the chart %.0f–%.0f", lo, hi, scoreLo, scoreHi)
	}
	svg := string(scoreChart("t", "t", []scoreBar{{"highest", hi, true}, {"80", 80, true}, {"20", 20, true}, {"lowest", lo, true}}))
	var widths []float64
	for _, m := range regexp.MustCompile(`<rect [^>]*width="([0-9.]+)"`).FindAllStringSubmatch(svg, -1) {
		w, _ := strconv.ParseFloat(m[1], 64)
		widths = append(widths, w)
	}
	if len(widths) != 4 || !(widths[0] > widths[1] && widths[3] > widths[2]) {
		t.Errorf("bar lengths %v: the extremes %.1f and %.1f are not drawn beyond 80 and 20", widths, hi, lo)
	}
}

// TestHistoryLabelsApart: no two amounts of the hometown-tax history overlap at a phone's type
// size (16 units an em, digits about 0.6 em wide), however close their bars.
func TestHistoryLabelsApart(t *testing.T) {
	var years []yearBar
	for i := range 10 {
		years = append(years, yearBar{Year: strconv.Itoa(2015 + i), Label: strconv.Itoa(i), ThousandYen: 81469974, Valid: true, Amount: "8億1469万"})
	}
	type label struct{ x, y, w float64 }
	var labels []label
	for _, m := range regexp.MustCompile(`<text class="tick" x="([0-9.]+)" y="([0-9.]+)">([^<]+)</text>`).FindAllStringSubmatch(string(historyChart(years)), -1) {
		if !strings.Contains(m[3], "万") {
			continue // a year's label under its bar
		}
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		w := 0.0
		for _, r := range m[3] {
			if r < 128 {
				w += 0.6 * 16
			} else {
				w += 16
			}
		}
		labels = append(labels, label{x, y, w})
	}
	if len(labels) != len(years) {
		t.Fatalf("%d amounts drawn for %d years", len(labels), len(years))
	}
	for i := 1; i < len(labels); i++ {
		a, b := labels[i-1], labels[i]
		if math.Abs(a.y-b.y) < 16 && a.x+a.w/2 > b.x-b.w/2 {
			t.Errorf("the amounts of years %d and %d overlap: %+v %+v", i-1, i, a, b)
		}
	}
}
