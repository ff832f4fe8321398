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
	Prefectures []hensachi.Prefecture
}

func (s *Site) prefectures(c *town.Catalog, _ param.Query, _ httprouter.Params) (string, any, error) {
	return "prefectures", prefecturesPage{Base: s.base(c, "都道府県", "都道府県ごとの市区町村の偏差値一覧。", "/town/prefectures"),
		Prefectures: c.Meta.Prefectures}, nil
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
