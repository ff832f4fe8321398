package site

import (
	"bytes"
	"compress/gzip"
	"regexp"
	"strings"
	"testing"
)

// mapPath matches one municipality of a map: its link, colour class (c0–c6, or nv: no value;
// quoted with t beside it for a shape drawn without outline, thin), path and title.
var mapPath = regexp.MustCompile(`<a href=municipalities/(\d{5}) class="?(c[0-6]|nv)(?: t")?><path d="M[-0-9 Mlz]+"><title>([^<]+)</title></path></a>`)

// TestMapPagesOnRealData draws the real maps within their budgets: the national map under 400 KB
// and every prefecture's under 200 KB, uncompressed, each municipality of the country or the
// prefecture exactly once with its link and title, both credits, and the municipalities without
// a value hatched and listed.
func TestMapPagesOnRealData(t *testing.T) {
	s := newRealSite(t, "https://hensachi.example")
	c, err := s.catalogs.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	const national, prefecture = 400_000, 200_000
	check := func(path string, budget int, codes []string) int {
		t.Helper()
		status, body := s.get(t, path)
		if status != 200 {
			t.Fatalf("%s: %d %s", path, status, body)
		}
		if len(body) > budget {
			t.Errorf("%s: %d bytes, budget %d", path, len(body), budget)
		}
		seen := map[string]int{}
		hatched := 0
		for _, m := range mapPath.FindAllStringSubmatch(body, -1) {
			seen[m[1]]++
			if m[2] == "nv" {
				hatched++
				if !strings.Contains(m[3], "値なし") || !strings.Contains(body, `<li><a href="/town/municipalities/`+m[1]+`">`) {
					t.Errorf("%s: %s hatched but not listed as without a value", path, m[1])
				}
			} else if !strings.Contains(m[3], "、全国 ") {
				t.Errorf("%s: title %q has no rank", path, m[3])
			}
		}
		for _, code := range codes {
			if seen[code] != 1 {
				t.Errorf("%s: %s drawn %d times", path, code, seen[code])
			}
		}
		if len(seen) != len(codes) {
			t.Errorf("%s: %d municipalities drawn, want %d", path, len(seen), len(codes))
		}
		for _, credit := range []string{"出典：国土交通省国土数値情報（行政区域データ）を加工して作成", c.Meta.Source.Name} {
			if !strings.Contains(body, credit) {
				t.Errorf("%s: no credit %q", path, credit)
			}
		}
		return len(body)
	}
	var all []string
	for i := range c.Len() {
		all = append(all, c.Row(i).Code)
	}
	t.Logf("national map of income: %d bytes", check("/town/map?m=income", national, all))
	t.Logf("national map of an indicator with gaps: %d bytes", check("/town/map?m=recycle", national, all))
	// the maps of a change: a fall of unemployment blue; the population's change in PuOr, no better side
	t.Logf("national map of a change: %d bytes", check("/town/map?m=unemployment_rate&from=2015&to=2020", national, all))
	check("/town/map?m=population&from=2015&to=2020", national, all)
	for path, budget := range map[string]int{
		"/town/map?m=population&from=2015&to=2020&pref=13":      prefecture,
		"/town/indicators/unemployment_rate?from=2015&to=2020":  60 << 10, // gzipped, as every new page
		"/town/indicators/population?from=2015&to=2020&pref=07": 60 << 10,
	} {
		status, body := s.get(t, path)
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		w.Write([]byte(body))
		w.Close()
		if status != 200 || z.Len() > budget {
			t.Errorf("%s: %d, %d bytes gzipped, budget %d", path, status, z.Len(), budget)
		}
		t.Logf("%s: %d bytes, %d gzipped", path, len(body), z.Len())
	}
	largest, largestPref := 0, ""
	for _, p := range c.Meta.Prefectures {
		var codes []string
		for _, m := range c.InPrefecture(p.Code) {
			codes = append(codes, m.Code)
		}
		if n := check("/town/map?m=income&pref="+p.Code, prefecture, codes); n > largest {
			largest, largestPref = n, p.Name
		}
	}
	t.Logf("largest prefecture map: %s, %d bytes", largestPref, largest)
}

// BenchmarkMapPages measures the server time of the national map and of a prefecture's (the
// first request of a dataset version draws the geometry, the benchmark's loop measures the
// colouring and writing that every request does), as a ratio to the municipality page timed in
// the same run (x-municipality), and reports their weights.
func BenchmarkMapPages(b *testing.B) {
	benchmarkPages(b, []benchPage{
		{"national", "/town/map?m=income"},
		{"national-indicator", "/town/map?m=births_per_1000"},
		{"hokkaido", "/town/map?m=income&pref=01"},
		{"hyogo", "/town/map?m=income&pref=28"},
	})
}

// TestMapSelectNamesOnRealData: the map's select never shows one name twice: the indicators named
// as a statistic (総人口, 単独世帯の割合, 完全失業率, 第1次産業就業者の割合, 財政力指数) say they are
// indicators, with their years.
func TestMapSelectNamesOnRealData(t *testing.T) {
	s := newRealSite(t, "https://hensachi.example")
	status, body := s.get(t, "/town/map")
	if status != 200 {
		t.Fatalf("/town/map: %d", status)
	}
	option := regexp.MustCompile(`<option value="?[a-z0-9_@]+"?(?: selected)?>([^<]+)`)
	seen := map[string]int{}
	for _, m := range option.FindAllStringSubmatch(body, -1) {
		seen[m[1]]++
	}
	if len(seen) < 300 {
		t.Fatalf("%d names in the select: the pattern misses the options", len(seen))
	}
	for name, n := range seen {
		if n > 1 {
			t.Errorf("%q shown %d times", name, n)
		}
	}
	if seen["総人口（指標、2015〜2020）"] != 1 {
		t.Error("the indicator 総人口 does not say it is one, with its census years")
	}
}
