package serve_test

import (
	"net/http"
	"testing"
)

type peerGroupRef struct {
	Code, Name string
	Size       int
}

// TestPeerGroupsCall: the groups of the latest census hold every municipality once but 双葉町, and
// each municipality object names its group, with the group's size.
func TestPeerGroupsCall(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	groups := decode[struct {
		Data struct {
			Indicator *struct{ Key string }
			Total     int
			Items     []struct {
				Code, Name string
				CensusYear int `json:"census_year"`
				Size       int
				Members    []struct{ Code, Name string }
				Medians    struct {
					Scores    map[string]*float64
					Indicator *float64
				}
			}
		}
	}](t, ts.get(t, "/town/v1/peer-groups").body)
	if groups.Data.Indicator != nil || groups.Data.Total != len(groups.Data.Items) || groups.Data.Items[0].Code != "designated_city" {
		t.Fatalf("groups: indicator %v, total %d of %d items, first %q", groups.Data.Indicator, groups.Data.Total, len(groups.Data.Items), groups.Data.Items[0].Code)
	}
	seen := map[string]string{}
	for _, g := range groups.Data.Items {
		if g.CensusYear != 2020 || g.Size != len(g.Members) || len(g.Medians.Scores) != 6 || g.Medians.Indicator != nil {
			t.Errorf("group %s: census %d, size %d of %d members, %d medians", g.Code, g.CensusYear, g.Size, len(g.Members), len(g.Medians.Scores))
		}
		for _, m := range g.Members {
			if prev, dup := seen[m.Code]; dup {
				t.Errorf("%s in %s and %s", m.Code, prev, g.Code)
			}
			seen[m.Code] = g.Code
		}
	}
	if len(seen) != 1740 || seen["07546"] != "" {
		t.Errorf("%d municipalities in groups, want all 1,741 but 双葉町", len(seen))
	}
	for code, want := range map[string]peerGroupRef{
		"13101": {"special_ward", "特別区", 23},
		"01100": {"designated_city", "政令指定都市", 20},
		"20202": {"city-4-1", "都市Ⅳ-1", 0}, // 松本市, a 中核市 only since 2021
	} {
		m := decode[struct {
			Data struct {
				PeerGroup *peerGroupRef `json:"peer_group"`
			}
		}](t, ts.get(t, "/town/v1/municipalities/"+code).body)
		if g := m.Data.PeerGroup; g == nil || g.Code != want.Code || g.Name != want.Name || want.Size > 0 && g.Size != want.Size || seen[code] != want.Code {
			t.Errorf("%s: peer_group %+v, want %+v", code, g, want)
		}
	}
	none := decode[struct{ Data map[string]any }](t, ts.get(t, "/town/v1/municipalities/07546").body)
	if g, ok := none.Data["peer_group"]; !ok || g != nil {
		t.Errorf("双葉町's peer_group %v (present %v), want null", g, ok)
	}

	withIndicator := decode[struct {
		Data struct {
			Indicator struct {
				Key  string
				Year int
			}
			Items []struct {
				Code    string
				Medians struct{ Indicator *float64 }
			}
		}
	}](t, ts.get(t, "/town/v1/peer-groups?indicator=population").body)
	if withIndicator.Data.Indicator.Key != "population" || withIndicator.Data.Indicator.Year != 2020 || withIndicator.Data.Items[2].Medians.Indicator == nil {
		t.Errorf("with population: %+v", withIndicator.Data.Indicator)
	}
}

// TestRankingsInPeers: peers= narrows both rankings to a municipality's group, ranks staying
// national, and every item carries its rank within its own group.
func TestRankingsInPeers(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	type page struct {
		Data struct {
			PeerGroup *peerGroupRef `json:"peer_group"`
			Total     int
			Items     []struct {
				Rank        int
				Code        string
				RankInPeers *int `json:"rank_in_peers"`
			}
		}
	}
	for _, path := range []string{"/town/v1/rankings/income?peers=13229&limit=100", "/town/v1/indicators/population?peers=13229&limit=100"} {
		p := decode[page](t, ts.get(t, path).body)
		if p.Data.PeerGroup == nil || p.Data.PeerGroup.Code != "city-4-3" || p.Data.Total != p.Data.PeerGroup.Size || len(p.Data.Items) != p.Data.Total {
			t.Fatalf("%s: group %+v, total %d, %d items", path, p.Data.PeerGroup, p.Data.Total, len(p.Data.Items))
		}
		for k, it := range p.Data.Items {
			// within the group, the k-th of distinct national ranks is the (k+1)-th
			if it.RankInPeers == nil || k > 0 && it.Rank != p.Data.Items[k-1].Rank && *it.RankInPeers != k+1 {
				t.Errorf("%s: item %d %s national %d, in peers %v", path, k, it.Code, it.Rank, it.RankInPeers)
			}
		}
	}
	national := decode[page](t, ts.get(t, "/town/v1/rankings/income?limit=1").body)
	if national.Data.PeerGroup != nil || national.Data.Items[0].RankInPeers == nil {
		t.Errorf("national ranking: group %+v, first item's rank in peers %v", national.Data.PeerGroup, national.Data.Items[0].RankInPeers)
	}
	for _, tc := range []struct {
		path   string
		status int
		param  string
	}{
		{"/town/v1/rankings/income?peers=1322", http.StatusBadRequest, "peers"},
		{"/town/v1/rankings/income?peers=07546", http.StatusBadRequest, "peers"},
		{"/town/v1/indicators/population?peers=abcde", http.StatusBadRequest, "peers"},
		{"/town/v1/rankings/income?peers=99999", http.StatusNotFound, ""},
		{"/town/v1/rankings/income?peers=13229&peers=13101", http.StatusBadRequest, "peers"},
		{"/town/v1/peer-groups?indicator=nope", http.StatusBadRequest, "indicator"},
		{"/town/v1/peer-groups?year=2020", http.StatusBadRequest, "year"},
		{"/town/v1/peer-groups?indicator=population&year=2019", http.StatusBadRequest, "year"},
		{"/town/v1/peer-groups?pref=13", http.StatusBadRequest, "pref"},
	} {
		r := ts.get(t, tc.path)
		p := decode[problem](t, r.body)
		if r.status != tc.status || p.Param != tc.param {
			t.Errorf("GET %s: %d naming %q, want %d naming %q", tc.path, r.status, p.Param, tc.status, tc.param)
		}
	}
}
