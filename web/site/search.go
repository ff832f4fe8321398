package site

import (
	"net/http"
	"strings"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
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
}

func (s *Site) search(c *town.Catalog, r *http.Request, _ httprouter.Params) (string, any, error) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if len(q) > 200 {
		q = q[:200]
	}
	p := searchPage{Base: s.base(c, "市区町村を探す", "市区町村を名前や読みで探す。", ""), Query: q}
	p.Results = c.Search(q, maxSearchResults+1)
	if len(p.Results) > maxSearchResults {
		p.Results, p.More = p.Results[:maxSearchResults], true
	}
	return "search", p, nil
}
