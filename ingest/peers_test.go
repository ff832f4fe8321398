package ingest

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hensachi/hensachi/internal/testrig/fixtures"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

func TestCityClass(t *testing.T) {
	tests := []struct {
		name                  string
		pop, p, s, t          float64
		wantPop, wantIndustry int
	}{
		{"49,999 is class Ⅰ", 49_999, 5, 30, 65, 1, 3},
		{"exactly 50,000 is class Ⅱ", 50_000, 5, 30, 65, 2, 3},
		{"exactly 100,000 is class Ⅲ", 100_000, 5, 30, 65, 3, 3},
		{"149,999 is class Ⅲ", 149_999, 5, 30, 65, 3, 3},
		{"exactly 150,000 is class Ⅳ", 150_000, 5, 30, 65, 4, 3},
		{"exactly 95 % and exactly 65 % is 3", 60_000, 5, 30, 65, 2, 3},
		{"exactly 95 % with tertiary under 65 % is 2", 60_000, 5, 31, 64, 2, 2},
		{"just under 95 % is 1 with tertiary at 65 %", 60_000, 501, 2999, 6500, 2, 1},
		{"under 95 % and exactly 55 % is 1", 60_000, 10, 35, 55, 2, 1},
		{"under 95 % and under 55 % is 0", 60_000, 10, 36, 54, 2, 0},
		{"exact in large counts: 95 of 100 in thousands", 1_000_000, 25_000, 150_000, 325_000, 4, 3},
		{"霧島市 2020, 95.008 %, 68.1 %", 123_135, 2657, 14656, 35911, 3, 3},
		{"下田市 2020, 94.977 %, 81.8 %", 20_183, 485, 1230, 7940, 1, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pop, industry := CityClass(tc.pop, tc.p, tc.s, tc.t)
			if pop != tc.wantPop || industry != tc.wantIndustry {
				t.Errorf("CityClass(%v, %v, %v, %v) = %d-%d, want %d-%d", tc.pop, tc.p, tc.s, tc.t, pop, industry, tc.wantPop, tc.wantIndustry)
			}
		})
	}
}

func TestTownClass(t *testing.T) {
	tests := []struct {
		name                  string
		pop, p, s, t          float64
		wantPop, wantIndustry int
	}{
		{"4,999 is class Ⅰ", 4_999, 20, 25, 55, 1, 2},
		{"exactly 5,000 is class Ⅱ", 5_000, 20, 25, 55, 2, 2},
		{"exactly 10,000 is class Ⅲ", 10_000, 20, 25, 55, 3, 2},
		{"exactly 15,000 is class Ⅳ", 15_000, 20, 25, 55, 4, 2},
		{"19,999 is class Ⅳ", 19_999, 20, 25, 55, 4, 2},
		{"exactly 20,000 is class Ⅴ", 20_000, 20, 25, 55, 5, 2},
		{"exactly 80 % and exactly 55 % is 2", 8_000, 20, 25, 55, 2, 2},
		{"exactly 80 % with tertiary under 55 % is 1", 8_000, 20, 26, 54, 2, 1},
		{"under 80 % is 0 whatever the tertiary share", 8_000, 21, 0, 79, 2, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pop, industry := TownClass(tc.pop, tc.p, tc.s, tc.t)
			if pop != tc.wantPop || industry != tc.wantIndustry {
				t.Errorf("TownClass(%v, %v, %v, %v) = %d-%d, want %d-%d", tc.pop, tc.p, tc.s, tc.t, pop, industry, tc.wantPop, tc.wantIndustry)
			}
		})
	}
}

func TestPeerGroupNames(t *testing.T) {
	for code, want := range map[string]string{
		"designated_city": "政令指定都市", "core_city": "中核市", "special_ward": "特別区",
		"city-2-3": "都市Ⅱ-3", "city-4-0": "都市Ⅳ-0", "town-5-0": "町村Ⅴ-0", "town-1-2": "町村Ⅰ-2",
	} {
		if got := peerGroupName(code); got != want {
			t.Errorf("peerGroupName(%s) = %s, want %s", code, got, want)
		}
	}
	if n := len(peerGroupOrder()); n != 3+4*4+5*3 {
		t.Errorf("%d group codes, want 34", n)
	}
}

