package site

import (
	"bytes"
	"compress/gzip"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hensachi/hensachi/geo"
	"github.com/hensachi/hensachi/internal/testrig/realdata"
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

// TestMapSpecksOnRealData measures every municipality of every map as drawn from the real
// boundaries where the map is seen smallest (a phone: 366 px of a 390 px screen for the maps, 320
// for a locator; drawnMap.PxPerUnit): a municipality is a speck when every ring of its path is
// under speckPx both ways. No prefecture map or locator has one, in its main part or an inset.
// The national map fits 1,741 municipalities in 366 px and has hundreds of specks among their
// neighbours (the wards of a city, the towns around it: the prefecture's map and the table show
// them); an island, sharing no border, has nothing around it to be seen by, and is never one.
// The municipalities that were specks before the insets are the set the insets hold: 沖縄's
// islands and the towns of 沖縄本島, Tokyo's islands, and on the national map the islands of
// 伊豆, 隠岐, 粟島, the Inland Sea, 五島, 三島 and the south-west.
func TestMapSpecksOnRealData(t *testing.T) {
	c := realdata.Catalog(t, "https://hensachi.example")
	b, err := c.Boundaries()
	if err != nil {
		t.Fatal(err)
	}
	set := drawnMaps.Of(c)
	check := func(name string, d *drawnMap, l geo.Layer, islandsOnly bool) {
		t.Helper()
		wantPx := phoneMapWidth
		if strings.HasPrefix(name, "mini") {
			wantPx = locatorWidth
		}
		if px := min(float64(wantPx)/float64(d.W), phoneMapHeight/float64(d.H)); math.Abs(px-d.PxPerUnit) > 1e-9 {
			t.Errorf("%s: %.4f px a unit, want %.4f", name, d.PxPerUnit, px)
		}
		alone := isolated(l, d.Rows)
		specks := 0
		for n, i := range d.Rows {
			most := 0.0
			for _, r := range ringBoxes(t, d.Paths[n]) {
				most = max(most, r.w(), r.h())
			}
			if most*d.PxPerUnit >= speckPx {
				continue
			}
			specks++
			if !islandsOnly || alone[i] {
				m := c.Row(i)
				t.Errorf("%s: %s %s is %.1f px across", name, m.Code, m.Name, most*d.PxPerUnit)
			}
		}
		t.Logf("%s: %d specks among neighbours", name, specks)
	}
	check("national", set.national(), b.Coarse, true)
	for _, p := range c.Meta.Prefectures {
		check("prefecture "+p.Code, set.prefs[p.Code](), b.Fine, false)
		check("mini "+p.Code, set.mini[p.Code](), b.Coarse, false)
	}
}

// ringBoxes reads path data into the box of each ring.
func ringBoxes(t *testing.T, d string) []rect {
	t.Helper()
	var out []rect
	for _, ring := range rings(t, d) {
		r := rect{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
		for _, p := range ring {
			r = rect{min(r.X0, float64(p[0])), min(r.Y0, float64(p[1])), max(r.X1, float64(p[0])), max(r.Y1, float64(p[1]))}
		}
		out = append(out, r)
	}
	return out
}

// rings reads path data as pathData writes it (per ring M x y, then l and relative pairs, then z)
// into each ring's corners.
func rings(t *testing.T, d string) [][][2]int {
	t.Helper()
	number := regexp.MustCompile(`-?\d+`)
	var out [][][2]int
	for ring := range strings.SplitSeq(strings.TrimSuffix(d, "z"), "z") {
		var v []int
		for _, s := range number.FindAllString(ring, -1) {
			n, err := strconv.Atoi(s)
			if err != nil {
				t.Fatal(err)
			}
			v = append(v, n)
		}
		if len(v) < 2 || len(v)%2 != 0 || ring[0] != 'M' {
			t.Fatalf("ring %q", ring)
		}
		pts := [][2]int{{v[0], v[1]}}
		for k := 2; k < len(v); k += 2 {
			last := pts[len(pts)-1]
			pts = append(pts, [2]int{last[0] + v[k], last[1] + v[k+1]})
		}
		out = append(out, pts)
	}
	return out
}

// TestMapInsetsOnRealData: the remote islands are inset on the national map, the prefecture maps
// and the locators, each in a labelled frame that holds them and lies over no other part of the
// map; the municipalities of an inset keep their links and colours on the page's map.
func TestMapInsetsOnRealData(t *testing.T) {
	c := realdata.Catalog(t, "https://hensachi.example")
	set := drawnMaps.Of(c)
	for _, tc := range []struct {
		name string
		d    *drawnMap
		held map[string][]string // label: municipalities it holds whole
	}{
		{"national", set.national(), map[string][]string{"沖縄県・奄美群島など": {"47382", "47357", "46304", "46535"}, "小笠原村": {"13421"}}},
		{"東京都", set.prefs["13"](), map[string][]string{"伊豆諸島": {"13361", "13402"}, "小笠原村": {"13421"}}},
		{"長崎県", set.prefs["42"](), map[string][]string{"五島列島": {"42211", "42383", "42411"}, "対馬・壱岐": {"42209", "42210"}}},
		{"長崎県 locator", set.mini["42"](), map[string][]string{"五島列島": {"42211"}, "対馬・壱岐": {"42209"}}},
		{"鹿児島県", set.prefs["46"](), map[string][]string{"三島村": {"46303"}, "十島村": {"46304"}, "奄美群島": {"46222", "46535"}}},
		{"鹿児島県 locator", set.mini["46"](), map[string][]string{"三島村": {"46303"}, "十島村": {"46304"}, "奄美群島": {"46535"}}},
		{"沖縄県", set.prefs["47"](), map[string][]string{"宮古・八重山": {"47214", "47375", "47381", "47382"}, "大東諸島": {"47357", "47358"}}},
		{"沖縄県 locator", set.mini["47"](), map[string][]string{"宮古・八重山": {"47382"}, "大東諸島": {"47357"}}},
	} {
		frames := map[string]rect{}
		for _, f := range tc.d.Frames {
			frames[f.Label] = rect{float64(f.X), float64(f.Y), float64(f.X + f.W), float64(f.Y + f.H)}
			if f.X < 0 || f.Y < 0 || f.X+f.W > tc.d.W || f.Y+f.H > tc.d.H {
				t.Errorf("%s: %s's frame %v off the map %d × %d", tc.name, f.Label, f, tc.d.W, tc.d.H)
			}
		}
		held := map[string]string{} // code: its inset
		for label, codes := range tc.held {
			if _, ok := frames[label]; !ok {
				t.Errorf("%s: no inset %s (%v)", tc.name, label, tc.d.Frames)
			}
			for _, code := range codes {
				held[code] = label
			}
		}
		// a part is inside one frame or clear of them all; a municipality with a part in a frame
		// is inset whole (none shares a frame and the main map), in its inset if named
		for n, i := range tc.d.Rows {
			code := c.Row(i).Code
			in, out := map[string]bool{}, 0
			for _, ring := range rings(t, tc.d.Paths[n]) {
				clear := true
				for label, f := range frames {
					within := 0
					for _, p := range ring {
						if float64(p[0]) >= f.X0 && float64(p[0]) <= f.X1 && float64(p[1]) >= f.Y0 && float64(p[1]) <= f.Y1 {
							within++
						}
					}
					if within > 0 {
						clear = false
						if in[label] = true; within < len(ring) {
							t.Errorf("%s: %s's part %v straddles the inset %s %v", tc.name, code, ring, label, f)
						}
					}
				}
				if clear {
					out++
				}
			}
			switch label := held[code]; {
			case label != "" && (out > 0 || len(in) != 1 || !in[label]):
				t.Errorf("%s: %s is not all in %s: %d parts outside, in %v", tc.name, code, label, out, in)
			case len(in) > 0 && out > 0:
				t.Errorf("%s: %s has parts both in %v and on the main map", tc.name, code, in)
			}
		}
	}
	s := newRealSite(t, "https://hensachi.example")
	_, body := s.get(t, "/town/map?m=income&pref=47")
	for _, want := range []string{`<text x=`, ">宮古・八重山</text>", ">大東諸島</text>"} {
		if !strings.Contains(body, want) {
			t.Errorf("沖縄県's map: no %q", want)
		}
	}
	if m := regexp.MustCompile(`<a href=municipalities/47382 class=c[0-6]><path d="M[^"]+"><title>与那国町（沖縄県）[^<]+、全国 [0-9,]+ 位、沖縄県内 [0-9,]+ 位</title>`).FindString(body); m == "" {
		t.Error("沖縄県's map: 与那国町 without its link, colour or ranks")
	}
}

// TestMapBandsOnRealData: Tokyo's map of income reads its colours against Tokyo's own
// distribution unless asked for the country's, and says which: with the country's bands the 23
// wards share one or two colours, with Tokyo's they spread over several.
func TestMapBandsOnRealData(t *testing.T) {
	s := newRealSite(t, "https://hensachi.example")
	classes := func(path string) (map[string]string, string) {
		t.Helper()
		status, body := s.get(t, path)
		if status != 200 {
			t.Fatalf("%s: %d", path, status)
		}
		got := map[string]string{}
		for _, m := range mapPath.FindAllStringSubmatch(body, -1) {
			got[m[1]] = m[2]
		}
		return got, body
	}
	wardColours := func(got map[string]string) map[string]bool {
		colours := map[string]bool{}
		for ward := 13101; ward <= 13123; ward++ {
			colours[got[strconv.Itoa(ward)]] = true
		}
		return colours
	}
	own, body := classes("/town/map?m=income&pref=13")
	if n := len(wardColours(own)); n < 4 {
		t.Errorf("Tokyo's bands: the 23 wards in %d colours, want 4 or more: %v", n, wardColours(own))
	}
	for _, want := range []string{"色の段階は東京都の分布で分けています", `<option value="pref" selected>東京都内の分布</option>`, "値の範囲<span class=nb>（東京都）"} {
		if !strings.Contains(body, want) {
			t.Errorf("Tokyo's bands: no %q", want)
		}
	}
	national, body := classes("/town/map?m=income&pref=13&bands=national")
	if n := len(wardColours(national)); n > 2 {
		t.Errorf("national bands: the 23 wards in %d colours, as the national map has them in one or two", n)
	}
	for _, want := range []string{"色の段階は全国の分布で分けています", `<option value="national" selected>全国の分布</option>`, "値の範囲<span class=nb>（全国）"} {
		if !strings.Contains(body, want) {
			t.Errorf("national bands: no %q", want)
		}
	}
	whole, _ := classes("/town/map?m=income")
	differ := 0
	for code, class := range national {
		if whole[code] != class {
			t.Errorf("%s: %s on Tokyo's map in national bands, %s on the national map", code, class, whole[code])
		}
		if own[code] != class {
			differ++
		}
	}
	if differ < len(own)/3 {
		t.Errorf("Tokyo's own bands change %d of %d colours", differ, len(own))
	}
}

// tableRow matches a row of a map's table: the code and name, the value with its unit, the rank
// in the prefecture (a prefecture's map) and the national rank.
var tableRow = regexp.MustCompile(`<tr><th scope=row><a href=municipalities/(\d{5})>([^<]+)</a>(?: <small>[^<]+</small>)?</th><td class=n>([^<]+)</td>(?:<td class=n>([^<]+)</td>)?<td class=n>([^<]+)</td></tr>`)

// TestMapTableOnRealData: the table under a map gives exactly the municipalities the map draws,
// each with the value and ranks its shape's title gives, in the order asked for; the national
// map's is paged (mapTableRows), its pages together every municipality once.
func TestMapTableOnRealData(t *testing.T) {
	s := newRealSite(t, "https://hensachi.example")
	c, err := s.catalogs.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	title := regexp.MustCompile(`^[^（]+（[^）]+）(.+?)(?:、全国 ([0-9,]+) 位(?:、.+内 ([0-9,]+) 位)?)?$`)
	read := func(path string) (drawn map[string][]string, rows [][]string) {
		t.Helper()
		status, body := s.get(t, path)
		if status != 200 {
			t.Fatalf("%s: %d", path, status)
		}
		if !strings.Contains(body, `<details id="values"`) || !strings.Contains(body, "<caption>") {
			t.Fatalf("%s: no table of values", path)
		}
		drawn = map[string][]string{}
		for _, m := range mapPath.FindAllStringSubmatch(body, -1) {
			v := title.FindStringSubmatch(m[3])
			if v == nil {
				t.Fatalf("%s: title %q", path, m[3])
			}
			if v[1] == "値なし" {
				v[1], v[2] = "—", "—"
			}
			if v[3] == "" {
				v[3] = "—"
			}
			drawn[m[1]] = v[1:]
		}
		return drawn, tableRow.FindAllStringSubmatch(body, -1)
	}
	same := func(path string, drawn map[string][]string, rows [][]string) {
		t.Helper()
		for _, r := range rows {
			want, ok := drawn[r[1]]
			got := []string{r[3], r[5], r[4]}
			if r[4] == "" {
				got[2] = "—"
			}
			if !ok || strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("%s: row %s %s: %q, map %q", path, r[1], r[2], got, want)
			}
		}
	}
	for _, path := range []string{"/town/map?m=income&pref=13", "/town/map?m=recycle&pref=01&sort=name", "/town/map?m=unemployment_rate&pref=47&sort=code"} {
		drawn, rows := read(path)
		if len(rows) != len(drawn) {
			t.Errorf("%s: %d rows, %d municipalities drawn", path, len(rows), len(drawn))
		}
		same(path, drawn, rows)
		for k := 1; k < len(rows); k++ {
			a, b := c.Row(c.Index(rows[k-1][1])), c.Row(c.Index(rows[k][1]))
			switch {
			case strings.Contains(path, "sort=name") && a.Kana > b.Kana,
				strings.Contains(path, "sort=code") && a.Code > b.Code:
				t.Errorf("%s: %s before %s", path, a.Name, b.Name)
			}
		}
	}
	seen := map[string]int{}
	rank := 0
	pages := (c.Len() + mapTableRows - 1) / mapTableRows
	for n := 1; n <= pages; n++ {
		path := "/town/map?m=income&page=" + strconv.Itoa(n)
		drawn, rows := read(path)
		if len(rows) != min(mapTableRows, c.Len()-(n-1)*mapTableRows) {
			t.Errorf("%s: %d rows", path, len(rows))
		}
		same(path, drawn, rows)
		for _, r := range rows {
			seen[r[1]]++
			got, _ := strconv.Atoi(strings.ReplaceAll(r[5], ",", ""))
			if got < rank {
				t.Errorf("%s: %s ranked %d after %d", path, r[1], got, rank)
			}
			rank = got
		}
	}
	if len(seen) != c.Len() {
		t.Errorf("the national table's pages give %d municipalities, want %d", len(seen), c.Len())
	}
	if status, _ := s.get(t, "/town/map?m=income&page="+strconv.Itoa(pages+1)); status != 400 {
		t.Errorf("page %d of %d: %d", pages+1, pages, status)
	}
}

// TestLocatorRingOnRealData: a municipality's page rings it on its prefecture's map when it is
// small there (与那国町, an island in an inset; 与那原町, the smallest town of 沖縄本島), around
// what it draws; a large one (名護市) stands out without.
func TestLocatorRingOnRealData(t *testing.T) {
	s := newRealSite(t, "https://hensachi.example")
	c, err := s.catalogs.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	ring := regexp.MustCompile(`<circle class=ring cx=(\d+) cy=(\d+) r=(\d+) />`)
	for code, want := range map[string]bool{"47382": true, "47348": true, "13362": true, "47209": false, "01100": false} {
		_, body := s.get(t, "/town/municipalities/"+code)
		m := ring.FindStringSubmatch(body)
		if (m != nil) != want {
			t.Errorf("%s: ring %v, want %v", code, m, want)
			continue
		}
		if m == nil {
			continue
		}
		d := drawnMaps.Of(c).mini[code[:2]]()
		n := slices.Index(d.Rows, c.Index(code))
		box := d.Boxes[n]
		cx, _ := strconv.ParseFloat(m[1], 64)
		cy, _ := strconv.ParseFloat(m[2], 64)
		r, _ := strconv.ParseFloat(m[3], 64)
		for _, corner := range [][2]float64{{box.X0, box.Y0}, {box.X1, box.Y0}, {box.X0, box.Y1}, {box.X1, box.Y1}} {
			if math.Hypot(corner[0]-cx, corner[1]-cy) >= r {
				t.Errorf("%s: ring %v does not go round %v", code, m[1:], box)
			}
		}
		if across := max(box.w(), box.h()) * d.PxPerUnit; across >= ringBelowPx {
			t.Errorf("%s: ringed at %.1f px across", code, across)
		}
	}
}
