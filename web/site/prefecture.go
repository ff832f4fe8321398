package site

import (
	"strconv"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/param"
	"github.com/hensachi/hensachi/town"
	"github.com/hensachi/hensachi/web/page"
)

type prefecturesPage struct {
	page.Base
	Regions []prefectureRegion
}

// prefectureRegion is one of the eight regions of the list, its prefectures in code order.
type prefectureRegion struct {
	Name        string
	Prefectures []prefectureSummary
}

// prefectureSummary is a prefecture's line of the list: how many municipalities, how many people
// and the most populous municipality.
type prefectureSummary struct {
	hensachi.Prefecture
	Towns, Population string
	Largest           *hensachi.Municipality
}

// regions are the eight regions by the last prefecture code of each (地方区分 as the census uses).
var regions = []struct {
	name string
	last string
}{{"北海道", "01"}, {"東北", "07"}, {"関東", "14"}, {"中部", "23"}, {"近畿", "30"}, {"中国", "35"}, {"四国", "39"}, {"九州・沖縄", "47"}}

func (s *Site) prefectures(c *town.Catalog, _ param.Query, _ httprouter.Params) (string, any, error) {
	p := prefecturesPage{Base: s.base(c, "都道府県", "47 都道府県の市区町村の数、人口、人口の最も多い市区町村と、その偏差値の一覧へ。", "/town/prefectures")}
	pop := hensachi.StatIndex("pop")
	r := 0
	for _, pref := range c.Meta.Prefectures {
		for r < len(regions)-1 && pref.Code > regions[r].last {
			r++
		}
		if len(p.Regions) == 0 || p.Regions[len(p.Regions)-1].Name != regions[r].name {
			p.Regions = append(p.Regions, prefectureRegion{Name: regions[r].name})
		}
		towns := c.InPrefecture(pref.Code)
		line := prefectureSummary{Prefecture: pref, Towns: number(float64(len(towns)), 0)}
		var people float64
		for _, m := range towns {
			if v := m.Stats[pop]; v.Valid {
				people += v.V
				if line.Largest == nil || v.V > line.Largest.Stats[pop].V {
					line.Largest = m
				}
			}
		}
		line.Population = withUnit(hensachi.Some(people), hensachi.Stats[pop])
		p.Regions[len(p.Regions)-1].Prefectures = append(p.Regions[len(p.Regions)-1].Prefectures, line)
	}
	return "prefectures", p, nil
}

type prefectureTown struct {
	Code, Name string
	Hensachi   []string
}

type prefecturePage struct {
	page.Base
	Pref  hensachi.Prefecture
	Axes  []hensachi.Field
	Towns []prefectureTown
}

func (s *Site) prefecture(c *town.Catalog, _ param.Query, ps httprouter.Params) (string, any, error) {
	pref, err := param.PrefectureInPath(c, "pref", ps.ByName("pref"))
	if err != nil {
		return "", nil, err
	}
	towns := c.InPrefecture(pref.Code)
	p := prefecturePage{Pref: pref, Axes: hensachi.Axes,
		Base: s.base(c, pref.Name+"の市区町村の偏差値", pref.Name+"の全市区町村の 6 軸の偏差値。", "/town/prefectures/"+pref.Code)}
	for _, m := range towns {
		t := prefectureTown{Code: m.Code, Name: m.Name}
		for _, s := range m.Scores {
			h := "—"
			if s.Value.Valid {
				h = strconv.FormatFloat(s.Hensachi, 'f', 1, 64)
			}
			t.Hensachi = append(t.Hensachi, h)
		}
		p.Towns = append(p.Towns, t)
	}
	return "prefecture", p, nil
}
