package dataset

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/hensachi/hensachi"
)

// TestPeerGroupsRoundTrip: each municipality's 類似団体 by the latest census comes back from the
// meta's groups, the only place the file holds it.
func TestPeerGroupsRoundTrip(t *testing.T) {
	ms, meta := twoMunicipalities()
	meta.PeerGroups = []hensachi.PeerGroup{
		{Code: "special_ward", Name: "特別区", CensusYear: 2020, Members: []string{"13102"}},
		{Code: "special_ward", Name: "特別区", CensusYear: 2015, Members: []string{"13101", "13102"}},
	}
	ms[1].PeerGroup = "special_ward"
	path := filepath.Join(t.TempDir(), "dataset.arrow")
	if _, err := Write(path, ms, meta); err != nil {
		t.Fatal(err)
	}
	ds, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	for i, want := range []string{"", "special_ward"} {
		if got := ds.Municipality(i).PeerGroup; got != want {
			t.Errorf("row %d in group %q, want %q", i, got, want)
		}
	}
	if len(ds.Meta.PeerGroups) != 2 || ds.Meta.PeerGroups[1].CensusYear != 2015 {
		t.Errorf("meta's groups %+v", ds.Meta.PeerGroups)
	}
}

// TestPeerGroupsMisfit: groups that do not fit the municipalities are refused before the file is
// written.
func TestPeerGroupsMisfit(t *testing.T) {
	group := func(year int, members ...string) hensachi.PeerGroup {
		return hensachi.PeerGroup{Code: "special_ward", Name: "特別区", CensusYear: year, Members: members}
	}
	for _, tc := range []struct {
		name   string
		groups []hensachi.PeerGroup
		own    [2]string // the municipalities' PeerGroup
		reason string
	}{
		{"an unknown member", []hensachi.PeerGroup{group(2020, "13101", "13999")}, [2]string{"special_ward"}, "member \"13999\" unknown"},
		{"members out of order", []hensachi.PeerGroup{group(2020, "13102", "13101")}, [2]string{"special_ward", "special_ward"}, "out of code order"},
		{"a member twice in a year", []hensachi.PeerGroup{group(2020, "13101"), {Code: "city-1-1", CensusYear: 2020, Members: []string{"13101"}}}, [2]string{"special_ward"}, "in peer groups special_ward and city-1-1"},
		{"the older census first", []hensachi.PeerGroup{group(2015), group(2020)}, [2]string{}, "peer groups of 2020 after 2015"},
		{"a municipality's group not the meta's", []hensachi.PeerGroup{group(2020, "13101")}, [2]string{"special_ward", "special_ward"}, "13102 is in peer group \"special_ward\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms, meta := twoMunicipalities()
			meta.PeerGroups = tc.groups
			ms[0].PeerGroup, ms[1].PeerGroup = tc.own[0], tc.own[1]
			_, err := Write(filepath.Join(t.TempDir(), "dataset.arrow"), ms, meta)
			if err == nil || !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("error %v, want one saying %q", err, tc.reason)
			}
		})
	}
}
