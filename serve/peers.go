package serve

import (
	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/param"
	"github.com/hensachi/hensachi/town"
)

// GET /town/v1/peer-groups: the 類似団体 of the latest census with their members and the medians
// of the six axes, encoded once per dataset version; with indicator= (and year=), the medians of
// that indicator too, encoded per call.

func (s *Server) listPeerGroups(c *call, _ httprouter.Params) ([]byte, error) {
	q, err := param.ParseAPI(c.r.URL.RawQuery, "indicator", "year")
	if err != nil {
		return nil, err
	}
	i, k, ok, err := param.OptionalIndicator(c.catalog, q, "indicator")
	if err != nil {
		return nil, err
	}
	if !ok {
		return c.serve(func() ([]byte, error) { return c.keptBody(peerGroupBodies.Of(c.catalog)), nil })
	}
	return c.serve(func() ([]byte, error) { return peerGroupsData(c.catalog, i, k), nil })
}

var peerGroupBodies = town.NewMemo(func(c *town.Catalog) []byte { return peerGroupsData(c, -1, 0) })

// peerGroupsData is the data of GET /town/v1/peer-groups, with the medians of indicator i in its
// k-th survey year when i ≥ 0.
func peerGroupsData(c *town.Catalog, i, k int) []byte {
	groups := c.PeerGroups()
	out := peerGroupsJSON{Total: len(groups), Items: make([]peerGroupItemJSON, len(groups))}
	if i >= 0 {
		ind := c.Indicator(i)
		out.Indicator = &peerIndicatorJSON{Key: ind.Key, Label: ind.Label, Unit: ind.Unit, Year: ind.Years[k].Year}
	}
	for j, g := range groups {
		item := peerGroupItemJSON{Code: g.Code, Name: g.Name, CensusYear: g.CensusYear, Size: len(g.Members)}
		for _, m := range c.PeerMembers(g.Code) {
			item.Members = append(item.Members, peerMemberJSON{Code: m.Code, Name: m.Name})
		}
		for a, ax := range hensachi.Axes {
			item.Medians.Scores = append(item.Medians.Scores, member{ax.Key, optF(c.PeerAxisMedian(a, g.Code))})
		}
		if i >= 0 {
			item.Medians.Indicator = optF(c.PeerMedian(i, k, g.Code))
		}
		out.Items[j] = item
	}
	return dataMember(out)
}

type peerGroupsJSON struct {
	// Indicator is the indicator whose medians the groups give, null without indicator=.
	Indicator *peerIndicatorJSON  `json:"indicator"`
	Total     int                 `json:"total"`
	Items     []peerGroupItemJSON `json:"items"`
}

type peerIndicatorJSON struct {
	Key   string `json:"key"`
	Label string `json:"label"`
	Unit  string `json:"unit"`
	Year  int    `json:"year"`
}

type peerGroupItemJSON struct {
	Code       string           `json:"code"`
	Name       string           `json:"name"`
	CensusYear int              `json:"census_year"`
	Size       int              `json:"size"`
	Members    []peerMemberJSON `json:"members"`
	Medians    peerMediansJSON  `json:"medians"`
}

type peerMemberJSON struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

type peerMediansJSON struct {
	Scores    orderedObject `json:"scores"`
	Indicator *float64      `json:"indicator"`
}
