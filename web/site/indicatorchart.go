package site

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/town"
)

// The indicators' charts: a municipality's series as a sparkline, a year's national spread as a
// histogram and the national median over the years as a line.

// linearScale fits the values onto the pixels from..to, pad of the range left free on either
// side; equal values sit in the middle.
func linearScale(values []float64, from, to, pad float64) scale {
	s := scale{from: from, to: to}
	for i, v := range values {
		if i == 0 {
			s.lo, s.hi = v, v
		}
		s.lo, s.hi = min(s.lo, v), max(s.hi, v)
	}
	if s.hi == s.lo {
		s.lo, s.hi = s.lo-1, s.hi+1
	}
	room := (s.hi - s.lo) * pad
	s.lo, s.hi = s.lo-room, s.hi+room
	return s
}

// appendPath appends the SVG path of a series over its years in whole pixels: a break in the
// line where a year has no value and at a year from which the figure has a new definition
// (breaks), so that no line joins what cannot be compared. A lone point is drawn as a dot (a
// round cap on a line of no length).
func appendPath(dst []byte, points []town.IndicatorPoint, breaks []int, sx, sy scale) []byte {
	run, start := 0, 0 // the points of the current run, and where its first is written
	end := func() {
		if run == 1 {
			point := dst[start+1:]
			dst = append(append(dst, 'L'), point...)
		}
		run = 0
	}
	for _, p := range points {
		if !p.Value.Valid || slices.Contains(breaks, p.Year) {
			end()
		}
		if !p.Value.Valid {
			continue
		}
		if run == 0 {
			start = len(dst)
			dst = append(dst, 'M')
		} else {
			dst = append(dst, 'L')
		}
		dst = strconv.AppendInt(dst, int64(math.Round(sx.at(float64(p.Year)))), 10)
		dst = append(dst, ',')
		dst = strconv.AppendInt(dst, int64(math.Round(sy.at(p.Value.V))), 10)
		run++
	}
	end()
	return dst
}

// appendSparkline appends a municipality's series of one indicator drawn in a 64 × 16 box, its own
// lowest and highest values at the bottom and top: the shape, read beside the latest figure. It
// is the one short element per indicator the municipality page can afford for 300 of them (no
// view box: its pixels are the box's, sized by the style sheet; the path's attribute unquoted),
// and says its first and last figures to a screen reader. No value in any year draws nothing.
func appendSparkline(dst []byte, ind *hensachi.Indicator, series []town.IndicatorPoint) []byte {
	first, last := -1, -1
	sy := scale{from: 14, to: 2}
	for k, p := range series {
		if !p.Value.Valid {
			continue
		}
		if first < 0 {
			first, sy.lo, sy.hi = k, p.Value.V, p.Value.V
		}
		last, sy.lo, sy.hi = k, min(sy.lo, p.Value.V), max(sy.hi, p.Value.V)
	}
	if first < 0 {
		return dst
	}
	if sy.lo == sy.hi {
		sy.lo, sy.hi = sy.lo-1, sy.hi+1
	}
	sx := scale{lo: float64(ind.Years[0].Year), hi: float64(ind.Years[len(ind.Years)-1].Year), from: 2, to: 62}
	if sx.lo == sx.hi {
		sx.lo, sx.hi = sx.lo-1, sx.hi+1
	}
	f := ind.Field()
	label := strconv.Itoa(series[first].Year) + "年 " + withUnit(series[first].Value, f)
	if last != first {
		label += " → " + strconv.Itoa(series[last].Year) + "年 " + withUnit(series[last].Value, f)
	}
	dst = append(dst, `<svg role=img aria-label="`...)
	dst = append(dst, html.EscapeString(label)...)
	dst = append(dst, `"><path d=`...)
	dst = appendPath(dst, series, ind.Breaks, sx, sy)
	return append(dst, ` /></svg>`...)
}

// histogramBins is how many bars a histogram has: enough to show the shape, few enough to stay a
// few dozen elements.
const histogramBins = 24

