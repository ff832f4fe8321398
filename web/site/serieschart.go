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
)

// The chart of compared municipalities' series: one indicator over its survey years, a line per
// municipality, against reference lines such as the national median. It shares its lines
// (seriesLine), their style sheet (seriesStyle) and their paths (appendPath, appendRuns) with the
// chart of one municipality's series (seriesChart), which labels every value of its one line.

// seriesColours tell up to ten lines apart for readers of every kind of colour vision: the
// Okabe–Ito palette without its yellow (too pale for a line on white) and three of Paul Tol's
// muted colours. The first ones, which most comparisons use, contrast most with the page; black
// comes last, as the national median's dashed line is near it.
var seriesColours = [...]string{"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#882255", "#999933", "#e69f00", "#56b4e9", "#332288", "#000000"}

// seriesShapes are the markers' outlines around 0,0; the first five lines have them filled, the
// next five hollow, so that a line is told by its marker when its colour is not.
var seriesShapes = [...]string{
	"M-4.5,0a4.5,4.5 0 1,0 9,0a4.5,4.5 0 1,0-9,0z", // circle
	"M-4,-4h8v8h-8z",              // square
	"M0,-5L4.8,3.5H-4.8z",         // triangle
	"M0,-5.5L5.5,0L0,5.5L-5.5,0z", // diamond
	"M0,5L4.8,-3.5H-4.8z",         // triangle pointing down
}

// seriesMark is the k-th line's marker as SVG attributes of a path: its shape, fill and outline.
func seriesMark(k int) string {
	colour := seriesColours[k%len(seriesColours)]
	fill, stroke, width := colour, "#fff", "1"
	if k%len(seriesColours) >= len(seriesShapes) {
		fill, stroke, width = "#fff", colour, "2"
	}
	return fmt.Sprintf(`d="%s" fill="%s" stroke="%s" stroke-width="%s"`, seriesShapes[k%len(seriesShapes)], fill, stroke, width)
}

