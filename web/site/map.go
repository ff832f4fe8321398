package site

import (
	"fmt"
	"html"
	"html/template"
	"math"
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
	// RangeHead heads the legend's classes: 偏差値, or a change with its unit.
	RangeHead string
	// Change is set on the map of a change between two years (from, to), with the form's selects.
	Change             *changeView
	FromYears, ToYears []yearOption
	Drawn              string // how many municipalities the map draws, written as the pages write counts
	Missing            []*hensachi.Municipality
	// Bands offers a prefecture map's choice of distributions; BandsWhere names the one the
	// colours are read against: 全国 or the prefecture.
	Bands      []bandOption
	BandsWhere string
	Table      mapTable
	// CSV is the download of the mapped values: an indicator's (indicatorCSV), or for an axis or a
	// statistic the file of every column (CSVAll), which holds it.
	CSV    string
	CSVAll bool
	// Credits are the boundaries' and the measure's sources, shown under the map.
	BoundaryCredit, BoundarySource, MeasureSource, StatsCredit string
	Note                                                       string
}

func (s *Site) mapPage(c *town.Catalog, q param.Query, _ httprouter.Params) (string, any, error) {
	var p mapPage
	var err error
	if q.Has("from") || q.Has("to") {
		return s.changeMap(c, q)
	}
	if p.M.Measure, err = param.MeasureYearOf(c, q, "m", "year", defaultMapMeasure); err != nil {
		return "", nil, err
	}
	bands, err := param.Choice(q, "bands", mapBands...)
	if err != nil {
		return "", nil, err
	}
	d, where, err := p.place(c, q)
	if err != nil {
		return "", nil, err
	}
	st := standingOf(c, p.M.Measure)
	band, local, prefName := st, standing{}, ""
	p.BandsWhere = "全国"
	if p.Pref != nil {
		local, prefName = st.within(d.Rows, p.M.LowerIsBetter()), p.Pref.Name
		if bands == "pref" {
			band, p.BandsWhere = local, p.Pref.Name
		}
		p.Bands = []bandOption{{"pref", p.Pref.Name + "内の分布", bands == "pref"}, {"national", "全国の分布", bands == "national"}}
	}
	p.Palette = paletteOf(p.M.Field)
	p.Map = mapSVG(c, d, p.M.Label, st.colours(p.M.Field, p.Palette, band, local, where).only(c, p.Peers), where)
	prefCode := param.PrefectureCode(p.Pref)
	if p.Table, err = mapTableOf(c, q, d, p.M, st, local, prefName, func(sort string, page int) string {
		return mapLink(p.M.Key, prefCode, bands, param.PeerGroupCode(p.Peers), sort, page) + "#values"
	}); err != nil {
		return "", nil, err
	}
	p.Drawn = integer(len(d.Rows))
	p.Missing = missing(c, d, st.values)
	p.Legend, p.RangeHead = band.legend(p.M.Field), "偏差値"
	p.Reading = mapReading(p.M.Field)
	p.Select = measureSelect{ID: "m", Label: "指標", Groups: everyMeasureGroups(c, p.M.Key)}
	if undated, year, dated := strings.Cut(p.M.Key, "@"); dated {
		ind := c.Indicator(c.IndicatorIndex(undated))
		for _, y := range ind.Years {
			p.Years = append(p.Years, yearOption{Year: y.Year, Selected: strconv.Itoa(y.Year) == year})
		}
		if ind.Change != "" { // the change's selects, nothing picked: a form sends them empty, which the page ignores
			p.FromYears, p.ToYears = changeYearOptions(ind, param.Change{From: -1, To: -1})
		}
	}
	for _, pr := range c.Meta.Prefectures {
		p.Prefectures = append(p.Prefectures, prefOption{Code: pr.Code, Name: pr.Name, Selected: pr.Code == prefCode})
	}
	if undated, year, dated := strings.Cut(p.M.Key, "@"); dated {
		p.CSV = csvLink("/town/indicators/"+undated+".csv", withPref(url.Values{"year": {year}}, p.Pref))
	} else {
		p.CSV, p.CSVAll = csvLink("/town/municipalities.csv", withPref(url.Values{}, p.Pref)), true
	}
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

// missing are the municipalities a map draws without a value.
func missing(c *town.Catalog, d *drawnMap, values []hensachi.Optional[float64]) []*hensachi.Municipality {
	var out []*hensachi.Municipality
	for _, i := range d.Rows {
		if !values[i].Valid {
			out = append(out, c.Row(i))
		}
	}
	return out
}

// mapColours is how a map colours its municipalities: each row's class (0 to 6, -1 without a
// value, classOutside grey), the figure its title gives, and the palette's class (mapStyle).
type mapColours struct {
	class   func(row int) int
	label   func(row int) string
	palette string
}

// classOutside is the class of a municipality a map leaves grey: outside the 類似団体 it colours.
const classOutside = -2

// only colours the members of a 類似団体 alone, the others grey (classOutside); every
// municipality with a nil group. The members keep their colours: the classes stay national (or
// the prefecture's), so that a member's colour reads as on the map of all.
func (col mapColours) only(c *town.Catalog, group *hensachi.PeerGroup) mapColours {
	if group == nil {
		return col
	}
	class := col.class
	col.class = func(i int) int {
		if g, ok := c.PeerGroupOf(c.Row(i).Code); !ok || g.Code != group.Code {
			return classOutside
		}
		return class(i)
	}
	return col
}

// readPeers reads the map's 類似団体 (peer_group) and lists the groups for its select.
func (p *mapPage) readPeers(c *town.Catalog, q param.Query) error {
	var err error
	if p.Peers, err = param.PeerGroup(c, q, "peer_group"); err != nil {
		return err
	}
	for _, g := range c.PeerGroups() {
		p.PeerGroups = append(p.PeerGroups, peerOption{Code: g.Code, Name: g.Name, Size: len(g.Members), Selected: g == p.Peers})
	}
	return nil
}

// colours colours a measure's map by deviation score in band (the national standing, or on a
// prefecture's map the prefecture's own), the title giving the value, the national rank and, on a
// prefecture's map, the rank in where (local; zero elsewhere).
func (st standing) colours(f hensachi.Field, palette string, band, local standing, where string) mapColours {
	return mapColours{palette: palette,
		class: func(i int) int {
			if !st.values[i].Valid {
				return -1
			}
			return mapClass(band.Hensachi[i])
		},
		label: func(i int) string {
			label := withUnit(st.values[i], f) + "、全国 " + integer(st.Rank[i]) + " 位"
			if local.values != nil {
				label += "、" + where + "内 " + integer(local.Rank[i]) + " 位"
			}
			return label
		}}
}

// hensachiRanges are the deviation scores of each class, as the legend writes them.
var hensachiRanges = func() []string {
	out := make([]string, len(mapClasses)+1)
	for k := range out {
		switch {
		case k == 0:
			out[k] = fmt.Sprintf("%g 未満", mapClasses[0])
		case k == len(mapClasses):
			out[k] = fmt.Sprintf("%g 以上", mapClasses[k-1])
		default:
			out[k] = fmt.Sprintf("%g〜%g", mapClasses[k-1], mapClasses[k])
		}
	}
	return out
}()

// legend gives each class the range of its deviation scores and of the values it holds nationally.
func (st standing) legend(f hensachi.Field) []legendClass {
	return legendOf(st.values, func(i int) int { return mapClass(st.Hensachi[i]) }, hensachiRanges, f, func(v float64) string {
		s := number(v, f.Decimals)
		if v == 0 && f.ZeroLabel != "" {
			s += "（" + f.ZeroLabel + "）"
		}
		return s
	})
}

// legendOf gives each class the range it stands for (ranges, by class) and the lowest and highest
// of values it holds nationally, class telling the class of a row with a value and format writing
// a value without its unit.
func legendOf(values []hensachi.Optional[float64], class func(row int) int, ranges []string, f hensachi.Field, format func(float64) string) []legendClass {
	classes := make([]legendClass, len(ranges))
	lo, hi := make([]float64, len(classes)), make([]float64, len(classes))
	for i, v := range values {
		if !v.Valid {
			continue
		}
		k := class(i)
		if classes[k].Municipalities == 0 || v.V < lo[k] {
			lo[k] = v.V
		}
		if classes[k].Municipalities == 0 || v.V > hi[k] {
			hi[k] = v.V
		}
		classes[k].Municipalities++
	}
	for k := range classes {
		classes[k].Class, classes[k].Range = k, ranges[k]
		classes[k].Values = "—"
		if classes[k].Municipalities > 0 {
			classes[k].Values = page.Nowrap(strings.TrimSpace(format(lo[k]) + " " + f.Unit))
			if hi[k] != lo[k] {
				classes[k].Values = page.Nowrap(format(lo[k])) + " 〜 " + page.Nowrap(strings.TrimSpace(format(hi[k])+" "+f.Unit))
			}
		}
	}
	return classes
}

// mapStyle is the maps' style: a colour per class, diverging from grey at 50 (ColorBrewer's RdBu,
// orange-red below, blue above, as the site's charts) for a measure with a better side, so that
// blue is better; one hue from light to dark (ColorBrewer's Purples) inside an element of class seq,
// for a measure without one, whose colours must not read as good or bad; for the change of such a
// measure, which has two sides but no better one, ColorBrewer's PuOr inside class div (orange for
// a fall, purple for a rise, the same grey between), whose hues carry no good or bad as red and
// blue do on this site; hatching for no value. The three palettes are safe for colour blindness.
const mapStyle = `<style>svg.map{width:100%;height:auto;display:block;max-height:80vh;contain:content}svg.map path{stroke:#fff;stroke-width:.5}svg.map .t path,svg.map path.t{stroke:none}` +
	`svg.map a:hover path,svg.map a:focus path{stroke:#1d2433;stroke-width:2}svg.map .frame{fill:none;stroke:#4a5366}svg.map text{fill:#4a5366}` +
	`.c0{fill:#b2182b;background:#b2182b}.c1{fill:#ef8a62;background:#ef8a62}.c2{fill:#fddbc7;background:#fddbc7}.c3{fill:#e4e4e4;background:#e4e4e4}` +
	`.c4{fill:#d1e5f0;background:#d1e5f0}.c5{fill:#67a9cf;background:#67a9cf}.c6{fill:#2166ac;background:#2166ac}` +
	`.seq .c0{fill:#f2f0f7;background:#f2f0f7}.seq .c1{fill:#dadaeb;background:#dadaeb}.seq .c2{fill:#bcbddc;background:#bcbddc}.seq .c3{fill:#9e9ac8;background:#9e9ac8}` +
	`.seq .c4{fill:#807dba;background:#807dba}.seq .c5{fill:#6a51a3;background:#6a51a3}.seq .c6{fill:#4a1486;background:#4a1486}` +
	`.div .c0{fill:#b35806;background:#b35806}.div .c1{fill:#f1a340;background:#f1a340}.div .c2{fill:#fee0b6;background:#fee0b6}` +
	`.div .c4{fill:#d8daeb;background:#d8daeb}.div .c5{fill:#998ec3;background:#998ec3}.div .c6{fill:#542788;background:#542788}.nv{fill:url(#nv);background:repeating-linear-gradient(45deg,#777 0 1px,#fff 1px 4px)}` +
	`svg.map .pick{fill:#c2571a}svg.map .ring{fill:none;stroke:#c2571a;stroke-width:2}svg.map .rest{fill:#d5d9e2}svg.mini{max-width:20rem}.sw{display:inline-block;width:1.6em;height:1em;border:1px solid #4a5366;vertical-align:middle}</style>`

// paletteOf is the class of a measure's palette (mapStyle): seq for one hue when neither way is
// better, none for the diverging one.
func paletteOf(f hensachi.Field) string {
	if f.Direction == hensachi.DirectionNeutral {
		return "seq"
	}
	return ""
}

// mapSVG draws the map of what label names: per municipality a link to its page around its path,
// whose title gives the name and col's figure (the value with its unit and the national rank).
func mapSVG(c *town.Catalog, d *drawnMap, label string, col mapColours, where string) template.HTML {
	var b strings.Builder
	b.Grow(len(d.Rows) * 160)
	fmt.Fprintf(&b, `<svg class="%s" viewBox="0 0 %d %d" role=group aria-labelledby=map-title><title id=map-title>%sの地図（%s）、%s 市区町村</title>`,
		strings.TrimSpace("map "+col.palette), d.W, d.H, html.EscapeString(label), where, integer(len(d.Rows)))
	b.WriteString(mapStyle)
	b.WriteString(`<pattern id=nv width=5 height=5 patternUnits=userSpaceOnUse patternTransform="rotate(45)"><rect width=5 height=5 fill=#fff /><path d="M0 0v5" stroke=#777 stroke-width=2 /></pattern>`)
	for n, i := range d.Rows {
		t := c.Row(i)
		class, label := "nv", "値なし"
		switch k := col.class(i); {
		case k == classOutside:
			class, label = "rest", "類似団体の外"
		case k >= 0:
			class, label = "c"+strconv.Itoa(k), col.label(i)
		}
		if d.Thin[n] {
			class = `"` + class + ` t"`
		}
		fmt.Fprintf(&b, `<a href=municipalities/%s class=%s><path d="%s"><title>%s（%s）%s</title></path></a>`,
			t.Code, class, d.Paths[n], html.EscapeString(t.Name), html.EscapeString(t.Prefecture.Name), html.EscapeString(label))
	}
	for _, f := range d.Frames {
		f.write(&b)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// write draws an inset's frame and its label.
func (f mapFrame) write(b *strings.Builder) {
	fmt.Fprintf(b, `<rect class=frame x=%d y=%d width=%d height=%d /><text x=%d y=%d font-size=%d>%s</text>`,
		f.X, f.Y, f.W, f.H, f.X+6, f.Y+f.FontSize+3, f.FontSize, html.EscapeString(f.Label))
}

// place reads where a map is drawn (pref, and the 類似団体 it may pick out) and returns the drawn
// map of the country or the prefecture and its name, the boundaries' credits set on the page.
func (p *mapPage) place(c *town.Catalog, q param.Query) (*drawnMap, string, error) {
	var err error
	if p.Pref, err = param.Prefecture(c, q); err != nil {
		return nil, "", err
	}
	if err = p.readPeers(c, q); err != nil {
		return nil, "", err
	}
	b, err := c.Boundaries()
	if err != nil {
		return nil, "", err
	}
	p.BoundaryCredit, p.BoundarySource, p.Note = b.Meta.Credit, b.Meta.Source.Name, b.Meta.Note
	set := drawnMaps.Of(c)
	if p.Pref != nil {
		return set.prefs[p.Pref.Code](), p.Pref.Name, nil
	}
	return set.national(), "全国", nil
}

// everyMeasureGroups lists the axes, the statistics and the indicators (by group, latest year)
// for a select of a measure (the map's, the scatter's), the key selected marked: an indicator in
// any of its years. An indicator named as a statistic is (総人口, 財政力指数) says so and gives its
// years, so that no name shows twice.
func everyMeasureGroups(c *town.Catalog, selected string) []measureGroup {
	groups := measureGroups(selected)
	taken := map[string]bool{}
	for _, g := range groups {
		for _, o := range g.Options {
			taken[o.Label] = true
		}
	}
	undated, _, _ := strings.Cut(selected, "@")
	for _, g := range indicatorOptionGroups(c, taken) {
		for k := range g.Options {
			g.Options[k].Selected = g.Options[k].Key == undated
		}
		groups = append(groups, g)
	}
	return groups
}

// indicatorOptionGroups lists the indicators for a select as the catalogue groups them, each
// group's counts after it in a group of their own, named for what they measure. An indicator
// whose label is taken by another option of the select (総人口, 財政力指数 are statistics too)
// says so and gives its years, so that no name shows twice.
func indicatorOptionGroups(c *town.Catalog, taken map[string]bool) []measureGroup {
	var groups []measureGroup
	for _, g := range hensachi.IndicatorGroups {
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
			into.Options = append(into.Options, measureOption{Key: ind.Key, Label: label})
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
// others as one grey path, no links, so that the page stays light. A municipality small on it is
// ringed (ringed), so that the eye finds it.
func miniMap(c *town.Catalog, m *hensachi.Municipality) template.HTML {
	set := drawnMaps.Of(c)
	if set.mini == nil {
		return ""
	}
	d := set.mini[m.Prefecture.Code]()
	var rest, pick strings.Builder
	pickClass := "pick"
	var ring string
	for n, i := range d.Rows {
		if c.Row(i).Code == m.Code {
			pick.WriteString(d.Paths[n])
			if d.Thin[n] {
				pickClass = `"pick t"`
			}
			ring = d.ring(n)
		} else {
			rest.WriteString(d.Paths[n])
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="map mini" viewBox="0 0 %d %d" role=img aria-labelledby=mini-title><title id=mini-title>%sの中の%sの位置</title>%s<path class=rest d="%s"/><path class=%s d="%s"/>%s`,
		d.W, d.H, html.EscapeString(m.Prefecture.Name), html.EscapeString(m.Name), mapStyle, rest.String(), pickClass, pick.String(), ring)
	for _, f := range d.Frames {
		f.write(&b)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// ringBelowPx is the size, in screen pixels where the locator is seen, under which a municipality
// is ringed on it: a speck (speckPx) surely, and a shape of a few pixels, which the eye misses on
// a prefecture of dozens.
const ringBelowPx = 16

// ring is the circle around row n when it is small, "" when it is not.
func (d *drawnMap) ring(n int) string {
	box := d.Boxes[n]
	across := max(box.w(), box.h())
	if across*d.PxPerUnit >= ringBelowPx {
		return ""
	}
	return fmt.Sprintf(`<circle class=ring cx=%d cy=%d r=%d />`, int(math.Round((box.X0+box.X1)/2)), int(math.Round((box.Y0+box.Y1)/2)),
		int(math.Ceil(across/2+6/d.PxPerUnit)))
}

// yearSpan is an indicator's survey years, 2015〜2020 or 2020.
func yearSpan(ind *hensachi.Indicator) string {
	first, last := ind.Years[0].Year, ind.Years[len(ind.Years)-1].Year
	if first == last {
		return strconv.Itoa(first)
	}
	return strconv.Itoa(first) + "〜" + strconv.Itoa(last)
}
