package serve

import (
	"strings"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/param"
	"github.com/hensachi/hensachi/town"
)

// Handlers of the statistics service over the dataset's read model (package town). Each validates
// its input before reserving quota.

func (s *Server) getMunicipality(c *call, ps httprouter.Params) ([]byte, error) {
	if _, err := param.ParseAPI(c.r.URL.RawQuery); err != nil {
		return nil, err
	}
	m, err := param.Municipality(c.catalog, "code", ps.ByName("code"))
	if err != nil {
		return nil, err
	}
	i := c.catalog.Index(m.Code)
	return c.serve(func() ([]byte, error) { return c.keptBody(c.bodies().municipalityData(i)), nil })
}

func (s *Server) getSimilar(c *call, ps httprouter.Params) ([]byte, error) {
	q, err := param.ParseAPI(c.r.URL.RawQuery, "limit", "measures")
	if err != nil {
		return nil, err
	}
	m, err := param.Municipality(c.catalog, "code", ps.ByName("code"))
	if err != nil {
		return nil, err
	}
	limit, err := param.Int(q, "limit", 10, 1, town.MaxNeighbours)
	if err != nil {
		return nil, err
	}
	dims, keys, err := param.Dimensions(c.catalog, q)
	if err != nil {
		return nil, err
	}
	if dims != nil {
		return c.serve(func() ([]byte, error) { return similarOnData(c.catalog, m, dims, keys, limit), nil })
	}
	return c.serve(func() ([]byte, error) { return c.bodies().similarData(m.Code, limit) })
}

func (s *Server) getCompare(c *call, _ httprouter.Params) ([]byte, error) {
	q, err := param.ParseAPI(c.r.URL.RawQuery, "codes", "indicators")
	if err != nil {
		return nil, err
	}
	towns, err := param.Compared(c.catalog, q, 2)
	if err != nil {
		return nil, err
	}
	dims, keys, err := param.IndicatorDimensions(c.catalog, q, town.MaxDimensions)
	if err != nil {
		return nil, err
	}
	return c.serve(func() ([]byte, error) {
		d := c.bodies().compareData(town.Comparison{Items: towns, Medians: c.catalog.Medians()})
		if dims == nil {
			return d, nil
		}
		return appendComparedIndicators(d[:len(d)-1], c.catalog, towns, dims, keys), nil
	})
}

func (s *Server) getRanking(c *call, ps httprouter.Params) ([]byte, error) {
	q, err := param.ParseAPI(c.r.URL.RawQuery, "order", "pref", "peers", "limit", "offset")
	if err != nil {
		return nil, err
	}
	a, err := param.Axis(ps.ByName("axis"))
	if err != nil {
		return nil, err
	}
	p, err := readRankingPage(c.catalog, q)
	if err != nil {
		return nil, err
	}
	return c.serve(func() ([]byte, error) {
		return c.bodies().rankingData(c.catalog.RankingPage(a, p.order, p.scope, p.offset, p.limit)), nil
	})
}

// rankingPage is what picks a page of a ranking, an axis's or an indicator's.
type rankingPage struct {
	order         town.Order
	scope         town.Scope
	offset, limit int
}

// readRankingPage reads order, pref, peers, limit and offset.
func readRankingPage(c *town.Catalog, q param.Query) (rankingPage, error) {
	order, err := param.Order(q)
	if err != nil {
		return rankingPage{}, err
	}
	pref, err := param.Prefecture(c, q)
	if err != nil {
		return rankingPage{}, err
	}
	_, peers, err := param.Peers(c, q)
	if err != nil {
		return rankingPage{}, err
	}
	limit, err := param.Int(q, "limit", 20, 1, 100)
	if err != nil {
		return rankingPage{}, err
	}
	offset, err := param.Int(q, "offset", 0, 0, 1_000_000)
	if err != nil {
		return rankingPage{}, err
	}
	return rankingPage{order, town.Scope{Pref: param.PrefectureCode(pref), Peers: param.PeerGroupCode(peers)}, offset, limit}, nil
}

func (s *Server) listMunicipalities(c *call, _ httprouter.Params) ([]byte, error) {
	q, err := param.ParseAPI(c.r.URL.RawQuery, "pref", "q")
	if err != nil {
		return nil, err
	}
	pref, err := param.Prefecture(c.catalog, q)
	if err != nil {
		return nil, err
	}
	query, search, err := q.One("q")
	if err != nil {
		return nil, err
	}
	if search && strings.TrimSpace(query) == "" {
		return nil, hensachi.ParamError("q", "q has no words; give a name or reading such as 宝塚 or たからづか")
	}
	if search {
		return c.serve(func() ([]byte, error) {
			return searchData(c.catalog.SearchList(query, param.PrefectureCode(pref))), nil
		})
	}
	return c.serve(func() ([]byte, error) { return c.keptBody(c.bodies().listData(param.PrefectureCode(pref))), nil })
}

func (s *Server) getMeta(c *call, _ httprouter.Params) ([]byte, error) {
	if _, err := param.ParseAPI(c.r.URL.RawQuery); err != nil {
		return nil, err
	}
	return c.serve(func() ([]byte, error) { return c.keptBody(c.bodies().meta), nil })
}
