package site

import (
	"fmt"
	"html"
	"html/template"
	"net/url"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/compute"
	"github.com/hensachi/hensachi/internal/param"
	"github.com/hensachi/hensachi/town"
	"github.com/hensachi/hensachi/web/page"
)

// The map of one measure, the whole country or one prefecture: a municipality's colour is its
// deviation score on the measure (its national rank on the normal curve, 50 in the middle), in
// seven classes either side of 50, and the legend gives the values each class holds in the
// measure's own units.

// defaultMapMeasure is the measure of /town/map without m: income per taxpayer.
const defaultMapMeasure = "income"

// mapClasses are the classes' lower bounds of the deviation score, above the lowest class.
var mapClasses = []float64{35, 40, 45, 55, 60, 65}

// mapClass is the colour class of a deviation score: 0 (below 35) to 6 (65 and above).
func mapClass(h float64) int {
	c := 0
	for c < len(mapClasses) && h >= mapClasses[c] {
		c++
	}
	return c
}

// legendClass is a line of the map's legend: a class, its deviation scores (35〜40), the values it
// holds (its lowest and its highest, each an unbroken piece, a narrow column putting them on lines
// of their own) and how many municipalities.
type legendClass struct {
	Class          int
	Range          string
	Values         template.HTML
	Municipalities int
}

type mapPage struct {
	page.Base
	M           measure
	Select      measureSelect
	Prefectures []prefOption
	Years       []yearOption
	Pref        *hensachi.Prefecture
	// Peers is the 類似団体 coloured, the others grey; nil colours every municipality.
	Peers      *hensachi.PeerGroup
	PeerGroups []peerOption
	Map        template.HTML
	Legend     []legendClass
	// Reading says what the colours mean (mapReading); Palette is the legend's palette class, as the map's.
	Reading, Palette string
	Drawn            string // how many municipalities the map draws, written as the pages write counts
	Missing          []*hensachi.Municipality
	// Credits are the boundaries' and the measure's sources, shown under the map.
	BoundaryCredit, BoundarySource, MeasureSource, StatsCredit string
	Note                                                       string
}

func (s *Site) mapPage(c *town.Catalog, q param.Query, _ httprouter.Params) (string, any, error) {
	var p mapPage
	var err error
	if p.M.Measure, err = param.MeasureYearOf(c, q, "m", defaultMapMeasure); err != nil {
		return "", nil, err
	}
	if p.Pref, err = param.Prefecture(c, q); err != nil {
		return "", nil, err
	}
	if p.Peers, err = param.PeerGroup(c, q, "peer_group"); err != nil {
		return "", nil, err
	}
	b, err := c.Boundaries()
	if err != nil {
		return "", nil, err
	}
	set := drawnMaps.Of(c)
	d := set.national()
	where := "全国"
	if p.Pref != nil {
		d, where = set.prefs[p.Pref.Code](), p.Pref.Name
	}
	st := standingOf(c, p.M.Measure)
	p.Map = mapSVG(c, d, p.M, st, where, param.PeerGroupCode(p.Peers))
	for _, g := range c.PeerGroups() {
		p.PeerGroups = append(p.PeerGroups, peerOption{Code: g.Code, Name: g.Name, Size: len(g.Members), Selected: g == p.Peers})
	}
	p.Drawn = integer(len(d.Rows))
	for _, i := range d.Rows {
		if !st.values[i].Valid {
			p.Missing = append(p.Missing, c.Row(i))
		}
	}
	p.Legend = st.legend(p.M.Field)
	p.Reading, p.Palette = mapReading(p.M.Field), paletteOf(p.M.Field)
	p.Select = measureSelect{ID: "m", Label: "指標", Groups: mapMeasureGroups(c, p.M.Key)}
	if undated, year, dated := strings.Cut(p.M.Key, "@"); dated {
		for _, y := range c.Indicator(c.IndicatorIndex(undated)).Years {
			p.Years = append(p.Years, yearOption{Year: y.Year, Selected: strconv.Itoa(y.Year) == year})
		}
	}
	prefCode := param.PrefectureCode(p.Pref)
	for _, pr := range c.Meta.Prefectures {
		p.Prefectures = append(p.Prefectures, prefOption{Code: pr.Code, Name: pr.Name, Selected: pr.Code == prefCode})
	}
	p.BoundaryCredit, p.BoundarySource, p.Note = b.Meta.Credit, b.Meta.Source.Name, b.Meta.Note
	p.MeasureSource, p.StatsCredit = measureSource(c, p.M.Key), c.Meta.Source.Name
	p.Base = s.base(c, p.M.Label+"の地図（"+where+"）",
		where+"の市区町村を"+p.M.Label+"の偏差値で塗り分けた地図。"+p.Reading, mapURL(p.M.Key, prefCode))
	return "map", p, nil
}

// peerOption is a 類似団体 in the map's select.
type peerOption struct {
	Code, Name string
	Size       int
	Selected   bool
}

// mapURL is the address of a measure's map, the whole country's for an empty pref.
func mapURL(key, pref string) string {
	v := url.Values{"m": {key}}
	if pref != "" {
		v.Set("pref", pref)
	}
	return "/town/map?" + v.Encode()
}

