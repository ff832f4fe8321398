package town_test

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/towntest"
	"github.com/hensachi/hensachi/town"
)

func codes(ms []*hensachi.Municipality) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Code)
	}
	return out
}

func TestRankingPaging(t *testing.T) {
	c := towntest.Catalog()
	page, total := c.Ranking(0, town.BestFirst, town.Scope{}, 1, 2)
	if total != 4 || len(page) != 2 || page[0].Code != "13101" || page[1].Code != "01202" {
		t.Errorf("page 2 of 2: total %d, %v", total, page)
	}
}

// TestRankingOrders: both orders hold the ranked municipalities only, a prefecture keeps the
// national ranks, and the catalog's counts agree.
func TestRankingOrders(t *testing.T) {
	c := towntest.Catalog()
	tests := []struct {
		axis  int
		order town.Order
		pref  string
		want  []string
	}{
		{0, town.BestFirst, "", []string{"01100", "13101", "01202", "13102"}},
		{0, town.WorstFirst, "", []string{"13102", "01202", "13101", "01100"}},
		{1, town.BestFirst, "", []string{"01100", "13101", "01202", "01345", "13102"}},
		{1, town.BestFirst, "01", []string{"01100", "01202", "01345"}},
		{1, town.WorstFirst, "13", []string{"13102", "13101"}},
		{1, town.BestFirst, "47", nil},
	}
	for _, tt := range tests {
		page, total := c.Ranking(tt.axis, tt.order, town.Scope{Pref: tt.pref}, 0, 100)
		if got := codes(page); !slices.Equal(got, tt.want) || total != len(tt.want) {
			t.Errorf("axis %d %s pref %q: %v (total %d), want %v", tt.axis, tt.order, tt.pref, got, total, tt.want)
		}
	}
	if c.RankTotal(0) != 4 || c.RankTotal(1) != 5 {
		t.Errorf("rank totals %d, %d", c.RankTotal(0), c.RankTotal(1))
	}
}

func TestLookups(t *testing.T) {
	c := towntest.Catalog()
	if m, ok := c.Municipality("13101"); !ok || m.Name != "千代田区" || c.Index("13101") != 3 {
		t.Errorf("13101: %v %v, row %d", m, ok, c.Index("13101"))
	}
	if _, ok := c.Municipality("99999"); ok || c.Index("99999") != -1 {
		t.Error("99999 found")
	}
	if p, ok := c.Prefecture("01"); !ok || p.Name != "北海道" {
		t.Errorf("prefecture 01: %v %v", p, ok)
	}
	if got := codes(c.InPrefecture("01")); !slices.Equal(got, []string{"01100", "01202", "01345"}) {
		t.Errorf("in 01: %v", got)
	}
	// statistic 0 has 100*rank for ranks 1, 2, 3, 5 (札内町 has none); statistic 1 has 100*rank+1
	if m := c.StatMedian(0); !m.Valid || m.V != 250 {
		t.Errorf("median of statistic 0: %+v, want 250", m)
	}
	if m := c.StatMedian(1); !m.Valid || m.V != 301 {
		t.Errorf("median of statistic 1: %+v, want 301", m)
	}
}

func TestSearch(t *testing.T) {
	c := towntest.Catalog()
	tests := []struct {
		query string
		want  []string
	}{
		{"札幌", []string{"01100"}},
		{"ﾁﾖﾀﾞ", []string{"13101"}},
		{"チヨダク", []string{"13101"}},
		{"東京都 ちゅうおう", []string{"13102"}},
		{"北海道", []string{"01100", "01202", "01345"}},
		{"さ", []string{"01100", "01345"}},
		{"  ", nil},
		{"sapporo", []string{"01100"}},
		{"ＳＡＰＰＯＲＯ", []string{"01100"}},
		{"satunai", []string{"01345"}},              // Kunrei
		{"chuo", []string{"13102"}},                 // ちゅうおう, long vowels left out
		{"chūō", []string{"13102"}},                 // with macrons
		{"chuuou", []string{"13102"}},               // written twice
		{"tokyo", []string{"13101", "13102"}},       // the prefecture
		{"東京都 chiyoda", []string{"13101"}},          // kanji and romaji together
		{"hokkaido sa", []string{"01100", "01345"}}, // name first, then places in the prefecture
		{"tokyo sapporo", nil},
	}
	for _, tt := range tests {
		if got := codes(c.Search(tt.query, 10)); !slices.Equal(got, tt.want) {
			t.Errorf("search %q: %v, want %v", tt.query, got, tt.want)
		}
	}
	if got := c.Search("北海道", 2); len(got) != 2 {
		t.Errorf("limit 2: %d results", len(got))
	}
}

// TestLists: a prefecture's list and the whole country's, in code order, and the ranking page
// with what it was asked for.
func TestLists(t *testing.T) {
	c := towntest.Catalog()
	if l, ok := c.List("13"); !ok || l.Prefecture == nil || l.Prefecture.Name != "東京都" || !slices.Equal(codes(l.Items), []string{"13101", "13102"}) {
		t.Errorf("list of 13: %v %+v", ok, l)
	}
	if l, ok := c.List(""); !ok || l.Prefecture != nil || len(l.Items) != 5 || l.Items[4] != c.Row(4) {
		t.Errorf("list of all: %v %+v", ok, l)
	}
	if _, ok := c.List("47"); ok {
		t.Error("a list of 47, which the catalog has no municipality of")
	}
	p := c.RankingPage(0, town.WorstFirst, town.Scope{Pref: "01"}, 1, 1)
	if p.Axis != 0 || p.Order != town.WorstFirst || p.Prefecture.Code != "01" || p.Total != 2 || p.Offset != 1 || p.Limit != 1 ||
		!slices.Equal(codes(p.Items), []string{"01100"}) {
		t.Errorf("ranking page: %+v", p)
	}
	if p := c.RankingPage(1, town.BestFirst, town.Scope{}, 0, 2); p.Prefecture != nil || p.Total != 5 || len(p.Items) != 2 {
		t.Errorf("national ranking page: %+v", p)
	}
	if ms, err := c.Lookup([]string{"13102", "01100"}); err != nil || !slices.Equal(codes(ms), []string{"13102", "01100"}) {
		t.Errorf("lookup: %v %v", codes(ms), err)
	}
	if _, err := c.Lookup([]string{"01100", "99999"}); hensachi.ErrorCode(err) != hensachi.ENotFound || !strings.Contains(err.Error(), "99999") {
		t.Errorf("lookup of an unknown code: %v", err)
	}
	if u := c.PageURL(c.Row(3)); u != towntest.PublicURL+"/town/municipalities/13101" {
		t.Errorf("page URL %s", u)
	}
}

// TestMemo: what a memo derives is built once per catalog, however many ask at once, and each
// catalog has its own.
func TestMemo(t *testing.T) {
	var builds atomic.Int64
	memo := town.NewMemo(func(c *town.Catalog) *string {
		builds.Add(1)
		v := c.Version + "!"
		return &v
	})
	c1, c2 := towntest.Catalog(), towntest.Catalog()
	var wg sync.WaitGroup
	got := make([]*string, 8)
	for k := range got {
		wg.Go(func() { got[k] = memo.Of(c1) })
	}
	wg.Wait()
	for _, v := range got {
		if v != got[0] || *v != "v1!" {
			t.Fatalf("memo of one catalog: %v", got)
		}
	}
	if memo.Of(c2) == got[0] || builds.Load() != 2 {
		t.Errorf("%d builds for two catalogs", builds.Load())
	}
}
