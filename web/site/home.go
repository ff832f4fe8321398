package site

import (
	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/export"
	"github.com/hensachi/hensachi/internal/param"
	"github.com/hensachi/hensachi/town"
	"github.com/hensachi/hensachi/web/page"
)

type homePage struct {
	page.Base
	Axes        []hensachi.Field
	Prefectures []hensachi.Prefecture
	// GeoJSON tells whether the dataset has the boundaries the GeoJSON download needs.
	GeoJSON bool
}

func (s *Site) home(c *town.Catalog, _ param.Query, _ httprouter.Params) (string, any, error) {
	return "home", homePage{Base: s.base(c, "市区町村の偏差値と顔分析の API",
		"日本の全市区町村を偏差値・全国順位・統計・ふるさと納税で比べる API と、顔の年齢・性別・スコアを返す API。", "/"),
		Axes: hensachi.Axes, Prefectures: c.Meta.Prefectures, GeoJSON: export.GeoJSON.Available(c) == nil}, nil
}
