package site

import (
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/town"
	"github.com/hensachi/hensachi/web/page"
)

// The scatter of two measures over the whole country.

// measure is what one axis of a scatter plots: the value of one of the six axes (not its deviation
// score, which is the value's rank put on a normal curve and so hides the units), or one of the
// sixteen statistics.
type measure struct {
	hensachi.Field
	Median hensachi.Optional[float64]
	value  func(*hensachi.Municipality) hensachi.Optional[float64]
}

// measureOf finds the axis or statistic a key names; the two key sets do not overlap.
func measureOf(c *town.Catalog, key string) (measure, bool) {
	if a := hensachi.AxisIndex(key); a >= 0 {
		return measure{Field: hensachi.Axes[a], Median: c.AxisMedian(a),
			value: func(m *hensachi.Municipality) hensachi.Optional[float64] { return m.Scores[a].Value }}, true
	}
	if s := hensachi.StatIndex(key); s >= 0 {
		return measure{Field: hensachi.Stats[s], Median: c.StatMedian(s),
			value: func(m *hensachi.Municipality) hensachi.Optional[float64] { return m.Stats[s] }}, true
	}
	return measure{}, false
}

// name is the measure with its unit and any notes, for an axis of the chart.
func (m measure) name(notes ...string) string {
	if m.Unit != "" {
		notes = append([]string{m.Unit}, notes...)
	}
	if len(notes) == 0 {
		return m.Label
	}
	return m.Label + "（" + strings.Join(notes, "、") + "）"
}

// measureSelect is one select of the scatter's form, its id its parameter.
type measureSelect struct {
	ID, Label string
	Groups    []measureGroup
}

// measureGroup is one <optgroup> of a measureSelect.
type measureGroup struct {
	Label   string
	Options []measureOption
}

type measureOption struct {
	Key, Label string
	Selected   bool
}

// measureGroups lists the axes and the statistics for a select, the key selected marked.
func measureGroups(selected string) []measureGroup {
	groups := []measureGroup{{Label: "6 軸（値）"}, {Label: "16 の統計"}}
	for g, fields := range [][]hensachi.Field{hensachi.Axes, hensachi.Stats} {
		for _, f := range fields {
			groups[g].Options = append(groups[g].Options, measureOption{Key: f.Key, Label: f.Label, Selected: f.Key == selected})
		}
	}
	return groups
}

// allTowns lists every municipality in code order.
func allTowns(c *town.Catalog) []*hensachi.Municipality {
	all := make([]*hensachi.Municipality, 0, c.Len())
	for _, p := range c.Meta.Prefectures {
		all = append(all, c.InPrefecture(p.Code)...)
	}
	return all
}

// The scatter's default pair, when the address names neither: income against the young.
const defaultX, defaultY = "income", "young"

type scatterRow struct{ Code, Name, X, Y string }

type scatterPage struct {
	page.Base
	X, Y             measure
	XSelect, YSelect measureSelect
	Prefectures      []prefOption
	Pref             *hensachi.Prefecture
	Chart            template.HTML
	Plotted, Missed  string // counts of municipalities
	XMedian, YMedian string
	Log              []string // the measures drawn on a logarithmic scale
	PrefRows         []scatterRow
}

var prefCode = regexp.MustCompile(`^[0-9]{2}$`)

// prefParam reads an optional prefecture code: malformed is a bad request, unknown not found.
func prefParam(c *town.Catalog, code string) (*hensachi.Prefecture, error) {
	if code == "" {
		return nil, nil
	}
	if !prefCode.MatchString(code) {
		return nil, hensachi.ParamError("pref", "都道府県は 2 桁のコード（例：28）で指定してください。")
	}
	p, ok := c.Prefecture(code)
	if !ok {
		return nil, hensachi.Errorf(hensachi.ENotFound, "この都道府県コードはありません。")
	}
	return &p, nil
}

func (s *Site) scatter(c *town.Catalog, r *http.Request, _ httprouter.Params) (string, any, error) {
	q := r.URL.Query()
	xKey, yKey := q.Get("x"), q.Get("y")
	if !q.Has("x") && !q.Has("y") {
		xKey, yKey = defaultX, defaultY
	}
	var p scatterPage
	for _, side := range []struct {
		param, key string
		into       *measure
	}{{"x", xKey, &p.X}, {"y", yKey, &p.Y}} {
		var ok bool
		if *side.into, ok = measureOf(c, side.key); !ok {
			return "", nil, hensachi.ParamError(side.param, "%s には 6 軸か 16 の統計のキー（例：income、pop）を指定してください。", side.param)
		}
	}
	if xKey == yKey {
		return "", nil, hensachi.ParamError("y", "x と y には別のものを指定してください。")
	}
	pref, err := prefParam(c, q.Get("pref"))
	if err != nil {
		return "", nil, err
	}
	p.Pref = pref
	var dots []scatterDot
	all := allTowns(c)
	for _, m := range all {
		x, y := p.X.value(m), p.Y.value(m)
		if !x.Valid || !y.Valid {
			continue
		}
		picked := pref != nil && m.Prefecture.Code == pref.Code
		dots = append(dots, scatterDot{Code: m.Code, Name: m.Name + "（" + m.Prefecture.Name + "）", X: x.V, Y: y.V, Picked: picked})
		if picked {
			p.PrefRows = append(p.PrefRows, scatterRow{Code: m.Code, Name: m.Name, X: withUnit(x, p.X.Field), Y: withUnit(y, p.Y.Field)})
		}
	}
	if len(dots) < len(all) {
		p.Missed = groupThousands(strconv.Itoa(len(all) - len(dots)))
	}
	p.Plotted = groupThousands(strconv.Itoa(len(dots)))
	p.XMedian, p.YMedian = withUnit(p.X.Median, p.X.Field), withUnit(p.Y.Median, p.Y.Field)
	chart := scatterChart(p.X, p.Y, dots)
	p.Chart = chart.svg
	for i, m := range []measure{p.X, p.Y} {
		if chart.log[i] {
			p.Log = append(p.Log, m.Label)
		}
	}
	p.XSelect = measureSelect{ID: "x", Label: "横軸", Groups: measureGroups(p.X.Key)}
	p.YSelect = measureSelect{ID: "y", Label: "縦軸", Groups: measureGroups(p.Y.Key)}
	for _, pr := range c.Meta.Prefectures {
		p.Prefectures = append(p.Prefectures, prefOption{Code: pr.Code, Name: pr.Name, Selected: pref != nil && pr.Code == pref.Code})
	}
	where, path := "全国", "/town/scatter?"+url.Values{"x": {p.X.Key}, "y": {p.Y.Key}}.Encode()
	if pref != nil {
		where, path = pref.Name+"を強調", path+"&pref="+pref.Code
	}
	p.Base = s.base(c, p.X.Label+"と"+p.Y.Label+"の散布図（"+where+"）",
		"全国の市区町村を「"+p.X.Label+"」と「"+p.Y.Label+"」で並べた散布図。", path)
	return "scatter", p, nil
}