// TestCoreCities holds the manifest to the counts of 中核市 総務省 published: 45 when the 2015
// census was taken, 60 at the 2020 census (松本市 and 一宮市 followed on 2021-04-01), 62 since.
func TestCoreCities(t *testing.T) {
	cities, err := LoadCoreCities()
	if err != nil {
		t.Fatal(err)
	}
	count := func(day string) int {
		n := 0
		for _, c := range cities {
			if c.Designated <= day {
				n++
			}
		}
		return n
	}
	for day, want := range map[string]int{censusDay(2015): 45, "2017-01-01": 48, "2019-04-01": 58, censusDay(2020): 60, "2024-04-01": 62} {
		if got := count(day); got != want {
			t.Errorf("%d 中核市 on %s, want %d", got, day, want)
		}
	}
	codes := map[string]bool{}
	for _, c := range cities {
		if codes[c.Code] {
			t.Errorf("%s listed twice", c.Code)
		}
		codes[c.Code] = true
	}
}

// TestFixturePeerGroups classes the fixture's municipalities: 白鷺市 designated, 八王子市 a 中核市
// since 2015-04-01 (both censuses), 桜田区 a special ward, the others by their figures
// (fixtures.synth: workers 47 % of the population, primary 2 %×(1+i), secondary 22+3i %, 1 % not
// classified).
func TestFixturePeerGroups(t *testing.T) {
	res, log, err := buildFixture(t, fixtures.Default())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"01100": "designated_city",
		// 2020: 48,000 people; 22,560 workers: 902 primary, 5,640 secondary, 15,792 tertiary (95.96 %, 70.7 %)
		"01202": "city-1-3",
		// 6,789 people; 3,191 workers: 191, 893, 2,075 (93.95 %, 65.7 %)
		"01345": "town-2-2",
		"13101": "special_ward",
		"13201": "core_city",
		// 2,345 people; 1,102 workers: 132, 408, 551 (87.9 %, 50.5 %)
		"13307": "town-1-1",
	}
	for _, m := range res.Municipalities {
		if m.PeerGroup != want[m.Code] {
			t.Errorf("%s %s is in %q, want %q", m.Code, m.Name, m.PeerGroup, want[m.Code])
		}
	}
	var years []int
	for _, g := range res.Meta.PeerGroups {
		if len(years) == 0 || years[len(years)-1] != g.CensusYear {
			years = append(years, g.CensusYear)
		}
	}
	if !slices.Equal(years, []int{2020, 2015}) {
		t.Errorf("groups of census years %v, want 2020 then 2015", years)
	}
	if len(res.UnmatchedCoreCities) != 61 {
		t.Errorf("%d 中核市 unmatched, want all but 八王子市 (61)", len(res.UnmatchedCoreCities))
	}
	if !strings.Contains(log, "a 中核市 of core_cities.json is not in the code list") {
		t.Error("the unmatched 中核市 were not warned about")
	}
}

// TestFixturePeerGroupsFailLoudly: a municipality without the census figures its class needs
// fails the build, naming it and the year.
func TestFixturePeerGroupsFailLoudly(t *testing.T) {
	// the newest edition holding the 2015 census, without 霧野町's row
	drop := fixtures.WithMutate(func(file, _ string, rows [][]any) [][]any {
		if file != fixtures.PathSSDSEEdition(2021) {
			return rows
		}
		return slices.DeleteFunc(rows, func(row []any) bool { return row[0] == "R01345" })
	})
	_, _, err := buildFixture(t, fixtures.Default(), drop)
	if err == nil || !strings.Contains(err.Error(), "類似団体 of 01345 霧野町 in 2015: no census figure") {
		t.Errorf("build without 霧野町's census of 2015: %v, want a 類似団体 error naming it", err)
	}
}

