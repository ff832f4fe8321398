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

// The side-by-side comparison of up to ten municipalities.

// maxCompared is the most municipalities the compare page shows side by side.
const maxCompared = 10

var municipalityCode = regexp.MustCompile(`^[0-9]{5}$`)

// comparedCodes reads the municipalities to compare: codes, repeated or comma-separated (a form's
// check boxes repeat it, a link writes a list), 2 to 10 distinct well-formed codes, else a bad
// request naming the problem.
func comparedCodes(q url.Values) ([]string, error) {
	var codes []string
	seen := map[string]bool{}
	for _, v := range q["codes"] {
		for code := range strings.SplitSeq(v, ",") {
			code = strings.TrimSpace(code)
			switch {
			case code == "":
				continue
			case !municipalityCode.MatchString(code):
				return nil, hensachi.ParamError("codes", "「%.20s」は市区町村コード（5 桁の数字、例：28214）ではありません。", code)
			case seen[code]:
				return nil, hensachi.ParamError("codes", "%s が 2 回指定されています。", code)
			}
			seen[code] = true
			codes = append(codes, code)
			if len(codes) > maxCompared {
				return nil, hensachi.ParamError("codes", "比べられるのは %d 市区町村までです。", maxCompared)
			}
		}
	}
	if len(codes) < 2 {
		return nil, hensachi.ParamError("codes", "比べる市区町村を 2 つ以上、codes にコンマ区切りで指定してください（例：codes=28214,13101）。")
	}
	return codes, nil
}

// comparedTowns looks the codes up; one unknown code is not found.
func comparedTowns(c *town.Catalog, codes []string) ([]*hensachi.Municipality, error) {
	towns := make([]*hensachi.Municipality, len(codes))
	for i, code := range codes {
		m, ok := c.Municipality(code)
		if !ok {
			return nil, hensachi.Errorf(hensachi.ENotFound, "市区町村コード %s はありません。", code)
		}
		towns[i] = m
	}
	return towns, nil
}

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

func (s *Site) compare(c *town.Catalog, r *http.Request, _ httprouter.Params) (string, any, error) {
	codes, err := comparedCodes(r.URL.Query())
	if err != nil {
		return "", nil, err
	}
	towns, err := comparedTowns(c, codes)
	if err != nil {
		return "", nil, err
	}
	list := strings.Join(codes, ",")
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
