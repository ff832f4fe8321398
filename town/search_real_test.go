package town_test

import (
	"testing"

	"github.com/hensachi/hensachi/internal/testrig/realdata"
)

// TestRealRomajiSearch: the real code list's readings found by the spellings people type.
func TestRealRomajiSearch(t *testing.T) {
	c := realdata.Catalog(t, "https://hensachi.example")
	tests := []struct {
		query string
		first string // the best hit's code
		min   int    // at least this many hits
	}{
		{"takarazuka", "28214", 1}, // 宝塚市
		{"Takarazuka-shi", "28214", 1},
		{"osaka", "27100", 2}, // 大阪市 before the prefecture's others and 大阪狭山市
		{"oosaka", "27100", 2},
		{"ōsaka", "27100", 2},
		{"tokyo", "13101", 62}, // 東京都's 62 municipalities
		{"kochi", "39201", 34}, // 高知市 (こうち), the prefecture's 34
		{"shinjuku", "13104", 1},
		{"sinzyuku", "13104", 1},
		{"hombetsu", "01646", 1}, // 本別町 (ほんべつ) in the older Hepburn's m before b
	}
	for _, tt := range tests {
		got := c.Search(tt.query, 100)
		if len(got) < tt.min || (tt.first != "" && (len(got) == 0 || got[0].Code != tt.first)) {
			first := ""
			if len(got) > 0 {
				first = got[0].Code + " " + got[0].Name
			}
			t.Errorf("search %q: %d hits, first %q; want at least %d, first %s", tt.query, len(got), first, tt.min, tt.first)
		}
	}
}
