package site

import (
	"html/template"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/param"
	"github.com/hensachi/hensachi/town"
	"github.com/hensachi/hensachi/web/page"
)

// The side-by-side comparison of up to ten municipalities.

type compareChart struct {
	Axis  hensachi.Field
	Chart template.HTML
}

type compareRow struct {
	Label, Note string
	Values      []string
	Median      string
}

type comparePage struct {
	page.Base
	Towns  []*hensachi.Municipality
	Charts []compareChart
	Scores []compareRow
	Stats  []compareRow
	CSV    string
}

func (s *Site) compare(c *town.Catalog, q param.Query, _ httprouter.Params) (string, any, error) {
	towns, err := param.Compared(c, q)
	if err != nil {
		return "", nil, err
	}
	list := codeList(towns)
	var names []string
	for _, m := range towns {
		names = append(names, m.Name)
	}
	p := comparePage{Towns: towns, CSV: "/town/municipalities.csv?codes=" + list,
		Base: s.base(c, strings.Join(names, "・")+"の比較", strings.Join(names, "、")+"の 6 軸の偏差値と 16 の統計を並べて比べる。",
			"/town/compare?codes="+list)}
	for a, axis := range hensachi.Axes {
		row := compareRow{Label: axis.Label, Note: "偏差値（値 " + axis.Unit + "）", Median: "50（" + withUnit(c.AxisMedian(a), hensachi.Field{Decimals: axis.Decimals}) + "）"}
		var bars []scoreBar
		for _, m := range towns {
			sc := m.Scores[a]
			bars = append(bars, scoreBar{Label: m.Name, Hensachi: sc.Hensachi, Valid: sc.Value.Valid})
			v := "—"
			if sc.Value.Valid {
				v = strconv.FormatFloat(sc.Hensachi, 'f', 1, 64) + "（" + number(sc.Value.V, axis.Decimals) + "）"
			}
			row.Values = append(row.Values, v)
		}
		p.Charts = append(p.Charts, compareChart{Axis: axis, Chart: scoreChart("compare-"+axis.Key, axis.Label+"の偏差値（50が全国の真ん中）", bars)})
		p.Scores = append(p.Scores, row)
	}
	for st, stat := range hensachi.Stats {
		row := compareRow{Label: stat.Label, Median: withUnit(c.StatMedian(st), stat)}
		for _, m := range towns {
			row.Values = append(row.Values, withUnit(m.Stats[st], stat))
		}
		p.Stats = append(p.Stats, row)
	}
	return "compare", p, nil
}

// codeList is the codes of towns, separated by commas as the codes parameter takes them.
func codeList(towns []*hensachi.Municipality) string {
	codes := make([]string, len(towns))
	for i, m := range towns {
		codes[i] = m.Code
	}
	return strings.Join(codes, ",")
}