// comparedSeriesChart draws indicator ind's lines over its survey years: a line with no Class is a
// compared municipality's, in the palette's colour of its place with its own marker at every value;
// one with a Class is a reference line drawn as seriesStyle draws it (a median: ln-national), a
// year of its own a short level stroke. The axes are labelled (the years, the values in the
// indicator's unit, seriesScale's), no line crosses a year without a value nor a break in the
// definition (ind.Breaks, marked by a dashed rule), and a legend beneath pairs each name with its
// line and marker. It draws one municipality's line as well as ten. id names the chart's elements,
// unique on its page. The text alternative gives each line's first and last values; the page puts
// every value in a table beside it.
func comparedSeriesChart(id string, ind *hensachi.Indicator, lines []seriesLine) template.HTML {
	const (
		width, height            = 640.0, 300.0
		left, right, top, bottom = 76.0, 20.0, 34.0, 48.0
	)
	if len(ind.Years) == 0 {
		return ""
	}
	f := ind.Field()
	var values []float64
	for _, l := range lines {
		for _, p := range l.Points {
			if p.Value.Valid {
				values = append(values, p.Value.V)
			}
		}
	}
	first, last := float64(ind.Years[0].Year), float64(ind.Years[len(ind.Years)-1].Year)
	sx := scale{lo: first - 0.5, hi: last + 0.5, from: left, to: width - right}
	sy := seriesScale(values, height-bottom, top)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart series" viewBox="0 0 %.0f %.0f" role="img" aria-labelledby="%s-title"><title id="%s-title">%s</title>%s`,
		width, height, id, id, html.EscapeString(seriesAlt(ind, lines)), seriesStyle)
	for _, t := range sy.ticks() {
		fmt.Fprintf(&b, `<line class="grid" x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f"/><text class="tick" x="%.0f" y="%.0f" text-anchor="end">%s</text>`,
			left, sy.at(t), width-right, sy.at(t), left-8, sy.at(t)+4, sy.label(t))
	}
	// a year label for every year while they fit, every other one beyond twelve
	every := 1 + len(ind.Years)/13
	for k, y := range ind.Years {
		if k%every == 0 || k == len(ind.Years)-1 {
			fmt.Fprintf(&b, `<text class="tick" x="%.0f" y="%.0f">%d</text>`, sx.at(float64(y.Year)), height-bottom+20, y.Year)
		}
	}
	fmt.Fprintf(&b, `<line class="mid" x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f"/>`, left, height-bottom, width-right, height-bottom)
	name := f.Label
	if notes := append(unitNote(f), sy.notes()...); len(notes) > 0 {
		name += "（" + strings.Join(notes, "、") + "）"
	}
	fmt.Fprintf(&b, `<text x="4" y="16">↑ %s</text><text x="%.0f" y="%.0f" text-anchor="middle">調査年 →</text>`,
		html.EscapeString(name), (left+width-right)/2, height-6)
	for _, year := range ind.Breaks {
		bx := sx.at(float64(year) - 0.5)
		fmt.Fprintf(&b, `<line class="mid" stroke-dasharray="3 3" x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f"/><text x="%.0f" y="%.0f">定義変更</text>`,
			bx, top, bx, height-bottom, bx+4, top+12)
	}
	// the reference lines first, under the municipalities'
	for _, l := range lines {
		if d := appendRuns(nil, l.Points, ind.Breaks, sx, sy, 14); l.Class != "" && len(d) > 0 {
			fmt.Fprintf(&b, `<path class="ln %s" d="%s"/>`, l.Class, d)
		}
	}
	mark := -1 // the palette's place of the line, counting those without a value too, as the legend does
	for _, l := range lines {
		if l.Class != "" {
			continue
		}
		mark++
		if d := appendPath(nil, l.Points, ind.Breaks, sx, sy); len(d) > 0 {
			markID := id + "-m" + strconv.Itoa(mark)
			fmt.Fprintf(&b, `<marker id="%s" viewBox="-6 -6 12 12" markerWidth="12" markerHeight="12" markerUnits="userSpaceOnUse"><path %s/></marker>`, markID, seriesMark(mark))
			fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="%s" stroke-width="2.5" stroke-linejoin="round" marker-start="url(#%s)" marker-mid="url(#%s)" marker-end="url(#%s)"/>`,
				d, seriesColours[mark%len(seriesColours)], markID, markID, markID)
		}
	}
	b.WriteString(`</svg><ul class="legend">`)
	mark = 0
	for _, l := range lines {
		if l.Class != "" {
			fmt.Fprintf(&b, `<li><svg viewBox="0 0 44 14" aria-hidden="true"><path class="ln %s" d="M3,7h38"/></svg>%s</li>`, l.Class, html.EscapeString(l.Name))
			continue
		}
		fmt.Fprintf(&b, `<li><svg viewBox="0 0 44 14" aria-hidden="true"><path d="M3,7h38" stroke="%s" stroke-width="2.5"/><path transform="translate(22,7)" %s/></svg>%s</li>`,
			seriesColours[mark%len(seriesColours)], seriesMark(mark), html.EscapeString(l.Name))
		mark++
	}
	b.WriteString(`</ul>`)
	return template.HTML(b.String())
}

// seriesScale fits a series chart's values: on a logarithmic scale when they are all positive and
// span two orders of magnitude or more (a city's population beside a village's), so that the
// small ones are not flattened onto the axis; linear otherwise, since a few lines, unlike a
// scatter of every municipality, are read by their differences.
func seriesScale(values []float64, from, to float64) scale {
	s := linearScale(values, from, to, 0.05)
	if len(values) == 0 {
		return s
	}
	lo, hi := slices.Min(values), slices.Max(values)
	if lo > 0 && hi >= 100*lo {
		s.log, s.lo, s.hi = true, math.Log10(lo), math.Log10(hi)
		pad := (s.hi - s.lo) * 0.05
		s.lo, s.hi = s.lo-pad, s.hi+pad
	}
	return s
}

// unitNote is the field's unit as a note beside its name, none when it has none.
func unitNote(f hensachi.Field) []string {
	if f.Unit == "" {
		return nil
	}
	return []string{f.Unit}
}

// seriesAlt says what a compared series chart shows: each line's first and last values.
func seriesAlt(ind *hensachi.Indicator, lines []seriesLine) string {
	f := ind.Field()
	parts := make([]string, 0, len(lines))
	for _, l := range lines {
		first, last := -1, -1
		for k, p := range l.Points {
			if p.Value.Valid {
				if first < 0 {
					first = k
				}
				last = k
			}
		}
		switch {
		case first < 0:
			parts = append(parts, l.Name+" データなし")
		case first == last:
			parts = append(parts, fmt.Sprintf("%s %d年 %s", l.Name, l.Points[first].Year, withUnit(l.Points[first].Value, f)))
		default:
			parts = append(parts, fmt.Sprintf("%s %d年 %s → %d年 %s", l.Name, l.Points[first].Year, withUnit(l.Points[first].Value, f),
				l.Points[last].Year, withUnit(l.Points[last].Value, f)))
		}
	}
	return ind.Label + "の推移：" + strings.Join(parts, "、")
}
