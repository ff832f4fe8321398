package site

import (
	"strings"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/param"
	"github.com/hensachi/hensachi/town"
	"github.com/hensachi/hensachi/web/page"
)

// maxSearchResults bounds a search page.
const maxSearchResults = 100

type searchPage struct {
	page.Base
	Query   string
	Results []*hensachi.Municipality
	More    bool
	// Wards say which of the results a designated city's ward found (港北区は横浜市の区).
	Wards []town.WardHit
	// Suggestions are the names one letter off a query that found nothing (もしかして).
	Suggestions []*hensachi.Municipality
}

func (s *Site) search(c *town.Catalog, q param.Query, _ httprouter.Params) (string, any, error) {
	query, _, err := q.One("q")
	if err != nil {
		return "", nil, err
	}
	query = strings.TrimSpace(query)
	p := searchPage{Base: s.base(c, "市区町村を探す", "市区町村を名前や読みで探す。", ""), Query: query}
	p.Results = c.Search(query, maxSearchResults+1)
	if len(p.Results) > maxSearchResults {
		p.Results, p.More = p.Results[:maxSearchResults], true
	}
	p.Wards = c.Wards(query)
	if len(p.Results) == 0 {
		p.Suggestions = c.Suggest(query)
	}
	return "search", p, nil
}
