package site

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/town"
	"github.com/hensachi/hensachi/web/page"
)

// rankingPageSize is the number of municipalities on one ranking page.
const rankingPageSize = 50

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
}

func (s *Site) ranking(c *town.Catalog, r *http.Request, ps httprouter.Params) (string, any, error) {
	a := hensachi.AxisIndex(ps.ByName("axis"))
	if a < 0 {
		return "", nil, hensachi.Errorf(hensachi.ENotFound, "この軸はありません。")
	}
	axis := hensachi.Axes[a]
	q := r.URL.Query()
	p := rankingPage{Axis: axis, PageSize: rankingPageSize}
	prefCode := q.Get("pref")
	if prefCode != "" {
		pref, ok := c.Prefecture(prefCode)
		if !ok {
			return "", nil, hensachi.Errorf(hensachi.ENotFound, "この都道府県コードはありません。")
		}
		p.Pref, p.PrefQuery = &pref, "?pref="+prefCode
	}
	pageNo := 1
	if s := q.Get("page"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 100 {
			return "", nil, hensachi.Errorf(hensachi.ENotFound, "このページはありません。")
		}
		pageNo = n
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