// realPeers are municipalities classed by hand from the census figures of SSDSE-A (A1101 総人口,
// F2201/F2211/F2221 第1次/第2次/第3次産業就業者数): the 2020 census as SSDSE-A-2026 gives it, the
// 2015 census as SSDSE-A-2021 does (the newest editions holding them, which the build reads).
var realPeers = []struct {
	code, name   string
	year         int
	pop, p, s, t float64
	group        string // "" where the census counted no worker by industry
}{
	{"01100", "札幌市", 2020, 1973395, 3983, 115924, 697967, "designated_city"},
	{"11100", "さいたま市", 2020, 1324025, 4116, 104753, 465779, "designated_city"},
	{"13101", "千代田区", 2020, 66680, 6, 2355, 24875, "special_ward"},
	{"01202", "函館市", 2020, 251084, 3202, 17553, 84172, "core_city"},
	// 中核市 from 2015-04-01: one at the 2015 census already
	{"13201", "八王子市", 2015, 577513, 1576, 48616, 179322, "core_city"},
	// 中核市 from 2021-04-01 and 2016-04-01: 都市 at the census before; 91.5 % and 71.7 %; 97.2 %, 69.3 %
	{"20202", "松本市", 2020, 241145, 6061, 26923, 82328, "city-4-1"},
	{"34202", "呉市", 2015, 228552, 2940, 29443, 69401, "city-4-3"},
	// 98.5 %, 83.2 %
	{"14204", "鎌倉市", 2020, 172710, 528, 12010, 60949, "city-4-3"},
	// 95.0 %, 56.9 %
	{"23207", "豊川市", 2020, 184661, 4701, 36129, 53731, "city-4-2"},
	// 97.2 %, 94.0 %: 101,692 people
	{"27216", "河内長野市", 2020, 101692, 465, 8027, 31180, "city-3-3"},
	// 98.1 %, 60.0 %
	{"17203", "小松市", 2020, 106216, 1035, 20468, 32311, "city-3-2"},
	// near the 95 % boundary: 95.008 %, 68.1 %
	{"46218", "霧島市", 2020, 123135, 2657, 14656, 35911, "city-3-3"},
	// 99.7 %, 83.9 %
	{"28206", "芦屋市", 2020, 93922, 91, 5697, 30069, "city-2-3"},
	// 96.2 %, 48.9 %
	{"23209", "碧南市", 2020, 72458, 1386, 17797, 17629, "city-2-2"},
	// near the 50,000 boundary: 50,066 people; 97.7 %, 70.3 %
	{"11240", "幸手市", 2020, 50066, 499, 6075, 15694, "city-2-3"},
	// 49,968 people; 91.4 %, 69.6 %
	{"05202", "能代市", 2020, 49968, 1928, 4984, 15814, "city-1-1"},
	// 94.98 %, 82.1 %
	{"22219", "下田市", 2020, 20183, 485, 1230, 7940, "city-1-1"},
	// 86.2 %, 48.7 %
	{"07211", "田村市", 2020, 35169, 2437, 6872, 8748, "city-1-0"},
	// 99.2 %, 81.1 %
	{"47329", "西原町", 2020, 34984, 228, 2454, 11326, "town-5-2"},
	// 14,320 people in 2020 (Ⅲ), 86.4 %, 58.4 %; 15,826 in 2015 (Ⅳ), 86.6 %, 55.0 %
	{"03482", "山田町", 2020, 14320, 846, 2007, 3950, "town-3-2"},
	{"03482", "山田町", 2015, 15826, 967, 2474, 4171, "town-4-1"},
	// 91.0 %, 52.4 %
	{"10384", "甘楽町", 2020, 12491, 562, 2508, 3337, "town-3-1"},
	// 90.6 %, 77.5 %
	{"46525", "瀬戸内町", 2020, 8546, 318, 491, 2797, "town-2-2"},
	// 84.7 %, 48.8 %
	{"01424", "奈井江町", 2020, 5120, 391, 709, 1321, "town-2-1"},
	// 83.6 %, 48.2 %
	{"06367", "戸沢村", 2020, 4199, 320, 736, 1014, "town-1-1"},
	// 96.2 %, 69.2 %
	{"13402", "青ヶ島村", 2020, 169, 5, 36, 90, "town-1-2"},
	// 71.9 %, 55.0 %
	{"01638", "中札内村", 2020, 3884, 601, 301, 1135, "town-1-0"},
	// evacuated: 葛尾村 counted 420 people, classed by them (71.2 %); 双葉町 counted nobody in 2020
	// and 飯舘村 41 people but no worker in 2015: no group those years
	{"07548", "葛尾村", 2020, 420, 67, 52, 115, "town-1-0"},
	{"07546", "双葉町", 2020, 0, 0, 0, 0, ""},
	{"07564", "飯舘村", 2015, 41, 0, 0, 0, ""},
}

