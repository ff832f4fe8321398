package town

import (
	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/compute"
)

// The 類似団体 (hensachi.PeerGroup) by the latest census the dataset classes: each municipality's
// group, the groups' members and medians, and each municipality's rank within its group. A rank
// within the group is the national rank counted among the members — 1 + how many of them rank
// better nationally — so it is oriented as the national rank is (1 the better side, by the
// indicator's direction) and members tied nationally share it.

// peers is the catalog's index of the latest census's groups.
type peers struct {
	groups  []hensachi.PeerGroup
	byCode  map[string]int
	of      []int   // row → group, -1 without one
	members [][]int // group → rows, in code order
	// axisRank[a][row] is the row's rank within its group on axis a, 0 without a value or group.
	axisRank [][]int
	// axisMedian[g][a] is the median of group g's values of axis a.
	axisMedian [][]hensachi.Optional[float64]
}

// newPeers indexes the groups of the latest census year of groups (latest first, as the meta
// holds them) over towns, ranked on the axes best first by ranking (Catalog.ranking).
func newPeers(groups []hensachi.PeerGroup, towns []hensachi.Municipality, byCode map[string]int, ranking [][]int) *peers {
	p := &peers{byCode: map[string]int{}, of: make([]int, len(towns))}
	for i := range p.of {
		p.of[i] = -1
	}
	for _, g := range groups {
		if g.CensusYear != groups[0].CensusYear {
			break
		}
		k := len(p.groups)
		p.groups = append(p.groups, g)
		p.byCode[g.Code] = k
		rows := make([]int, 0, len(g.Members))
		for _, code := range g.Members {
			if r, ok := byCode[code]; ok {
				rows = append(rows, r)
				p.of[r] = k
			}
		}
		p.members = append(p.members, rows)
	}
	for a := range hensachi.Axes {
		p.axisRank = append(p.axisRank, p.ranksWithin(ranking[a], func(row int) int { return towns[row].Scores[a].Rank }))
	}
	for _, rows := range p.members {
		medians := make([]hensachi.Optional[float64], len(hensachi.Axes))
		for a, ax := range hensachi.Axes {
			values := make([]hensachi.Optional[float64], len(rows))
			for j, r := range rows {
				values[j] = towns[r].Scores[a].Value
			}
			medians[a] = median(values, ax.Decimals)
		}
		p.axisMedian = append(p.axisMedian, medians)
	}
	return p
}

// ranksWithin gives each row of order (best first, by the national ranks rank) its rank within
// its group; the rows outside order or without a group get 0.
func (p *peers) ranksWithin(order []int, rank func(row int) int) []int {
	out := make([]int, len(p.of))
	seen := make([]int, len(p.groups))                                             // members ranked so far
	lastRank, lastWithin := make([]int, len(p.groups)), make([]int, len(p.groups)) // the last member's ranks
	for _, r := range order {
		g := p.of[r]
		if g < 0 {
			continue
		}
		seen[g]++
		out[r] = seen[g]
		if seen[g] > 1 && rank(r) == lastRank[g] {
			out[r] = lastWithin[g]
		}
		lastRank[g], lastWithin[g] = rank(r), out[r]
	}
	return out
}

// median is the median of values, null without any, with one decimal more than they have, as the
// national medians have (the mean of two values has one more, and no more).
func median(values []hensachi.Optional[float64], decimals int) hensachi.Optional[float64] {
	s := compute.RoundedSummary(values, decimals)
	if s.Count == 0 {
		return hensachi.Optional[float64]{}
	}
	return hensachi.Some(s.Median)
}

// PeerGroups returns the 類似団体 of the latest census the dataset classes, in 総務省's order
// (政令指定都市, 中核市, 特別区, then 都市 and 町村 by class); none for a dataset without them.
func (c *Catalog) PeerGroups() []*hensachi.PeerGroup {
	out := make([]*hensachi.PeerGroup, len(c.peers.groups))
	for g := range c.peers.groups {
		out[g] = &c.peers.groups[g]
	}
	return out
}

// PeerGroup returns the group of a group code (hensachi.PeerGroup.Code) of the latest census.
func (c *Catalog) PeerGroup(group string) (*hensachi.PeerGroup, bool) {
	g, ok := c.peers.byCode[group]
	if !ok {
		return nil, false
	}
	return &c.peers.groups[g], true
}

// PeerGroupOf returns the group of the municipality of a code, false when it has none (双葉町, which
// the census counted empty) or there is no such municipality.
func (c *Catalog) PeerGroupOf(code string) (*hensachi.PeerGroup, bool) {
	i, ok := c.byCode[code]
	if !ok || c.peers.of[i] < 0 {
		return nil, false
	}
	return &c.peers.groups[c.peers.of[i]], true
}

// PeerMembers returns the members of a group (PeerGroups) in code order.
func (c *Catalog) PeerMembers(group string) []*hensachi.Municipality {
	g, ok := c.peers.byCode[group]
	if !ok {
		return nil
	}
	out := make([]*hensachi.Municipality, len(c.peers.members[g]))
	for j, r := range c.peers.members[g] {
		out[j] = &c.towns[r]
	}
	return out
}

// PeerRank is a municipality's rank within its group and how many of the group are ranked; Rank
// is 0 where it has no value or no group.
type PeerRank struct {
	Rank, Total int
}

// AxisRankInPeers returns row m's rank within its group on axis a.
func (c *Catalog) AxisRankInPeers(a, m int) PeerRank {
	g := c.peers.of[m]
	if g < 0 {
		return PeerRank{}
	}
	total := 0
	for _, r := range c.peers.members[g] {
		if c.towns[r].Scores[a].Value.Valid {
			total++
		}
	}
	return PeerRank{Rank: c.peers.axisRank[a][m], Total: total}
}

// PeerAxisMedian returns the median of a group's values of axis a, null for an unknown group or
// one without values.
func (c *Catalog) PeerAxisMedian(a int, group string) hensachi.Optional[float64] {
	g, ok := c.peers.byCode[group]
	if !ok {
		return hensachi.Optional[float64]{}
	}
	return c.peers.axisMedian[g][a]
}

// RankInPeers returns row m's rank within its group on indicator i in its k-th survey year.
func (c *Catalog) RankInPeers(i, k, m int) PeerRank {
	g := c.peers.of[m]
	cell := c.indicators.cell(i, k, m)
	if g < 0 || cell.peerRank == 0 {
		return PeerRank{}
	}
	return PeerRank{Rank: int(cell.peerRank), Total: c.peerCount(i, k, g)}
}

// peerCount is how many of group g have a value of indicator i in its k-th year.
func (c *Catalog) peerCount(i, k, g int) int {
	n := 0
	for _, r := range c.peers.members[g] {
		if c.indicators.cell(i, k, r).peerRank > 0 {
			n++
		}
	}
	return n
}

// PeerMedian returns the median of a group's values of indicator i in its k-th survey year, null
// for an unknown group or one without values: the 類似団体 line of a municipality's series.
func (c *Catalog) PeerMedian(i, k int, group string) hensachi.Optional[float64] {
	g, ok := c.peers.byCode[group]
	if !ok {
		return hensachi.Optional[float64]{}
	}
	values := make([]hensachi.Optional[float64], len(c.peers.members[g]))
	for j, r := range c.peers.members[g] {
		values[j] = c.indicators.cell(i, k, r).point(0).Value
	}
	return median(values, c.indicators.list[i].Decimals)
}
