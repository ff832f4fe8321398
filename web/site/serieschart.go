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

// The series chart: one indicator over its survey years, a line per municipality (a comparison's
// ten, or one municipality's own), with reference lines such as the national median.

// seriesLine is one line of a series chart: values over the indicator's survey years, oldest
// first, named for the legend and the text alternative. A reference line (a median) is drawn
// dashed in grey without markers, apart from the palette (whose black it must not be taken for).
type seriesLine struct {
	Label     string
	Points    []town.IndicatorPoint
	Reference bool
}

// seriesColours tell up to ten lines apart for readers of every kind of colour vision: the
// Okabe–Ito palette without its yellow (too pale for a line on white), then three of Paul Tol's
// muted colours. The first ones, which most comparisons use, contrast most with the page.
var seriesColours = [...]string{"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#000000", "#882255", "#999933", "#e69f00", "#56b4e9", "#332288"}

// referenceStroke draws a reference line, in the legend as in the chart.
const referenceStroke = `stroke="#7b8496" stroke-width="2" stroke-dasharray="6 4"`

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

// seriesChart draws indicator ind's lines over its survey years: labelled axes (the years, the
// values in the indicator's unit, seriesScale's), a marker at every value, no line across a year without a value nor across a
// break in the definition (ind.Breaks, marked by a dashed rule), and, for more than one line, a
// legend above it pairing each name with its colour and marker. id names the chart's elements,
// unique on its page. The text alternative gives each line's first and last values; the page
// puts every value in a table beside it.
func seriesChart(id string, ind *hensachi.Indicator, lines []seriesLine) template.HTML {
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
	if len(lines) > 1 {
		b.WriteString(`<ul class="key">`)
		mark := 0
		for _, l := range lines {
			if l.Reference {
				fmt.Fprintf(&b, `<li><svg viewBox="0 0 28 14" aria-hidden="true"><path d="M1,7H27" %s/></svg>%s</li>`, referenceStroke, html.EscapeString(l.Label))
				continue
			}
			fmt.Fprintf(&b, `<li><svg viewBox="0 0 28 14" aria-hidden="true"><path d="M1,7H27" stroke="%s" stroke-width="2.5"/><path transform="translate(14,7)" %s/></svg>%s</li>`,
				seriesColours[mark%len(seriesColours)], seriesMark(mark), html.EscapeString(l.Label))
			mark++
		}
		b.WriteString(`</ul>`)
	}
	fmt.Fprintf(&b, `<svg class="chart series" viewBox="0 0 %.0f %.0f" role="img" aria-labelledby="%s-title"><title id="%s-title">%s</title>`,
		width, height, id, id, html.EscapeString(seriesAlt(ind, lines)))
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
	mark := -1 // the palette's place of the line, counting those without a value too, as the legend does
	for _, l := range lines {
		if !l.Reference {
			mark++
		}
		d := appendPath(nil, l.Points, ind.Breaks, sx, sy)
		switch {
		case len(d) == 0:
		case l.Reference:
			fmt.Fprintf(&b, `<path d="%s" fill="none" %s/>`, d, referenceStroke)
		default:
			markID := id + "-m" + strconv.Itoa(mark)
			fmt.Fprintf(&b, `<marker id="%s" viewBox="-6 -6 12 12" markerWidth="12" markerHeight="12" markerUnits="userSpaceOnUse"><path %s/></marker>`, markID, seriesMark(mark))
			fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="%s" stroke-width="2.5" stroke-linejoin="round" marker-start="url(#%s)" marker-mid="url(#%s)" marker-end="url(#%s)"/>`,
				d, seriesColours[mark%len(seriesColours)], markID, markID, markID)
		}
	}
	b.WriteString(`</svg>`)
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

// seriesAlt says what a series chart shows: each line's first and last values.
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
			parts = append(parts, l.Label+" データなし")
		case first == last:
			parts = append(parts, fmt.Sprintf("%s %d年 %s", l.Label, l.Points[first].Year, withUnit(l.Points[first].Value, f)))
		default:
			parts = append(parts, fmt.Sprintf("%s %d年 %s → %d年 %s", l.Label, l.Points[first].Year, withUnit(l.Points[first].Value, f),
				l.Points[last].Year, withUnit(l.Points[last].Value, f)))
		}
	}
	return ind.Label + "の推移：" + strings.Join(parts, "、")
}