// histogram draws how one survey year's values spread over the country: bins of equal width on
// the scale newScale picks (logarithmic for a skewed figure such as a population), the lowest and
// highest hundredth of the values folded into the edge bins so that a few outliers do not squeeze
// the rest into a bar or two. A dashed line marks the national median.
func histogram(f hensachi.Field, year int, values []float64, median hensachi.Optional[float64]) template.HTML {
	const (
		width, height            = 640.0, 268.0
		left, right, top, bottom = 48.0, 16.0, 32.0, 46.0
	)
	if len(values) == 0 {
		return ""
	}
	sorted := append([]float64(nil), values...)
	slices.Sort(sorted)
	sx := newScale(sorted[len(sorted)/100:len(sorted)-len(sorted)/100], left, width-right)
	var counts [histogramBins]int
	for _, v := range values {
		bin := int((sx.at(v) - sx.from) / (sx.to - sx.from) * histogramBins)
		counts[min(max(bin, 0), histogramBins-1)]++
	}
	peak := 0
	for _, n := range counts {
		peak = max(peak, n)
	}
	step := niceStep(max(float64(peak)/4, 1))
	yTop := math.Ceil(float64(peak)/step) * step
	y := func(n float64) float64 { return height - bottom - n/yTop*(height-bottom-top) }
	var b strings.Builder
	title := fmt.Sprintf("%s（%d年）の全国の分布：%s 市区町村", f.Label, year, integer(len(values)))
	if median.Valid {
		title += "、中央値 " + withUnit(median, f)
	}
	title += "、最小 " + withUnit(hensachi.Some(sorted[0]), f) + "、最大 " + withUnit(hensachi.Some(sorted[len(sorted)-1]), f)
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %.0f %.0f" role="img" aria-labelledby="histogram-title"><title id="histogram-title">%s</title>`,
		width, height, html.EscapeString(title))
	for n := 0.0; n <= yTop; n += step {
		fmt.Fprintf(&b, `<line class="grid" x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f"/><text class="tick" x="%.0f" y="%.0f">%s</text>`,
			left, y(n), width-right, y(n), left-18, y(n)+4, number(n, 0))
	}
	for _, t := range sx.ticks() {
		fmt.Fprintf(&b, `<text class="tick" x="%.0f" y="%.0f">%s</text>`, sx.at(t), height-bottom+16, sx.label(t))
	}
	binW := (sx.to - sx.from) / histogramBins
	for i, n := range counts {
		if n == 0 {
			continue
		}
		fmt.Fprintf(&b, `<rect class="up" x="%.0f" y="%.0f" width="%.0f" height="%.0f"/>`, sx.from+float64(i)*binW+1, y(float64(n)), binW-2, y(0)-y(float64(n)))
	}
	if median.Valid {
		mx := sx.at(median.V)
		fmt.Fprintf(&b, `<line class="mid" stroke-dasharray="5 4" x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f"/><text x="%.0f" y="%.0f">中央値 %s</text>`,
			mx, top-6, mx, height-bottom, mx+4, top+6, html.EscapeString(withUnit(median, f)))
	}
	name := f.Label
	if f.Unit != "" {
		name += "（" + f.Unit + "）"
	}
	if sx.log {
		name += "、対数目盛"
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="middle">%s →</text><text x="4" y="20">↑ 市区町村数</text></svg>`,
		(left+width-right)/2, height-8, html.EscapeString(name))
	return template.HTML(b.String())
}

// medianChart draws the national median of every survey year as a line with a dot a year, broken
// where the figure's definition changes (the break's year marked).
func medianChart(ind *hensachi.Indicator) template.HTML {
	const (
		width, height            = 640.0, 220.0
		left, right, top, bottom = 64.0, 24.0, 20.0, 30.0
	)
	points := make([]town.IndicatorPoint, len(ind.Years))
	var medians []float64
	var alt []string
	f := ind.Field()
	for k, y := range ind.Years {
		points[k].Year = y.Year
		if y.Count > 0 {
			points[k].Value = hensachi.Some(y.Median)
			medians = append(medians, y.Median)
		}
		alt = append(alt, strconv.Itoa(y.Year)+"年 "+withUnit(points[k].Value, f))
	}
	if len(medians) == 0 {
		return ""
	}
	first, last := float64(ind.Years[0].Year), float64(ind.Years[len(ind.Years)-1].Year)
	sx := scale{lo: first - 0.5, hi: last + 0.5, from: left, to: width - right}
	sy := linearScale(medians, height-bottom, top, 0.1)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %.0f %.0f" role="img" aria-labelledby="medians-title"><title id="medians-title">%s</title>`,
		width, height, html.EscapeString("全国中央値の推移："+strings.Join(alt, "、")))
	for _, t := range sy.ticks() {
		fmt.Fprintf(&b, `<line class="grid" x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f"/><text class="tick" x="%.0f" y="%.0f" text-anchor="end">%s</text>`,
			left, sy.at(t), width-right, sy.at(t), left-24, sy.at(t)+4, sy.label(t))
	}
	// a year label for every year while they fit, every other one beyond twelve
	every := 1 + len(ind.Years)/13
	for k, y := range ind.Years {
		if k%every == 0 || k == len(ind.Years)-1 {
			fmt.Fprintf(&b, `<text class="tick" x="%.0f" y="%.0f">%d</text>`, sx.at(float64(y.Year)), height-bottom+18, y.Year)
		}
	}
	for _, year := range ind.Breaks {
		bx := sx.at(float64(year) - 0.5)
		fmt.Fprintf(&b, `<line class="mid" stroke-dasharray="3 3" x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f"/><text x="%.0f" y="%.0f">定義変更</text>`,
			bx, top, bx, height-bottom, bx+4, top+10)
	}
	fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="#2e6fd1" stroke-width="2"/>`, appendPath(nil, points, ind.Breaks, sx, sy))
	for _, p := range points {
		if p.Value.Valid {
			fmt.Fprintf(&b, `<circle class="up" cx="%.0f" cy="%.0f" r="3.5"/>`, sx.at(float64(p.Year)), sy.at(p.Value.V))
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
