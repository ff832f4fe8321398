package town_test

import (
	"math"
	"slices"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/realdata"
	"github.com/hensachi/hensachi/internal/testrig/towntest"
	"github.com/hensachi/hensachi/town"
)

func TestSimilar(t *testing.T) {
	c := towntest.Catalog()
	near, err := c.Similar("01100", 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range near {
		got = append(got, n.Municipality.Code)
	}
	// 札幌市 scores 55 on every axis, 千代田区 50, 函館市 45, 札内町 40 (no first axis), 中央区 35
	if !slices.Equal(got, []string{"13101", "01202", "01345", "13102"}) {
		t.Fatalf("neighbours of 01100: %v", got)
	}
	if d := near[0].Distance; math.Abs(d-math.Sqrt(6*25)) > 1e-9 {
		t.Errorf("distance to 千代田区 %v", d)
	}
	if d := near[2].Distance; math.Abs(d-math.Sqrt(6*225)) > 1e-9 { // five shared axes, scaled to six
		t.Errorf("distance to 札内町 %v", d)
	}
	if diffs := near[2].Differences; len(diffs) != 3 || diffs[0].Axis != 1 || diffs[0].Difference != -15 {
		t.Errorf("differences to 札内町 %+v (its first axis has no value)", diffs)
	}
	if near, _ := c.Similar("01100", 2); len(near) != 2 {
		t.Errorf("limit 2: %d", len(near))
	}
	if _, err := c.Similar("99999", 2); hensachi.ErrorCode(err) != hensachi.ENotFound {
		t.Errorf("unknown: %v", err)
	}
}

// TestSimilarOnRealData: for every municipality, neighbours are sorted, never itself, at most the
// limit, and a municipality without a value on an axis still has its neighbours.
func TestSimilarOnRealData(t *testing.T) {
	c := realdata.Catalog(t, towntest.PublicURL)
	missing, without := 0, 0
	var all []*hensachi.Municipality
	for _, p := range c.Meta.Prefectures {
		all = append(all, c.InPrefecture(p.Code)...)
	}
	if len(all) != c.Len() {
		t.Fatalf("%d municipalities in the prefectures of %d", len(all), c.Len())
	}
	for _, self := range all {
		code := self.Code
		near, err := c.Similar(code, town.MaxNeighbours)
		if err != nil {
			t.Fatal(err)
		}
		valued := 0
		for _, s := range self.Scores {
			if s.Value.Valid {
				valued++
			}
		}
		if want := town.MaxNeighbours; valued < 4 && len(near) != 0 || valued >= 4 && len(near) != want {
			t.Errorf("%s with values on %d axes: %d neighbours", code, valued, len(near))
		}
		if valued < 4 {
			without++
		}
		for k, n := range near {
			if n.Municipality.Code == code {
				t.Errorf("%s is its own neighbour", code)
			}
			if k > 0 && n.Distance < near[k-1].Distance {
				t.Errorf("%s: neighbours not sorted at %d", code, k)
			}
		}
		for _, s := range self.Scores {
			if !s.Value.Valid {
				missing++
				for _, n := range near {
					for _, d := range n.Differences {
						if !self.Scores[d.Axis].Value.Valid {
							t.Errorf("%s: difference on an axis it has no value on", code)
						}
					}
				}
			}
		}
	}
	if missing == 0 || without == 0 {
		t.Errorf("%d axes missing, %d municipalities on too few axes: a case is untested", missing, without)
	}
	if near, _ := c.Similar("07546", 5); len(near) != 0 { // 双葉町: values on two axes
		t.Errorf("双葉町: %d neighbours", len(near))
	}
}

// TestSimilarList: the municipality, the axes it has no value on, and its neighbours.
func TestSimilarList(t *testing.T) {
	c := towntest.Catalog()
	l, err := c.SimilarList("01345", 2)
	if err != nil {
		t.Fatal(err)
	}
	if l.Municipality.Code != "01345" || !slices.Equal(l.MissingAxes, []int{0}) || len(l.Neighbours) != 2 {
		t.Errorf("similar list of 01345: %s, missing %v, %d neighbours", l.Municipality.Code, l.MissingAxes, len(l.Neighbours))
	}
	if l, _ := c.SimilarList("01100", 10); l.MissingAxes == nil || len(l.MissingAxes) != 0 || len(l.Neighbours) != 4 {
		t.Errorf("similar list of 01100: missing %v, %d neighbours", l.MissingAxes, len(l.Neighbours))
	}
	if _, err := c.SimilarList("99999", 2); hensachi.ErrorCode(err) != hensachi.ENotFound {
		t.Errorf("unknown: %v", err)
	}
}

// TestCompare: the municipalities in the order asked, and the national medians, rounded to one
// decimal more than their values have.
func TestCompare(t *testing.T) {
	c := towntest.Catalog()
	cmp, err := c.Compare([]string{"13102", "01345"})
	if err != nil {
		t.Fatal(err)
	}
	if got := codes(cmp.Items); !slices.Equal(got, []string{"13102", "01345"}) {
		t.Errorf("items %v", got)
	}
	m := cmp.Medians
	if pop := m.Stats[hensachi.StatIndex("pop")]; !pop.Valid || pop.V != 250 || len(m.Scores) != 6 || len(m.Stats) != 16 || m != c.Medians() {
		t.Errorf("medians %+v", m)
	}
	if _, err := c.Compare([]string{"13102", "99999"}); hensachi.ErrorCode(err) != hensachi.ENotFound {
		t.Errorf("unknown: %v", err)
	}
}

// TestSearchList: every match of one prefecture, none of another, never a nil list.
func TestSearchList(t *testing.T) {
	c := towntest.Catalog()
	l := c.SearchList("さ", "01")
	if got := codes(l.Items); !slices.Equal(got, []string{"01100", "01345"}) || l.Prefecture == nil || l.Prefecture.Name != "北海道" {
		t.Errorf("さ in 01: %v in %v", got, l.Prefecture)
	}
	if l := c.SearchList("さ", "13"); len(l.Items) != 0 || l.Items == nil {
		t.Errorf("さ in 13: %v", l.Items)
	}
	if l := c.SearchList("さ", ""); len(l.Items) != 2 || l.Prefecture != nil {
		t.Errorf("さ: %v in %v", codes(l.Items), l.Prefecture)
	}
}
