package town_test

import (
	"slices"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/towntest"
	"github.com/hensachi/hensachi/town"
)

func TestPeerGroups(t *testing.T) {
	c := towntest.Catalog()
	var codes []string
	for _, g := range c.PeerGroups() {
		codes = append(codes, g.Code)
		if g.CensusYear != 2020 {
			t.Errorf("group %s of %d, want the latest census's", g.Code, g.CensusYear)
		}
	}
	if !slices.Equal(codes, []string{"designated_city", "core_city", "special_ward", "town-2-2"}) {
		t.Errorf("groups %v", codes)
	}
	if c.Meta.PeerGroups != nil {
		t.Error("the meta served lists the groups")
	}
	if g, ok := c.PeerGroupOf("01345"); !ok || g.Name != "町村Ⅱ-2" {
		t.Errorf("札内町's group %+v %v, want 町村Ⅱ-2 by the 2020 census", g, ok)
	}
	if _, ok := c.PeerGroupOf("99999"); ok {
		t.Error("an unknown municipality has a group")
	}
	var members []string
	for _, m := range c.PeerMembers("special_ward") {
		members = append(members, m.Code)
	}
	if !slices.Equal(members, []string{"13101", "13102"}) {
		t.Errorf("special wards %v", members)
	}
	if c.PeerMembers("town-3-2") != nil {
		t.Error("a group of the older census has members")
	}
}

// peerCatalog is towntest's catalog with 札幌市, 函館市 and 中央区 in one group, so that it has a
// member without a value (札内町 in 2020), national ties (函館市 and 中央区, 5.25 in 2020) and
// members outside it ranked between them (千代田区).
func peerCatalog(direction string) *town.Catalog {
	meta := towntest.Meta()
	meta.PeerGroups = []hensachi.PeerGroup{
		{Code: "city-4-3", Name: "都市Ⅳ-3", CensusYear: 2020, Members: []string{"01100", "01202", "01345", "13102"}},
		{Code: "special_ward", Name: "特別区", CensusYear: 2020, Members: []string{"13101"}},
	}
	cat, values := towntest.Indicators()
	cat.Indicators[0].Direction = direction
	return town.New(towntest.Municipalities(), meta, "peers", towntest.PublicURL).WithIndicators(cat, values)
}

// TestRankInPeers: a rank within the group is the national rank counted among the members, ties
// shared as nationally, oriented by the indicator's direction.
func TestRankInPeers(t *testing.T) {
	// births_per_1000, codes in row order 01100 01202 01345 13101 13102
	//   2020: 6.5, 5.25, null, 7.1, 5.25   2023: 6.1, 5.0, 4.2, 6.8, 5.6
	tests := []struct {
		name      string
		direction string
		year      int
		want      []town.PeerRank // by row
	}{
		{"higher is better, a national tie shared", hensachi.DirectionHigherBetter, 0,
			[]town.PeerRank{{1, 3}, {2, 3}, {}, {1, 1}, {2, 3}}},
		{"higher is better, every member ranked", hensachi.DirectionHigherBetter, 1,
			[]town.PeerRank{{1, 4}, {3, 4}, {4, 4}, {1, 1}, {2, 4}}},
		{"lower is better", hensachi.DirectionLowerBetter, 1,
			[]town.PeerRank{{4, 4}, {2, 4}, {1, 4}, {1, 1}, {3, 4}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := peerCatalog(tc.direction)
			for m, want := range tc.want {
				if got := c.RankInPeers(0, tc.year, m); got != want {
					t.Errorf("row %d (%s): %+v, want %+v", m, c.Row(m).Code, got, want)
				}
				if got := c.IndicatorPoint(0, tc.year, m).RankInPeers; got != want.Rank {
					t.Errorf("row %d point's rank in peers %d, want %d", m, got, want.Rank)
				}
			}
		})
	}
}

func TestPeerMedians(t *testing.T) {
	c := peerCatalog(hensachi.DirectionHigherBetter)
	for _, tc := range []struct {
		name string
		got  hensachi.Optional[float64]
		want hensachi.Optional[float64]
	}{
		{"2020: 6.5, 5.25, 5.25", c.PeerMedian(0, 0, "city-4-3"), hensachi.Some(5.25)},
		{"2023: 6.1, 5.0, 4.2, 5.6", c.PeerMedian(0, 1, "city-4-3"), hensachi.Some(5.3)},
		{"an unknown group", c.PeerMedian(0, 1, "city-1-0"), hensachi.Optional[float64]{}},
		// the axes: 10 − national rank, 札内町 without a value on the first
		{"axis young: 9, 7, 5", c.PeerAxisMedian(0, "city-4-3"), hensachi.Some(7.0)},
		{"axis shops: 9, 7, 6, 5", c.PeerAxisMedian(1, "city-4-3"), hensachi.Some(6.5)},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: median %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	// 中央区, national 5th on the second axis, is the group's 4th of 4
	if got := c.AxisRankInPeers(1, 4); got != (town.PeerRank{Rank: 4, Total: 4}) {
		t.Errorf("中央区 on shops: %+v", got)
	}
	if got := c.AxisRankInPeers(0, 2); got != (town.PeerRank{Total: 3}) {
		t.Errorf("札内町 on young, without a value: %+v", got)
	}
}

// TestRankingInPeers: a scope of a group lists its members only, with their national ranks.
func TestRankingInPeers(t *testing.T) {
	c := peerCatalog(hensachi.DirectionHigherBetter)
	page := c.IndicatorRankingPage(0, 1, town.WorstFirst, town.Scope{Peers: "city-4-3"}, 0, 10)
	var got []string
	for _, it := range page.Items {
		got = append(got, it.Municipality.Code)
	}
	if !slices.Equal(got, []string{"01345", "01202", "13102", "01100"}) || page.Total != 4 || page.PeerGroup == nil || page.PeerGroup.Code != "city-4-3" {
		t.Errorf("worst first in city-4-3: %v (total %d, group %+v)", got, page.Total, page.PeerGroup)
	}
	axis := c.RankingPage(1, town.BestFirst, town.Scope{Pref: "13", Peers: "city-4-3"}, 0, 10)
	if len(axis.Items) != 1 || axis.Items[0].Code != "13102" || axis.Items[0].Scores[1].Rank != 5 || axis.Prefecture == nil {
		t.Errorf("東京都's members of city-4-3: %+v", axis)
	}
}

// TestWithoutPeerGroups: a dataset without groups has none, and no rank within one.
func TestWithoutPeerGroups(t *testing.T) {
	meta := towntest.Meta()
	meta.PeerGroups = nil
	towns := towntest.Municipalities()
	for i := range towns {
		towns[i].PeerGroup = ""
	}
	cat, values := towntest.Indicators()
	c := town.New(towns, meta, "none", towntest.PublicURL).WithIndicators(cat, values)
	if len(c.PeerGroups()) != 0 || c.RankInPeers(0, 1, 0) != (town.PeerRank{}) || c.AxisRankInPeers(0, 0) != (town.PeerRank{}) {
		t.Error("a catalog without groups ranks within them")
	}
	if _, ok := c.PeerGroupOf("01100"); ok {
		t.Error("a municipality has a group")
	}
}
