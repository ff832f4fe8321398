package rawfiles

import (
	"math"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

var (
	sourcesOnce sync.Once
	sources     *Sources
	sourcesErr  error
)

func readSources(t *testing.T) *Sources {
	t.Helper()
	raw := testenv.Shared(t, "data/raw")
	sourcesOnce.Do(func() {
		lists, _ := filepath.Glob(filepath.Join(raw, "finance", "shuyo_zaisei_shihyo_city", "*.xls*"))
		lists = append(lists, filepath.Join(raw, "finance", "000917808.xlsx"))
		for i, l := range lists {
			lists[i], _ = filepath.Rel(raw, l)
		}
		sources, sourcesErr = ReadSources(raw, lists)
	})
	if sourcesErr != nil {
		t.Fatal(sourcesErr)
	}
	return sources
}

// TestReadSources checks the readers on figures SOURCES.md states for each file, one per way of
// reading: a CSV edition, an xlsx list keyed by code, a BIFF8 list keyed by name, the portal's
// series, both hometown-tax files.
func TestReadSources(t *testing.T) {
	s := readSources(t)
	if n := len(s.Codes.Entries); n != 1741 {
		t.Errorf("%d municipalities in the code list, want 1,741", n)
	}
	if n := len(s.SSDSE); n != 9 {
		t.Errorf("%d SSDSE-A editions, want 9", n)
	}
	if fys := slices.Sorted(mapsKeys(s.Finance)); len(fys) != 18 || fys[0] != 2005 || fys[17] != 2022 {
		t.Errorf("finance lists for FY %v, want FY2005–FY2022", fys)
	}
	tests := []struct {
		item string
		year int
		code string
		want float64
	}{
		{"B1101", 2024, "01100", 112126},                           // 札幌 1,121.26 km², in hectares
		{"D2203", 2022, "01100", 94.9},                             // as the FY2022 list
		{"finance.財政力指数", 2022, "13101", 0.87},                     // 千代田区
		{"finance.財政力指数", 2022, "13103", 1.2},                      // 港区
		{"finance.財政力指数", 2005, "02201", 0.6},                      // 青森市, H17.xls row 183, by name
		{"finance.ラスパイレス指数", 2005, "02201", 100.1},                 // written as text in H17.xls
		{"finance.財政力指数", 2009, "01100", 0.7},                      // 札幌, H21.xls row 3: 北海道 as it is now
		{"finance.実質公債費比率", 2012, "01100", 7.6},                    // H24.xls, by code
		{"furusato.receipts_count", 2024, "01100", 208028},         // detail file
		{"furusato.receipts_thousand_yen", 2024, "01100", 3904089}, // ¥3,904,088,764
		{"furusato.receipts_yen", 2024, "01100", 3904088764},       // exact
		{"furusato.receipts_yen", 2015, "01100", 1000 * s.Furusato.ReceiptsThousandYen["01100"][2015]},
	}
	for _, tt := range tests {
		got, st := s.Value(tt.item, tt.year, tt.code)
		if st != Have || math.Abs(got-tt.want) > 1e-6 {
			t.Errorf("%s %d %s = %v (status %d), want %v", tt.item, tt.year, tt.code, got, st, tt.want)
		}
	}
	if ys := s.Years("portal.C120110"); len(ys) != 14 || ys[0] != 2010 || ys[13] != 2023 {
		t.Errorf("portal.C120110 years %v, want 2010–2023", ys)
	}
	if ys := s.Years("furusato.receipts_count"); len(ys) != 17 || ys[0] != 2008 {
		t.Errorf("furusato.receipts_count years %v, want FY2008–FY2024", ys)
	}
	if v, st := s.Value("finance.将来負担比率", 2022, "13101"); st != Have || v != 0 {
		t.Errorf("千代田区's 将来負担比率 FY2022 is %v (status %d); the list writes a dash, no net future burden: 0", v, st)
	}
	// H17.xls row 133 names 北海道 上湧別町, which merged into 湧別町 in 2009: which of the
	// prefecture's municipalities took it in, this reader cannot tell, so it places none of them.
	if _, st := s.Value("finance.財政力指数", 2005, "01100"); st != Unknown {
		t.Errorf("札幌's FY2005 財政力指数 has status %d, want Unknown: 北海道 changed after FY2005", st)
	}
	if _, st := s.Value("A1101", 2015, "40231"); st != Have {
		t.Errorf("那珂川市's 2015 population has status %d; the 2018/2019 editions list it as 40305", st)
	}
}

func mapsKeys[V any](m map[int]V) func(func(int) bool) {
	return func(yield func(int) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func TestNearest(t *testing.T) {
	census := []int{2015, 2020}
	tests := []struct{ year, want int }{
		{2008, 2015}, // none before: the earliest after
		{2015, 2015},
		{2019, 2015},
		{2020, 2020},
		{2024, 2020},
	}
	for _, tt := range tests {
		if got := nearest(census, tt.year); got != tt.want {
			t.Errorf("nearest(%v, %d) = %d, want %d", census, tt.year, got, tt.want)
		}
	}
}

func TestRank(t *testing.T) {
	tests := []struct {
		name   string
		values map[string]float64
		want   map[string]Standing
	}{
		{"one", map[string]float64{"a": 3}, map[string]Standing{"a": {1, 50}}},
		{"two", map[string]float64{"a": 1, "b": 2}, map[string]Standing{"b": {1, 56.7}, "a": {2, 43.3}}},
		{"ties share the rank and the middle position", map[string]float64{"a": 5, "b": 7, "c": 5, "d": 5, "e": 1},
			map[string]Standing{"b": {1, 62.8}, "a": {2, 50}, "c": {2, 50}, "d": {2, 50}, "e": {5, 37.2}}},
		{"negative values", map[string]float64{"a": -1, "b": 0, "c": -3}, map[string]Standing{"b": {1, 59.7}, "a": {2, 50}, "c": {3, 40.3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Rank(tt.values)
			for k, want := range tt.want {
				if got[k] != want {
					t.Errorf("%s: %+v, want %+v", k, got[k], want)
				}
			}
		})
	}
}

func TestRoundHalfAway(t *testing.T) {
	tests := []struct {
		v        float64
		decimals int
		want     float64
	}{
		{2.5, 0, 3}, {-2.5, 0, -3}, {1.25, 1, 1.3}, {-1.25, 1, -1.3}, {0.124, 2, 0.12}, {1234.5, 0, 1235},
	}
	for _, tt := range tests {
		if got := RoundHalfAway(tt.v, tt.decimals); got != tt.want {
			t.Errorf("RoundHalfAway(%v, %d) = %v, want %v", tt.v, tt.decimals, got, tt.want)
		}
	}
}