func TestRealPeerGroups(t *testing.T) {
	raw := testenv.Shared(t, "data/raw")
	cl := realCodeList(t, raw)
	editions := map[int]string{2020: "ssdse/SSDSE-A-2026.csv", 2015: "ssdse/SSDSE-A-2021.csv"}
	tables := map[int]*Table{}
	for year, path := range editions {
		f, err := os.Open(filepath.Join(raw, path))
		if err != nil {
			t.Fatal(err)
		}
		tb, err := ParseSSDSE(path, f, cl)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, col := range []string{colPopulation, colPrimary, colSecondary, colTertiary} {
			if tb.Years[col] != strconv.Itoa(year) {
				t.Fatalf("%s writes %s as of %s, want %d", path, col, tb.Years[col], year)
			}
		}
		tables[year] = tb
	}
	for _, tc := range realPeers {
		tb := tables[tc.year]
		for col, want := range map[string]float64{colPopulation: tc.pop, colPrimary: tc.p, colSecondary: tc.s, colTertiary: tc.t} {
			if c := tb.Get(tc.code, col); c.Missing != "" || c.V != want {
				t.Errorf("%s %s %d: %s is %+v in %s, the table has %v", tc.code, tc.name, tc.year, col, c, tb.File, want)
			}
		}
	}

	res, err := Build(raw, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.UnmatchedCoreCities) > 0 {
		t.Errorf("中核市 not in the code list under their code and name: %v", res.UnmatchedCoreCities)
	}
	groupOf := map[int]map[string]string{}
	sizes := map[int]map[string]int{}
	for _, g := range res.Meta.PeerGroups {
		if groupOf[g.CensusYear] == nil {
			groupOf[g.CensusYear], sizes[g.CensusYear] = map[string]string{}, map[string]int{}
		}
		sizes[g.CensusYear][g.Code] = len(g.Members)
		for _, m := range g.Members {
			if prev, dup := groupOf[g.CensusYear][m]; dup {
				t.Errorf("%s is in %s and %s in %d", m, prev, g.Code, g.CensusYear)
			}
			groupOf[g.CensusYear][m] = g.Code
		}
	}
	for _, tc := range realPeers {
		if got := groupOf[tc.year][tc.code]; got != tc.group {
			t.Errorf("%s %s in %d: group %q, want %q", tc.code, tc.name, tc.year, got, tc.group)
		}
	}
	for year, want := range map[int]map[string]int{
		2020: {"designated_city": 20, "core_city": 60, "special_ward": 23},
		2015: {"designated_city": 20, "core_city": 45, "special_ward": 23},
	} {
		for code, n := range want {
			if sizes[year][code] != n {
				t.Errorf("%s has %d members in %d, want %d", code, sizes[year][code], year, n)
			}
		}
	}
	// every municipality has a group by the latest census but 双葉町, which it counted empty
	for _, m := range res.Municipalities {
		if (m.PeerGroup == "") != (m.Code == "07546") {
			t.Errorf("%s %s: group %q by the latest census", m.Code, m.Name, m.PeerGroup)
		}
		if m.PeerGroup != groupOf[2020][m.Code] {
			t.Errorf("%s %s: group %q, the 2020 groups list it in %q", m.Code, m.Name, m.PeerGroup, groupOf[2020][m.Code])
		}
	}
	if first := res.Meta.PeerGroups[0]; first.CensusYear != 2020 || first.Name != "政令指定都市" {
		t.Errorf("first group %+v, want 2020's 政令指定都市", first)
	}
}
