package town_test

import (
	"encoding/json"
	"slices"
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
	page, total := c.Ranking(0, town.BestFirst, "", 1, 2)
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
		page, total := c.Ranking(tt.axis, tt.order, tt.pref, 0, 100)
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

// TestBodies checks the API's bodies are the data member of the envelope, in the spec's shapes.
func TestBodies(t *testing.T) {
	c := towntest.Catalog()
	data := func(b []byte) map[string]any {
		t.Helper()
		var v map[string]map[string]any
		if err := json.Unmarshal(append(append([]byte("{"), b...), '}'), &v); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		return v["data"]
	}
	m := data(c.MunicipalityData(c.Index("13101")))
	if m["page_url"] != towntest.PublicURL+"/town/municipalities/13101" || m["name"] != "千代田区" {
		t.Errorf("municipality: %v", m)
	}
	if &c.MunicipalityData(3)[0] != &c.MunicipalityData(3)[0] {
		t.Error("municipality body encoded twice")
	}
	if l := data(c.ListData("13")); l["total"] != 2.0 || l["prefecture"] == nil {
		t.Errorf("list of 13: %v", l)
	}
	if l := data(c.ListData("")); l["total"] != 5.0 || l["prefecture"] != nil {
		t.Errorf("list of all: %v", l)
	}
	r := data(c.RankingData(0, town.WorstFirst, "01", 1, 1))
	if r["order"] != "asc" || r["total"] != 2.0 || len(r["items"].([]any)) != 1 || r["items"].([]any)[0].(map[string]any)["code"] != "01100" {
		t.Errorf("ranking: %v", r)
	}
	if meta := data(c.MetaData()); meta["data_updated"] != "2026-01-01" {
		t.Errorf("meta: %v", meta)
	}
}
