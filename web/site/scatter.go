package site

import (
	"html/template"
	"net/url"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/param"
	"github.com/hensachi/hensachi/town"
	"github.com/hensachi/hensachi/web/page"
)

// The scatter of two measures over the whole country.

// measure is what one axis of a scatter plots (param.MeasureOf).
type measure struct{ param.Measure }

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

// measureSelect is one select of a form, its id its parameter. Prompt, when not empty, is a first
// option of no value, which the pages read as none.
type measureSelect struct {
	ID, Label, Prompt string
	Groups            []measureGroup
}

// measureGroup is one <optgroup> of a measureSelect.
type measureGroup struct {
	Label   string
	Options []measureOption
}

type measureOption struct {
	Key, Label         string
	Selected, Disabled bool
}

// yearSelect is the survey year of an indicator drawn on a scatter's axis, its id its parameter:
// the latest (no value, so that another indicator picked in the same form is drawn in its own
// latest year) or one of the others.
type yearSelect struct {
	ID, Label      string
	Latest         int
	LatestSelected bool
	Earlier        []yearOption
}

// axisYears is the year select of a scatter's axis drawing m, nil when m is not an indicator.
func axisYears(c *town.Catalog, m measure, id, label string) *yearSelect {
	undated, year, dated := strings.Cut(m.Key, "@")
	if !dated {
		return nil
	}
	years := c.Indicator(c.IndicatorIndex(undated)).Years
	latest := years[len(years)-1].Year
	ys := &yearSelect{ID: id, Label: label, Latest: latest, LatestSelected: strconv.Itoa(latest) == year}
	for _, y := range years[:len(years)-1] {
		ys.Earlier = append(ys.Earlier, yearOption{Year: y.Year, Selected: strconv.Itoa(y.Year) == year})
	}
	return ys
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

// missedTowns are the municipalities a scatter leaves out for want of a value: named when they are
// few (双葉町 on a per-person figure), so that a reader looking for one knows why it is not there.
type missedTowns struct {
	Count string
	Named []scatterRow // empty when there are more than namedMissed
}

const namedMissed = 5

type scatterPage struct {
	page.Base
	X, Y             measure
	XSelect, YSelect measureSelect
	XYear, YYear     *yearSelect // nil for an axis or a statistic
	Prefectures      []prefOption
	Pref             *hensachi.Prefecture
	Chart            template.HTML
	Plotted          string // the count of municipalities drawn
	Missed           *missedTowns
	XMedian, YMedian string
	Log              []string // the measures drawn on a logarithmic scale
	PrefRows         []scatterRow
}

func (s *Site) scatter(c *town.Catalog, q param.Query, _ httprouter.Params) (string, any, error) {
	var p scatterPage
	var err error
	if p.X.Measure, err = param.MeasureYearOf(c, q, "x", "xyear", defaultX); err != nil {
		return "", nil, err
	}
	if p.Y.Measure, err = param.MeasureYearOf(c, q, "y", "yyear", defaultY); err != nil {
		return "", nil, err
	}
	if p.X.Key == p.Y.Key {
		return "", nil, &hensachi.Error{Code: hensachi.EInvalidParameter, Param: "y", Message: "x and y must name two different measures",
			Japanese: "x と y には別のものを指定してください。"}
	}
	pref, err := param.Prefecture(c, q)
	if err != nil {
		return "", nil, err
	}
	p.Pref = pref
	var dots []scatterDot
	var missed []scatterRow
	all := allTowns(c)
	for _, m := range all {
		x, y := p.X.Value(m), p.Y.Value(m)
		if !x.Valid || !y.Valid {
			missed = append(missed, scatterRow{Code: m.Code, Name: m.Name + "（" + m.Prefecture.Name + "）"})
			continue
		}
		picked := pref != nil && m.Prefecture.Code == pref.Code
		dots = append(dots, scatterDot{Code: m.Code, Name: m.Name + "（" + m.Prefecture.Name + "）", X: x.V, Y: y.V, Picked: picked})
		if picked {
			p.PrefRows = append(p.PrefRows, scatterRow{Code: m.Code, Name: m.Name, X: withUnit(x, p.X.Field), Y: withUnit(y, p.Y.Field)})
		}
	}
	if len(missed) > 0 {
		p.Missed = &missedTowns{Count: integer(len(missed))}
		if len(missed) <= namedMissed {
			p.Missed.Named = missed
		}
	}
	p.Plotted = integer(len(dots))
	p.XMedian, p.YMedian = withUnit(p.X.Median, p.X.Field), withUnit(p.Y.Median, p.Y.Field)
	chart := scatterChart(p.X, p.Y, dots)
	p.Chart = chart.svg
	for i, m := range []measure{p.X, p.Y} {
		if chart.log[i] {
			p.Log = append(p.Log, m.Label)
		}
	}
	// the form keeps what is drawn: every measure and year can be picked, the drawn ones selected
	p.XSelect = measureSelect{ID: "x", Label: "横軸", Groups: everyMeasureGroups(c, p.X.Key)}
	p.YSelect = measureSelect{ID: "y", Label: "縦軸", Groups: everyMeasureGroups(c, p.Y.Key)}
	p.XYear, p.YYear = axisYears(c, p.X, "xyear", "横軸の年"), axisYears(c, p.Y, "yyear", "縦軸の年")
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
