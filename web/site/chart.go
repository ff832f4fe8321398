package site

import (
	"cmp"
	"fmt"
	"html"
	"html/template"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hensachi/hensachi"
)

// The charts are inline SVG written here, so that a page needs no script and no second request.
// Every chart has a title and a text alternative; the same figures are in a table beside it.

// scoreBar is one axis of the score chart.
type scoreBar struct {
	Label    string
	Hensachi float64
	Valid    bool
}

// scoreLo and scoreHi bound the score chart's scale. Rank-based scores of 1,741 municipalities lie
// within 50 ± 10·3.44 (the normal quantile of the first and the last rank: 15.6 and 84.4), so a
// 10–90 scale draws every score at its own length.
const scoreLo, scoreHi = 10.0, 90.0

// scoreChart draws deviation scores as bars from the national middle (50): a municipality's six
// axes, or one axis of several municipalities. id names the chart's title element, unique on its
// page. The labels' column is as wide as the longest label on a phone's type (18 units a
// character: つくばみらい市 takes 126), at least 120.
func scoreChart(id, title string, bars []scoreBar) template.HTML {
	const plotW, rowH, top = 420.0, 34.0, 24.0
	labelW := 120.0
	for _, bar := range bars {
		labelW = max(labelW, 18*float64(utf8.RuneCountInString(bar.Label))+14)
	}
	x := func(v float64) float64 {
		return labelW + (min(max(v, scoreLo), scoreHi)-scoreLo)/(scoreHi-scoreLo)*plotW
	}
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
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %.0f %.0f" role="img" aria-labelledby="%s-title"><title id="%s-title">%s：%s</title>`,
		labelW+plotW+50, height, id, id, html.EscapeString(title), html.EscapeString(strings.Join(alt, "、")))
	for v := scoreLo; v <= scoreHi; v += 10 {
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

// historyChart draws the yearly hometown-tax receipts as vertical bars, each with its amount above
// it; every other amount is raised by a line, since on a phone's larger type two neighbours such
// as 8146万 and 9974万 are wider than a bar and its gap.
func historyChart(years []yearBar) template.HTML {
	const (
		left, plotH, top, barW, gap = 8.0, 150.0, 40.0, 44.0, 14.0
		stagger                     = 18.0
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
			fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%.1f">%s</text>`, x+barW/2, top+plotH-h-5-stagger*float64(i%2), html.EscapeString(y.Amount))
		} else {
			fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%.1f">—</text>`, x+barW/2, top+plotH-5)
		}
		fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%.1f">%s</text>`, x+barW/2, top+plotH+18, html.EscapeString(y.Label))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// scatterDot is one municipality of a scatter.
type scatterDot struct {
	Code, Name string // Name with its prefecture, for the dot's title
	X, Y       float64
	Picked     bool // in the prefecture the reader picked out
}

// scatterPlot is a drawn scatter and whether each of its two scales is logarithmic.
type scatterPlot struct {
	svg template.HTML
	log [2]bool
}

// scatterChart draws every municipality as one dot, a link to its page titled with its name and
// values; the picked ones are drawn last, in the accent colour. Dashed lines mark the national
// medians. A measure spread over two orders of magnitude or more (population, area, density) is
// drawn on a logarithmic scale, or all but a few dots would sit in one corner.
//
// The page must stay under 300 KB with all 1,741 dots, whichever two measures: one short element
// per dot, its attributes unquoted (HTML's syntax, the SVG being inline), the link relative to the
// page's /town/ (municipalities/{code}), coordinates in whole units of a 640-wide view box, and
// the chart's style inside the SVG. A dot's outline is transparent and ten units wide, a target
// big enough to tap; only hovering or focusing paints it (thinner than the dot), so that a picked
// dot shows whole in its colour.
func scatterChart(x, y measure, dots []scatterDot) scatterPlot {
	const (
		width, height            = 640.0, 480.0
		left, right, top, bottom = 64.0, 16.0, 66.0, 46.0
	)
	xs, ys := make([]float64, len(dots)), make([]float64, len(dots))
	for i, d := range dots {
		xs[i], ys[i] = d.X, d.Y
	}
	sx, sy := newScale(xs, left, width-right), newScale(ys, height-bottom, top)
	var b strings.Builder
	b.Grow(160 * len(dots))
	fmt.Fprintf(&b, `<svg class="chart scatter" viewBox="0 0 %.0f %.0f" role="group" aria-labelledby="scatter-title">`, width, height)
	fmt.Fprintf(&b, `<title id="scatter-title">散布図、横軸 %s、縦軸 %s、%s 市区町村</title>`, html.EscapeString(x.name()), html.EscapeString(y.name()), integer(len(dots)))
	b.WriteString(`<style>svg.scatter{max-width:48rem}svg.scatter circle{fill:#2e6fd1;fill-opacity:.4;stroke:transparent;stroke-width:10}svg.scatter .pick circle{fill:#c2571a;fill-opacity:1}` +
		`svg.scatter a:focus circle,svg.scatter a:hover circle{stroke:#1d2433;stroke-width:2}svg.scatter .median{stroke:#1d2433;stroke-dasharray:5 4}svg.scatter .ylab{text-anchor:end}svg.scatter text{font-size:13px}` +
		`@media (max-width:40rem){svg.scatter text{font-size:19px}}</style>`)
	for _, t := range sx.ticks() {
		fmt.Fprintf(&b, `<line class="grid" x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f"/><text class="tick" x="%.0f" y="%.0f">%s</text>`,
			sx.at(t), top, sx.at(t), height-bottom, sx.at(t), height-bottom+16, sx.label(t))
	}
	for _, t := range sy.ticks() {
		fmt.Fprintf(&b, `<line class="grid" x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f"/><text class="tick ylab" x="%.0f" y="%.0f">%s</text>`,
			left, sy.at(t), width-right, sy.at(t), left-6, sy.at(t)+4, sy.label(t))
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="middle">%s →</text><text x="4" y="16">↑ %s</text>`,
		(left+width-right)/2, height-8, html.EscapeString(x.name(sx.notes()...)), html.EscapeString(y.name(sy.notes()...)))
	// the medians' values above the plot, one line each, where they cover no dot
	if x.Median.Valid {
		mx := sx.at(x.Median.V)
		fmt.Fprintf(&b, `<line class="median" x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f"/><text x="%.0f" y="38">縦の破線：中央値 %s</text>`,
			mx, top, mx, height-bottom, left, html.EscapeString(withUnit(x.Median, x.Field)))
	}
	if y.Median.Valid {
		my := sy.at(y.Median.V)
		fmt.Fprintf(&b, `<line class="median" x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f"/><text x="%.0f" y="60">横の破線：中央値 %s</text>`,
			left, my, width-right, my, left, html.EscapeString(withUnit(y.Median, y.Field)))
	}
	// the picked dots last, so that they are drawn over the others
	slices.SortStableFunc(dots, func(a, b scatterDot) int { return cmp.Compare(btoi(a.Picked), btoi(b.Picked)) })
	for i, d := range dots {
		if d.Picked && (i == 0 || !dots[i-1].Picked) {
			b.WriteString(`<g class="pick">`)
		}
		fmt.Fprintf(&b, `<a href=municipalities/%s><circle cx=%.0f cy=%.0f r=%d><title>%s %s、%s</title></circle></a>`,
			d.Code, sx.at(d.X), sy.at(d.Y), 3+btoi(d.Picked), html.EscapeString(d.Name),
			withUnit(hensachi.Some(d.X), x.Field), withUnit(hensachi.Some(d.Y), y.Field))
	}
	if len(dots) > 0 && dots[len(dots)-1].Picked {
		b.WriteString(`</g>`)
	}
	b.WriteString(`</svg>`)
	return scatterPlot{svg: template.HTML(b.String()), log: [2]bool{sx.log, sy.log}}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// scale maps values onto pixels, linearly or by their logarithm.
type scale struct {
	lo, hi   float64 // the domain, in logarithms when log
	from, to float64 // the pixels lo and hi land on
	log      bool
}

// newScale fits the values, with a little room on either side. It is logarithmic when the
// positive values are skewed, the 95th percentile ten times the 5th or more (population, area,
// density), and at most one value in twenty is zero or less (a town evacuated to no population, a
// village without a nursery): those are drawn on the scale's edge. A lone outlier (a village with
// almost no children) does not make a scale logarithmic.
func newScale(values []float64, from, to float64) scale {
	s := scale{from: from, to: to, lo: 0, hi: 1}
	var positive []float64
	for i, v := range values {
		if i == 0 {
			s.lo, s.hi = v, v
		}
		s.lo, s.hi = min(s.lo, v), max(s.hi, v)
		if v > 0 {
			positive = append(positive, v)
		}
	}
	if len(positive) > 0 && (len(values)-len(positive))*20 <= len(values) {
		slices.Sort(positive)
		quantile := func(q float64) float64 { return positive[int(q*float64(len(positive)-1))] }
		if quantile(0.95) >= 10*quantile(0.05) {
			s.log, s.lo, s.hi = true, math.Log10(positive[0]), math.Log10(s.hi)
		}
	}
	if s.hi == s.lo {
		s.lo, s.hi = s.lo-1, s.hi+1
	}
	pad := (s.hi - s.lo) * 0.03
	s.lo, s.hi = s.lo-pad, s.hi+pad
	return s
}

func (s scale) at(v float64) float64 {
	if s.log {
		if v > 0 {
			v = max(math.Log10(v), s.lo)
		} else {
			v = s.lo
		}
	}
	return s.from + (v-s.lo)/(s.hi-s.lo)*(s.to-s.from)
}

// ticks are round values inside the domain: 1, 2 or 5 times a power of ten apart, six to
// fifteen of them, or the powers of ten (with their doubles and fives over few decades) on a log scale.
func (s scale) ticks() []float64 {
	var out []float64
	if s.log {
		steps := []float64{1}
		if s.hi-s.lo < 3 {
			steps = []float64{1, 2, 5}
		}
		for e := math.Floor(s.lo); e <= s.hi; e++ {
			for _, m := range steps {
				if v := math.Log10(m) + e; v >= s.lo && v <= s.hi {
					out = append(out, m*math.Pow(10, e))
				}
			}
		}
		return out
	}
	step := s.step()
	for v := math.Ceil(s.lo/step) * step; v <= s.hi; v += step {
		tick := math.Round(v/step) * step
		if tick == 0 {
			tick = 0 // not -0, which would be labelled so
		}
		out = append(out, tick)
	}
	return out
}

// niceStep rounds a step up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// step is the spacing of a linear scale's ticks.
func (s scale) step() float64 { return niceStep((s.hi - s.lo) / 7) }

// label writes a tick as briefly as it reads: in 万 from ten thousand up, with the decimals the
// ticks' spacing needs (the step's on a linear scale, the value's own on a logarithmic one).
func (s scale) label(v float64) string {
	spacing, suffix := v, ""
	if !s.log {
		spacing = s.step()
	}
	if math.Abs(v) >= 10_000 {
		v, spacing, suffix = v/10_000, spacing/10_000, "万"
	}
	return number(v, max(0, -int(math.Floor(math.Log10(math.Abs(spacing))+1e-9)))) + suffix
}

// notes say that a scale is logarithmic, beside the measure's name.
func (s scale) notes() []string {
	if s.log {
		return []string{"対数目盛"}
	}
	return nil
}
