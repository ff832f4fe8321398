package site

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strings"
)

// The charts are inline SVG written here, so that a page needs no script and no second request.
// Every chart has a title and a text alternative; the same figures are in a table beside it.

// scoreBar is one axis of the score chart.
type scoreBar struct {
	Label    string
	Hensachi float64
	Valid    bool
}

// scoreChart draws deviation scores as bars from the national middle (50) on a 20–80 scale.
func scoreChart(bars []scoreBar) template.HTML {
	const (
		labelW, plotW, rowH, top = 120.0, 420.0, 34.0, 24.0
		lo, hi                   = 20.0, 80.0
	)
	x := func(v float64) float64 { return labelW + (min(max(v, lo), hi)-lo)/(hi-lo)*plotW }
	height := top + rowH*float64(len(bars)) + 8
	var b strings.Builder
	var alt []string
	for _, bar := range bars {
		if bar.Valid {
			alt = append(alt, fmt.Sprintf("%s %.1f", bar.Label, bar.Hensachi))
		} else {
			alt = append(alt, bar.Label+" データなし")
		}
	}
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %.0f %.0f" role="img" aria-labelledby="score-chart-title"><title id="score-chart-title">偏差値（50が全国の真ん中）：%s</title>`,
		labelW+plotW+50, height, html.EscapeString(strings.Join(alt, "、")))
	for _, v := range []float64{20, 30, 40, 50, 60, 70, 80} {
		cls := "grid"
		if v == 50 {
			cls = "mid"
		}
		fmt.Fprintf(&b, `<line class="%s" x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f"/><text class="tick" x="%.1f" y="14">%.0f</text>`,
			cls, x(v), top-6, x(v), height-4, x(v), v)
	}
	for i, bar := range bars {
		y := top + rowH*float64(i)
		fmt.Fprintf(&b, `<text class="label" x="%.0f" y="%.1f">%s</text>`, labelW-8, y+rowH/2+5, html.EscapeString(bar.Label))
		if !bar.Valid {
			fmt.Fprintf(&b, `<text class="value" x="%.1f" y="%.1f">データなし</text>`, x(50)+6, y+rowH/2+5)
			continue
		}
		x0, x1 := x(50), x(bar.Hensachi)
		cls := "up"
		if x1 < x0 {
			x0, x1, cls = x1, x0, "down"
		}
		fmt.Fprintf(&b, `<rect class="%s" x="%.1f" y="%.1f" width="%.1f" height="%.0f"/>`, cls, x0, y+6, math.Max(x1-x0, 1), rowH-12)
		fmt.Fprintf(&b, `<text class="value" x="%.1f" y="%.1f">%.1f</text>`, x(max(bar.Hensachi, 50))+6, y+rowH/2+5, bar.Hensachi)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// yearBar is one fiscal year of the hometown-tax history.
type yearBar struct {
	Year          string
	ThousandYen   int64
	Valid         bool
	Label, Amount string
}

// historyChart draws the yearly hometown-tax receipts as vertical bars.
func historyChart(years []yearBar) template.HTML {
	const (
		left, plotH, top, barW, gap = 8.0, 150.0, 22.0, 44.0, 14.0
	)
	var peak int64
	for _, y := range years {
		if y.Valid && y.ThousandYen > peak {
			peak = y.ThousandYen
		}
	}
	width := left*2 + float64(len(years))*(barW+gap)
	var alt []string
	for _, y := range years {
		alt = append(alt, y.Label+" "+y.Amount)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %.0f %.0f" role="img" aria-labelledby="history-chart-title"><title id="history-chart-title">ふるさと納税の受入額の推移：%s</title>`,
		width, top+plotH+40, html.EscapeString(strings.Join(alt, "、")))
	fmt.Fprintf(&b, `<line class="mid" x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f"/>`, left, top+plotH, width-left, top+plotH)
	for i, y := range years {
		x := left + gap/2 + float64(i)*(barW+gap)
		if y.Valid && peak > 0 {
			h := math.Max(plotH*float64(y.ThousandYen)/float64(peak), 1)
			fmt.Fprintf(&b, `<rect class="up" x="%.1f" y="%.1f" width="%.0f" height="%.1f"/>`, x, top+plotH-h, barW, h)
			fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%.1f">%s</text>`, x+barW/2, top+plotH-h-5, html.EscapeString(y.Amount))
		} else {
			fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%.1f">—</text>`, x+barW/2, top+plotH-5)
		}
		fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%.1f">%s</text>`, x+barW/2, top+plotH+18, html.EscapeString(y.Label))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
