package site

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

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
	return appendRuns(dst, points, breaks, sx, sy, 0)
}

// appendRuns is appendPath with a lone point drawn as a level stroke lone pixels either side of
// it when lone is not 0: a reference line of one year, which a dash pattern would leave unseen as
// a dot.
func appendRuns(dst []byte, points []town.IndicatorPoint, breaks []int, sx, sy scale, lone int) []byte {
	run, start := 0, 0 // the points of the current run, and where its first is written
	var x, y int64     // the last point written
	end := func() {
		switch {
		case run == 1 && lone == 0:
			point := dst[start+1:]
			dst = append(append(dst, 'L'), point...)
		case run == 1:
			dst = append(dst[:start], 'M')
			dst = strconv.AppendInt(dst, x-int64(lone), 10)
			dst = append(dst, ',')
			dst = strconv.AppendInt(dst, y, 10)
			dst = append(dst, 'h')
			dst = strconv.AppendInt(dst, int64(2*lone), 10)
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
		x, y = int64(math.Round(sx.at(float64(p.Year)))), int64(math.Round(sy.at(p.Value.V)))
		dst = strconv.AppendInt(dst, x, 10)
		dst = append(dst, ',')
		dst = strconv.AppendInt(dst, y, 10)
		run++
	}
	end()
	return dst
}

// sparklineLeast is how many values a sparkline needs: with two, its line would only draw their
// difference full height, a change of 0.7 % as steep as one of 70 %; appendChange says it instead.
const sparklineLeast = 3

// appendSparkline appends a municipality's series of one indicator drawn in a 64 × 16 box, its own
// lowest and highest values at the bottom and top, as a link to href (the page of the
// municipality's indicator): the shape, read beside the latest figure. It is the one short element
// per indicator the municipality page can afford for 300 of them (no view box: its pixels are the
// box's, sized by the style sheet; the attributes unquoted), and says its first and last figures
// to a screen reader. With fewer than sparklineLeast values it is the change between them in
// words (appendChange); no value in any year draws nothing.
func appendSparkline(dst []byte, ind *hensachi.Indicator, series []town.IndicatorPoint, href string) []byte {
	first, last, n := -1, -1, 0
	sy := scale{from: 14, to: 2}
	for k, p := range series {
		if !p.Value.Valid {
			continue
		}
		if first < 0 {
			first, sy.lo, sy.hi = k, p.Value.V, p.Value.V
		}
		last, sy.lo, sy.hi = k, min(sy.lo, p.Value.V), max(sy.hi, p.Value.V)
		n++
	}
	if n < sparklineLeast {
		if n < 2 {
			return dst
		}
		return appendChange(dst, ind, series[first], series[last])
	}
	if sy.lo == sy.hi {
		sy.lo, sy.hi = sy.lo-1, sy.hi+1
	}
	sx := scale{lo: float64(ind.Years[0].Year), hi: float64(ind.Years[len(ind.Years)-1].Year), from: 2, to: 62}
	f := ind.Field()
	label := strconv.Itoa(series[first].Year) + "年 " + withUnit(series[first].Value, f) +
		" → " + strconv.Itoa(series[last].Year) + "年 " + withUnit(series[last].Value, f)
	dst = append(dst, `<a href=`...)
	dst = append(dst, href...)
	dst = append(dst, `><svg role=img aria-label="`...)
	dst = append(dst, html.EscapeString(label)...)
	dst = append(dst, `"><path d=`...)
	dst = appendPath(dst, series, ind.Breaks, sx, sy)
	return append(dst, ` /></svg></a>`...)
}

// appendChange appends the change of an indicator from one value to a later one in its own terms
// (changeMeasure) as a small text: 「2015 → 2020: +3.1 %」 in percent of the earlier value,
// 「2015 → 2020: +0.8 ポイント」 as a difference of percentages. It appends nothing for two values
// a break in the definition parts, nor in percent of an earlier value that is 0 or less.
func appendChange(dst []byte, ind *hensachi.Indicator, from, to town.IndicatorPoint) []byte {
	for _, y := range ind.Breaks {
		if y > from.Year && y <= to.Year {
			return dst
		}
	}
	var change string
	if changeMeasure(ind) == hensachi.ChangePercent {
		if from.Value.V <= 0 {
			return dst
		}
		change = signed(hensachi.Round(100*(to.Value.V-from.Value.V)/from.Value.V, 1), 1) + " %"
	} else {
		change = signed(hensachi.Round(to.Value.V-from.Value.V, ind.Decimals), ind.Decimals)
		switch ind.Unit {
		case "":
		case "%":
			change += " ポイント" // a difference of percentages is in points, not in percent
		default:
			change += " " + ind.Unit
		}
	}
	dst = append(dst, " <small class=nb>"...)
	dst = strconv.AppendInt(dst, int64(from.Year), 10)
	dst = append(dst, " → "...)
	dst = strconv.AppendInt(dst, int64(to.Year), 10)
	dst = append(dst, ": "...)
	dst = append(dst, html.EscapeString(change)...)
	return append(dst, "</small>"...)
}

// changeMeasure is how a change of an indicator between two years is measured: as its catalogue
// says (Indicator.Change), or, where the catalogue does not say, as a difference in its unit for a
// rate or an index (points for a share) and in percent for a count or an amount per person, whose
// size differs by municipality.
//
// When the change rankings' helper for Indicator.Change lands (issue 43, change), this follows it.
func changeMeasure(ind *hensachi.Indicator) string {
	if ind.Change != "" {
		return ind.Change
	}
	if ind.Kind == hensachi.KindRate || ind.Kind == hensachi.KindIndex {
		return hensachi.ChangeDifference
	}
	return hensachi.ChangePercent
}

// signed writes a change with its sign, ± for none: +3.1, -0.40, ±0.
func signed(v float64, decimals int) string {
	switch {
	case v > 0:
		return "+" + number(v, decimals)
	case v < 0:
		return number(v, decimals)
	}
	return "±" + number(0, decimals)
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

// seriesLine is one line of a municipality's chart of an indicator: its own values or a median it
// is compared with, over the indicator's survey years.
type seriesLine struct {
	Name   string // in the legend
	Class  string // its stroke (seriesStyle): ln-town, ln-national, ln-pref, ln-peers
	Points []town.IndicatorPoint
}

// seriesStyle draws the lines of seriesChart in the Okabe–Ito colours, which readers with any
// common colour vision deficiency tell apart, and each in a pattern of its own besides, so that
// colour is never the only difference: the municipality solid and thick with a dot a value, the
// national median dashed, the prefecture's dotted, the 類似団体's dash-dotted. A value's label is
// haloed in white to stay legible over a line.
const seriesStyle = `<style>.ln{fill:none;stroke-width:2}.ln-town{stroke:#0072b2;stroke-width:3}.ln-national{stroke:#1d2433;stroke-dasharray:8 5}` +
	`.ln-pref{stroke:#d55e00;stroke-width:3;stroke-dasharray:.5 5;stroke-linecap:round}.ln-peers{stroke:#009e73;stroke-dasharray:12 4 3 4}` +
	`svg .pt{fill:#0072b2}svg.chart .val{text-anchor:middle;font-weight:700;paint-order:stroke;stroke:#fff;stroke-width:4px;stroke-linejoin:round}svg.chart .from{text-anchor:start}svg.chart .to{text-anchor:end}` +
	`ul.legend{list-style:none;padding:0;margin:.4rem 0;display:flex;flex-wrap:wrap;gap:.2rem 1.2rem}ul.legend svg{width:2.75rem;height:.9rem;vertical-align:middle;margin-right:.3rem}</style>`

// seriesChart draws a municipality's values of an indicator over its survey years, the first of
// lines, against the medians of the others, with a legend of the lines beneath. Its axes are
// labelled: the years below (every other one beyond a dozen), the values with the unit on the
// left on round ticks. Each value is written above its dot (every other one raised a line beyond
// nine years, as on a phone's larger type neighbours would overlap); a year without a value is
// marked — on the axis. A line is cut where a year has no value and where the definition changes
// (Indicator.Breaks), the change marked by a dashed rule and named; a median of a lone year is a
// short level stroke.
func seriesChart(ind *hensachi.Indicator, title string, lines []seriesLine) template.HTML {
	const (
		width, height            = 640.0, 320.0
		left, right, top, bottom = 72.0, 20.0, 48.0, 44.0
	)
	var values []float64
	for _, l := range lines {
		for _, p := range l.Points {
			if p.Value.Valid {
				values = append(values, p.Value.V)
			}
		}
	}
	if len(values) == 0 {
		return ""
	}
	f := ind.Field()
	years := ind.Years
	first, last := float64(years[0].Year), float64(years[len(years)-1].Year)
	sx := scale{lo: first - 0.5, hi: last + 0.5, from: left, to: width - right}
	sy := linearScale(values, height-bottom, top, 0.08)
	own := lines[0]
	var alt []string
	for _, p := range own.Points {
		alt = append(alt, strconv.Itoa(p.Year)+"年 "+withUnit(p.Value, f))
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %.0f %.0f" role="img" aria-labelledby="series-title"><title id="series-title">%s</title>%s`,
		width, height, html.EscapeString(title+"："+strings.Join(alt, "、")+"（中央値は表に）"), seriesStyle)
	for _, t := range sy.ticks() {
		fmt.Fprintf(&b, `<line class="grid" x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f"/><text class="tick" x="%.0f" y="%.0f" text-anchor="end">%s</text>`,
			left, sy.at(t), width-right, sy.at(t), left-8, sy.at(t)+4, sy.label(t))
	}
	every := 1 + len(years)/12 // a phone's larger type fits a dozen years
	for k, y := range years {
		if (len(years)-1-k)%every == 0 { // the latest year always labelled
			fmt.Fprintf(&b, `<text class="tick" x="%.0f" y="%.0f">%d</text>`, sx.at(float64(y.Year)), height-bottom+20, y.Year)
		}
	}
	name := "↑ " + ind.Label
	if ind.Unit != "" {
		name += "（" + ind.Unit + "）"
	}
	fmt.Fprintf(&b, `<text x="4" y="18">%s</text><text x="%.0f" y="%.0f" text-anchor="end">調査年 →</text>`,
		html.EscapeString(name), width-right, height-4)
	for _, year := range ind.Breaks {
		// the note beside the rule, on the side with room for it
		bx := sx.at(float64(year) - 0.5)
		tx, anchor := bx+4, "start"
		if bx > (left+width-right)/2 {
			tx, anchor = bx-4, "end"
		}
		fmt.Fprintf(&b, `<line class="mid" stroke-dasharray="3 3" x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f"/><text x="%.0f" y="%.0f" text-anchor="%s">%d年から定義変更</text>`,
			bx, top-14, bx, height-bottom, tx, top-2, anchor, year)
	}
	for _, l := range lines[1:] {
		if d := appendRuns(nil, l.Points, ind.Breaks, sx, sy, 14); len(d) > 0 {
			fmt.Fprintf(&b, `<path class="ln %s" d="%s"/>`, l.Class, d)
		}
	}
	fmt.Fprintf(&b, `<path class="ln %s" d="%s"/>`, own.Class, appendPath(nil, own.Points, ind.Breaks, sx, sy))
	stagger := len(years) > 9
	for k, p := range own.Points {
		x := sx.at(float64(p.Year))
		if !p.Value.Valid {
			fmt.Fprintf(&b, `<text class="tick" x="%.0f" y="%.0f">—</text>`, x, height-bottom-6)
			continue
		}
		y := sy.at(p.Value.V)
		raise := 10.0
		if stagger && (len(years)-1-k)%2 == 1 {
			raise = 28
		}
		label := pointLabel(p.Value.V, ind.Decimals)
		// a label centred on a dot near either end would run over the ticks or out of the chart:
		// it starts or ends at the dot instead (half a phone's digit is 5 units wide)
		tx, anchor := x, ""
		if half := 5 * float64(utf8.RuneCountInString(label)); x-half < left {
			tx, anchor = x-6, " from"
		} else if x+half > width {
			tx, anchor = x+6, " to"
		}
		fmt.Fprintf(&b, `<circle class="pt" cx="%.0f" cy="%.0f" r="4"/><text class="val%s" x="%.0f" y="%.0f">%s</text>`,
			x, y, anchor, tx, y-raise, html.EscapeString(label))
	}
	b.WriteString(`</svg><ul class="legend">`)
	for _, l := range lines {
		fmt.Fprintf(&b, `<li><svg viewBox="0 0 44 14" aria-hidden="true"><path class="ln %s" d="M3,7h38"/>`, l.Class)
		if l.Class == own.Class {
			b.WriteString(`<circle class="pt" cx="22" cy="7" r="4"/>`)
		}
		fmt.Fprintf(&b, `</svg>%s</li>`, html.EscapeString(l.Name))
	}
	b.WriteString(`</ul>`)
	return template.HTML(b.String())
}

// pointLabel writes a value above its dot: as the tables write it, or, from a hundred thousand,
// in 万 and 億 as the charts' amounts are (compactYen), short enough for its neighbours.
func pointLabel(v float64, decimals int) string {
	if math.Abs(v) >= 100_000 {
		return compactYen(int64(math.Round(v)))
	}
	return number(v, decimals)
}
