package site

import (
	"math"
	"regexp"
	"strconv"
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