// standing is every municipality's value of a measure, row by row, with its national rank and
// deviation score (compute.Stand, the method of the axes and indicators).
type standing struct {
	values []hensachi.Optional[float64]
	compute.Standing
}

func standingOf(c *town.Catalog, m param.Measure) standing {
	values := make([]hensachi.Optional[float64], c.Len())
	for i := range values {
		values[i] = m.Value(c.Row(i))
	}
	return standing{values: values, Standing: compute.StandOriented(values, m.LowerIsBetter())}
}

// legend gives each class the range of its deviation scores and of the values it holds nationally.
func (st standing) legend(f hensachi.Field) []legendClass {
	classes := make([]legendClass, len(mapClasses)+1)
	lo, hi := make([]float64, len(classes)), make([]float64, len(classes))
	for i, v := range st.values {
		if !v.Valid {
			continue
		}
		k := mapClass(st.Hensachi[i])
		if classes[k].Municipalities == 0 || v.V < lo[k] {
			lo[k] = v.V
		}
		if classes[k].Municipalities == 0 || v.V > hi[k] {
			hi[k] = v.V
		}
		classes[k].Municipalities++
	}
	for k := range classes {
		classes[k].Class = k
		switch {
		case k == 0:
			classes[k].Range = fmt.Sprintf("%g 未満", mapClasses[0])
		case k == len(mapClasses):
			classes[k].Range = fmt.Sprintf("%g 以上", mapClasses[k-1])
		default:
			classes[k].Range = fmt.Sprintf("%g〜%g", mapClasses[k-1], mapClasses[k])
		}
		classes[k].Values = "—"
		if classes[k].Municipalities > 0 {
			classes[k].Values = page.Nowrap(withUnit(hensachi.Some(lo[k]), f))
			if hi[k] != lo[k] {
				classes[k].Values = page.Nowrap(number(lo[k], f.Decimals)) + " 〜 " + page.Nowrap(withUnit(hensachi.Some(hi[k]), f))
			}
		}
	}
	return classes
}

// mapStyle is the maps' style: a colour per class, diverging from grey at 50 (ColorBrewer's RdBu,
// orange-red below, blue above, as the site's charts) for a measure with a better side, so that
// blue is better; one hue from light to dark (ColorBrewer's Purples) inside an element of class seq,
// for a measure without one, whose colours must not read as good or bad; hatching for no value.
const mapStyle = `<style>svg.map{width:100%;height:auto;display:block;max-height:80vh;contain:content}svg.map path{stroke:#fff;stroke-width:.5}svg.map .t path,svg.map path.t{stroke:none}` +
	`svg.map a:hover path,svg.map a:focus path{stroke:#1d2433;stroke-width:2}svg.map .frame{fill:none;stroke:#4a5366}svg.map text{font-size:13px;fill:#4a5366}` +
	`.c0{fill:#b2182b;background:#b2182b}.c1{fill:#ef8a62;background:#ef8a62}.c2{fill:#fddbc7;background:#fddbc7}.c3{fill:#e4e4e4;background:#e4e4e4}` +
	`.c4{fill:#d1e5f0;background:#d1e5f0}.c5{fill:#67a9cf;background:#67a9cf}.c6{fill:#2166ac;background:#2166ac}` +
	`.seq .c0{fill:#f2f0f7;background:#f2f0f7}.seq .c1{fill:#dadaeb;background:#dadaeb}.seq .c2{fill:#bcbddc;background:#bcbddc}.seq .c3{fill:#9e9ac8;background:#9e9ac8}` +
	`.seq .c4{fill:#807dba;background:#807dba}.seq .c5{fill:#6a51a3;background:#6a51a3}.seq .c6{fill:#4a1486;background:#4a1486}.nv{fill:url(#nv);background:repeating-linear-gradient(45deg,#777 0 1px,#fff 1px 4px)}` +
	`svg.map .pick{fill:#c2571a}svg.map .rest{fill:#d5d9e2}svg.mini{max-width:20rem}.sw{display:inline-block;width:1.6em;height:1em;border:1px solid #4a5366;vertical-align:middle}</style>`

// paletteOf is the class of a measure's palette (mapStyle): seq for one hue when neither way is
// better, none for the diverging one.
func paletteOf(f hensachi.Field) string {
	if f.Direction == hensachi.DirectionNeutral {
		return "seq"
	}
	return ""
}

