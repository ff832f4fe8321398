package site

import (
	"net/url"
	"strconv"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/param"
	"github.com/hensachi/hensachi/town"
	"github.com/hensachi/hensachi/web/page"
)

// rankingPageSize is the number of municipalities on one ranking page.
const rankingPageSize = 50

// maxRankingPages bounds the page parameter: the whole country fits in 35 pages.
const maxRankingPages = 100

type axisLink struct {
	Key, Label string
	Current    bool
}

type prefOption struct {
	Code, Name string
	Selected   bool
}

type rankingRow struct{ Rank, Code, Name, Pref, Hensachi, Value string }

type rankingPage struct {
	page.Base
	Axis             hensachi.Field
	Pref             *hensachi.Prefecture
	PrefQuery        string
	Axes             []axisLink
	Prefectures      []prefOption
	Items            []rankingRow
	Total, From, To  int
	PageSize         int
	PrevURL, NextURL string
	MapURL           string // the axis's map, of the prefecture when one is picked
}

func (s *Site) ranking(c *town.Catalog, q param.Query, ps httprouter.Params) (string, any, error) {
	a, err := param.Axis(ps.ByName("axis"))
	if err != nil {
		return "", nil, err
	}
	axis := hensachi.Axes[a]
	p := rankingPage{Axis: axis, PageSize: rankingPageSize}
	pref, err := param.Prefecture(c, q)
	if err != nil {
		return "", nil, err
	}
	prefCode := param.PrefectureCode(pref)
	if pref != nil {
		p.Pref, p.PrefQuery = pref, "?pref="+prefCode
	}
	pageNo, err := param.Int(q, "page", 1, 1, maxRankingPages)
	if err != nil {
		return "", nil, err
	}
	items, total := c.Ranking(a, town.BestFirst, prefCode, (pageNo-1)*rankingPageSize, rankingPageSize)
	if len(items) == 0 && pageNo > 1 {
		return "", nil, hensachi.Errorf(hensachi.ENotFound, "このページはありません。")
	}
	for _, m := range items {
		s := m.Scores[a]
		p.Items = append(p.Items, rankingRow{Rank: strconv.Itoa(s.Rank), Code: m.Code, Name: m.Name, Pref: m.Prefecture.Name,
			Hensachi: strconv.FormatFloat(s.Hensachi, 'f', 1, 64), Value: number(s.Value.V, axis.Decimals)})
	}
	p.Total, p.From, p.To = total, (pageNo-1)*rankingPageSize+1, (pageNo-1)*rankingPageSize+len(items)
	link := func(n int) string {
		v := url.Values{}
		if prefCode != "" {
			v.Set("pref", prefCode)
		}
		if n > 1 {
			v.Set("page", strconv.Itoa(n))
		}
		if len(v) == 0 {
			return "/town/rankings/" + axis.Key
		}
		return "/town/rankings/" + axis.Key + "?" + v.Encode()
	}
	if pageNo > 1 {
		p.PrevURL = link(pageNo - 1)
	}
	if p.To < total {
		p.NextURL = link(pageNo + 1)
	}
	for _, x := range hensachi.Axes {
		p.Axes = append(p.Axes, axisLink{Key: x.Key, Label: x.Label, Current: x.Key == axis.Key})
	}
	for _, pr := range c.Meta.Prefectures {
		p.Prefectures = append(p.Prefectures, prefOption{Code: pr.Code, Name: pr.Name, Selected: pr.Code == prefCode})
	}
	p.MapURL = mapURL(axis.Key, prefCode)
	where := "全国"
	if p.Pref != nil {
		where = p.Pref.Name
	}
	title := axis.Label + "の偏差値ランキング（" + where + "）"
	if pageNo > 1 {
		title += " " + strconv.Itoa(pageNo) + " ページ目"
	}
	p.Base = s.base(c, title, where+"の市区町村を「"+axis.Label+"」（"+axis.Description+"）の偏差値で並べたランキング。", link(pageNo))
	return "ranking", p, nil
}
