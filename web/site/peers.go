package site

import (
	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/town"
)

// peerGroupOf returns a municipality's 類似団体 and the catalog's rows of its members, or nil when
// no group of the dataset classes it: Municipality.PeerGroup names a group of the latest census
// classed, and Meta.PeerGroups lists the latest year's groups first.
//
// PEERS: this reads the root's fields directly because the peer groups' read model is being
// written on branch peers (town's group, its median and the rank in it). When both are merged,
// replace this and the IndicatorAmong calls over its rows with those town functions.
func peerGroupOf(c *town.Catalog, m *hensachi.Municipality) (*hensachi.PeerGroup, []int) {
	if m.PeerGroup == "" {
		return nil, nil
	}
	for g := range c.Meta.PeerGroups {
		group := &c.Meta.PeerGroups[g]
		if group.Code != m.PeerGroup {
			continue
		}
		rows := make([]int, 0, len(group.Members))
		for _, code := range group.Members {
			if r := c.Index(code); r >= 0 {
				rows = append(rows, r)
			}
		}
		return group, rows
	}
	return nil, nil
}