// mapSVG draws a measure's map: per municipality a link to its page around its path, whose title
// gives the name, the value with its unit and the national rank. With peers, a group's code, the
// municipalities outside that 類似団体 are grey.
func mapSVG(c *town.Catalog, d *drawnMap, m measure, st standing, where, peers string) template.HTML {
	var b strings.Builder
	b.Grow(len(d.Rows) * 160)
	fmt.Fprintf(&b, `<svg class="%s" viewBox="0 0 %d %d" role=group aria-labelledby=map-title><title id=map-title>%sの地図（%s）、%s 市区町村</title>`,
		strings.TrimSpace("map "+paletteOf(m.Field)), d.W, d.H, html.EscapeString(m.Label), where, integer(len(d.Rows)))
	b.WriteString(mapStyle)
	b.WriteString(`<pattern id=nv width=5 height=5 patternUnits=userSpaceOnUse patternTransform="rotate(45)"><rect width=5 height=5 fill=#fff /><path d="M0 0v5" stroke=#777 stroke-width=2 /></pattern>`)
	for n, i := range d.Rows {
		t := c.Row(i)
		class, label := "nv", "値なし"
		if v := st.values[i]; v.Valid {
			class = "c" + strconv.Itoa(mapClass(st.Hensachi[i]))
			label = withUnit(v, m.Field) + "、全国 " + integer(st.Rank[i]) + " 位"
		}
		if g, ok := c.PeerGroupOf(t.Code); peers != "" && (!ok || g.Code != peers) {
			class, label = "rest", "類似団体の外"
		}
		if d.Thin[n] {
			class = `"` + class + ` t"`
		}
		fmt.Fprintf(&b, `<a href=municipalities/%s class=%s><path d="%s"><title>%s（%s）%s</title></path></a>`,
			t.Code, class, d.Paths[n], html.EscapeString(t.Name), html.EscapeString(t.Prefecture.Name), html.EscapeString(label))
	}
	for _, f := range d.Frames {
		fmt.Fprintf(&b, `<rect class=frame x=%d y=%d width=%d height=%d /><text x=%d y=%d>%s</text>`, f.X, f.Y, f.W, f.H, f.X+6, f.Y+16, html.EscapeString(f.Label))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// mapMeasureGroups lists the axes, the statistics and the indicators (by group, latest year) for
// the map's select, the key selected marked: an indicator in any of its years. An indicator named
// as a statistic is (総人口, 財政力指数) says so and gives its years, so that no name shows twice.
func mapMeasureGroups(c *town.Catalog, selected string) []measureGroup {
	groups := measureGroups(selected)
	taken := map[string]bool{}
	for _, g := range groups {
		for _, o := range g.Options {
			taken[o.Label] = true
		}
	}
	undated, _, _ := strings.Cut(selected, "@")
	for _, g := range hensachi.IndicatorGroups {
		// a group's counts follow it in a group of their own, named for what they measure
		group, counts := measureGroup{Label: "指標：" + g}, measureGroup{Label: "指標：" + g + "（数・規模）"}
		for _, i := range c.IndicatorGroupIndexes(g) {
			ind := c.Indicator(i)
			label := ind.Label
			if taken[label] && len(ind.Years) > 0 {
				label += "（指標、" + yearSpan(ind) + "）"
			}
			into := &group
			if ind.Kind == hensachi.KindCount {
				into = &counts
			}
			into.Options = append(into.Options, measureOption{Key: ind.Key, Label: label, Selected: ind.Key == undated})
		}
		for _, gr := range []measureGroup{group, counts} {
			if len(gr.Options) > 0 {
				groups = append(groups, gr)
			}
		}
	}
	return groups
}

// measureSource is the source of a measure key: an axis's, a statistic's or an indicator's.
func measureSource(c *town.Catalog, key string) string {
	for _, a := range c.Meta.Axes {
		if a.Key == key {
			return a.Source
		}
	}
	for _, s := range c.Meta.Stats {
		if s.Key == key {
			return s.Source
		}
	}
	undated, _, _ := strings.Cut(key, "@")
	if i := c.IndicatorIndex(undated); i >= 0 {
		return c.Indicator(i).Source
	}
	return ""
}

// miniMap draws a municipality's prefecture with the municipality picked out, for its page: the
// others as one grey path, no links, so that the page stays light.
func miniMap(c *town.Catalog, m *hensachi.Municipality) template.HTML {
	set := drawnMaps.Of(c)
	if set.mini == nil {
		return ""
	}
	d := set.mini[m.Prefecture.Code]()
	var rest, pick strings.Builder
	pickClass := "pick"
	for n, i := range d.Rows {
		if c.Row(i).Code == m.Code {
			pick.WriteString(d.Paths[n])
			if d.Thin[n] {
				pickClass = `"pick t"`
			}
		} else {
			rest.WriteString(d.Paths[n])
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="map mini" viewBox="0 0 %d %d" role=img aria-labelledby=mini-title><title id=mini-title>%sの中の%sの位置</title>%s<path class=rest d="%s"/><path class=%s d="%s"/>`,
		d.W, d.H, html.EscapeString(m.Prefecture.Name), html.EscapeString(m.Name), mapStyle, rest.String(), pickClass, pick.String())
	for _, f := range d.Frames {
		fmt.Fprintf(&b, `<rect class=frame x=%d y=%d width=%d height=%d />`, f.X, f.Y, f.W, f.H)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// yearSpan is an indicator's survey years, 2015〜2020 or 2020.
func yearSpan(ind *hensachi.Indicator) string {
	first, last := ind.Years[0].Year, ind.Years[len(ind.Years)-1].Year
	if first == last {
		return strconv.Itoa(first)
	}
	return strconv.Itoa(first) + "〜" + strconv.Itoa(last)
}
