package serve

import (
	"slices"
	"strings"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/town"
)

// Handlers of the statistics service over the dataset's read model (package town). Each validates
// its input before reserving quota.

func (s *Server) getMunicipality(c *call, ps httprouter.Params) ([]byte, error) {
	if _, err := parseQuery(c.r.URL.RawQuery); err != nil {
		return nil, err
	}
	i, err := municipalityRow(c.catalog, "code", ps.ByName("code"))
	if err != nil {
		return nil, err
	}
	return c.serve(func() ([]byte, error) { return c.bodies().municipalityData(i), nil })
}

// municipalityRow validates a municipality code given as param and returns its row: a malformed
// code is an invalid parameter, an unknown one not found.
func municipalityRow(t *town.Catalog, param, code string) (int, error) {
	if len(code) != 5 || !allDigits(code) {
		return 0, hensachi.ParamError(param, "%s must be a 5-digit municipality code such as 13101, not %q", param, truncateParam(code))
	}
	i := t.Index(code)
	if i < 0 {
		return 0, hensachi.Errorf(hensachi.ENotFound, "there is no municipality %s; GET /town/v1/municipalities lists the codes", code)
	}
	return i, nil
}

func (s *Server) getSimilar(c *call, ps httprouter.Params) ([]byte, error) {
	q, err := parseQuery(c.r.URL.RawQuery, "limit")
	if err != nil {
		return nil, err
	}
	code := ps.ByName("code")
	if _, err := municipalityRow(c.catalog, "code", code); err != nil {
		return nil, err
	}
	limit, err := intParam(q, "limit", 10, 1, town.MaxNeighbours)
	if err != nil {
		return nil, err
	}
	return c.serve(func() ([]byte, error) { return c.bodies().similarData(code, limit) })
}

// maxCompared is how many municipalities one comparison takes.
const maxCompared = 10

func (s *Server) getCompare(c *call, _ httprouter.Params) ([]byte, error) {
	q, err := parseQuery(c.r.URL.RawQuery, "codes")
	if err != nil {
		return nil, err
	}
	list, ok := q["codes"]
	if !ok {
		return nil, hensachi.ParamError("codes", "codes is required: 2 to %d municipality codes separated by commas, such as 13101,27100", maxCompared)
	}
	codes := strings.Split(list, ",")
	if len(codes) < 2 || len(codes) > maxCompared {
		return nil, hensachi.ParamError("codes", "codes must name 2 to %d municipalities, not %d", maxCompared, len(codes))
	}
	for k, code := range codes {
		if len(code) != 5 || !allDigits(code) {
			return nil, hensachi.ParamError("codes", "codes must hold 5-digit municipality codes such as 13101, not %q", code)
		}
		if slices.Contains(codes[:k], code) {
			return nil, hensachi.ParamError("codes", "codes names %s twice", code)
		}
	}
	for _, code := range codes {
		if _, err := municipalityRow(c.catalog, "codes", code); err != nil {
			return nil, err
		}
	}
	return c.serve(func() ([]byte, error) {
		cmp, err := c.catalog.Compare(codes)
		if err != nil {
			return nil, err
		}
		return c.bodies().compareData(cmp), nil
	})
}

func (s *Server) getRanking(c *call, ps httprouter.Params) ([]byte, error) {
	q, err := parseQuery(c.r.URL.RawQuery, "order", "pref", "limit", "offset")
	if err != nil {
		return nil, err
	}
	a := hensachi.AxisIndex(ps.ByName("axis"))
	if a < 0 {
		keys := make([]string, len(hensachi.Axes))
		for i, ax := range hensachi.Axes {
			keys[i] = ax.Key
		}
		return nil, hensachi.Errorf(hensachi.ENotFound, "there is no axis %q; axes are %s", truncateParam(ps.ByName("axis")), strings.Join(keys, ", "))
	}
	order := town.BestFirst
	if o, ok := q["order"]; ok {
		if o != string(town.BestFirst) && o != string(town.WorstFirst) {
			return nil, hensachi.ParamError("order", "order must be desc or asc, not %q", o)
		}
		order = town.Order(o)
	}
	pref, err := prefecture(c.catalog, q)
	if err != nil {
		return nil, err
	}
	limit, err := intParam(q, "limit", 20, 1, 100)
	if err != nil {
		return nil, err
	}
	offset, err := intParam(q, "offset", 0, 0, 1_000_000)
	if err != nil {
		return nil, err
	}
	return c.serve(func() ([]byte, error) {
		return c.bodies().rankingData(c.catalog.RankingPage(a, order, pref, offset, limit)), nil
	})
}

func (s *Server) listMunicipalities(c *call, _ httprouter.Params) ([]byte, error) {
	q, err := parseQuery(c.r.URL.RawQuery, "pref", "q")
	if err != nil {
		return nil, err
	}
	pref, err := prefecture(c.catalog, q)
	if err != nil {
		return nil, err
	}
	query, search := q["q"]
	if search && strings.TrimSpace(query) == "" {
		return nil, hensachi.ParamError("q", "q has no words; give a name or reading such as 宝塚 or たからづか")
	}
	if search {
		return c.serve(func() ([]byte, error) { return searchData(c.catalog.SearchList(query, pref)), nil })
	}
	return c.serve(func() ([]byte, error) { return c.bodies().listData(pref), nil })
}

func (s *Server) getMeta(c *call, _ httprouter.Params) ([]byte, error) {
	if _, err := parseQuery(c.r.URL.RawQuery); err != nil {
		return nil, err
	}
	return c.serve(func() ([]byte, error) { return c.bodies().meta, nil })
}

// prefecture validates a pref parameter and returns its code; absent gives "", the whole country.
func prefecture(t *town.Catalog, q map[string]string) (string, error) {
	code, ok := q["pref"]
	if !ok {
		return "", nil
	}
	if _, ok := t.Prefecture(code); ok {
		return code, nil
	}
	if len(code) != 2 || !allDigits(code) {
		return "", hensachi.ParamError("pref", "pref must be a 2-digit prefecture code such as 13, not %q", code)
	}
	return "", hensachi.ParamError("pref", "there is no prefecture %s; codes run from 01 to 47", code)
}
