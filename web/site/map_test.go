package site

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/towntest"
	"github.com/hensachi/hensachi/town"
)

// TestMapPage draws the test catalog's maps: each municipality once with its link, class and
// title, the one without a value hatched and listed, the legend, both credits; bad parameters are
// refused as on every page.
func TestMapPage(t *testing.T) {
	router := siteRouter(t)
	drawn := regexp.MustCompile(`<a href=municipalities/(\d{5}) class="?(c[0-6]|nv)(?: t")?><path d="M[-0-9 Mlz]+"><title>([^<]+)</title></path></a>`)
	for _, tc := range []struct {
		path         string
		status       int
		codes        string // drawn, in order; the hatched ones marked *
		want, absent []string
	}{
		{"/town/map", 200, "01100 01202 01345 13101 13102", []string{"所得の地図", "札幌市（北海道）9.0 万円、全国 1 位", `<option value="income" selected>`,
			"出典：テスト境界を加工して作成", "テスト統計", `<link rel="canonical" href="https://hensachi.example/town/map?m=income">`, `<span class="sw c6">`},
			[]string{`id="missing-list"`, `id="year"`, `id="bands"`}},
		{"/town/map?m=young", 200, "01100 01202 01345* 13101 13102", []string{`id="missing-list"`, `<li><a href="/town/municipalities/01345">札内町</a>`,
			"札内町（北海道）値なし", "国勢調査（2020年）"}, nil},
		{"/town/map?m=young&pref=13", 200, "13101 13102", []string{"若さの地図 <small>東京都</small>", `<option value="13" selected>`, `href="/town/map?m=young"`,
			`<option value="pref" selected>東京都内の分布</option>`, "色の段階は東京都の分布で", "、東京都内 1 位</title>",
			`<details id="values"><summary>地図の値の表（2 市区町村）</summary>`, "<caption>若さの値と順位（東京都、順位順、2 市区町村）</caption>",
			`<th scope="col" class="n">東京都内順位</th>`, `<a href="/town/map?m=young&amp;pref=13&amp;sort=name#values">50 音順</a>`},
			[]string{`id="missing-list"`, `class="pager"`}},
		{"/town/map?m=young&pref=13&bands=national&sort=code", 200, "13101 13102", []string{`<option value="national" selected>全国の分布</option>`,
			"色の段階は全国の分布で", `<details id="values" open>`, `<strong aria-current="true">地域順</strong>`,
			`<a href="/town/map?bands=national&amp;m=young&amp;pref=13#values">順位順</a>`}, nil},
		{"/town/map?pref=13&bands=nation", 400, "", []string{"bands には pref、national のどれかを"}, nil},
		{"/town/map?sort=size", 400, "", []string{"sort には rank、name、code のどれかを"}, nil},
		{"/town/map?page=2", 400, "", []string{"page には 1 から 1 までの整数を"}, nil},
		{"/town/map?m=births_per_1000@2020", 200, "01100 01202 01345* 13101 13102", []string{"出生率（人口千人当たり）（2020年）の地図", `<option selected>2020</option>`,
			`<option value="births_per_1000" selected>`, "指標：人口・世帯", "人口動態統計"}, nil},
		{"/town/map?m=births_per_1000&year=2020", 200, "01100 01202 01345* 13101 13102", []string{"（2020年）の地図",
			`href="https://hensachi.example/town/map?m=births_per_1000%402020"`}, nil},
		{"/town/map?m=pop", 200, "01100 01202 01345* 13101 13102", []string{"総人口の地図", " 人、全国 "}, nil},
		// the change 2020→2023 (step 0.2 ‰): 札幌市 -0.40 two steps down, 中央区 +0.35 one up, 札内町 without 2020
		{"/town/map?m=births_per_1000&from=2020&to=2023", 200, "01100 01202 01345* 13101 13102", []string{"出生率（人口千人当たり）の変化（2020→2023年）の地図",
			"中央区（東京都）+0.35 ‰、全国 1 位", "札幌市（北海道）-0.40 ‰、全国 4 位", `01100 class=c1>`, `13102 class=c4>`,
			`<th scope="col">変化（‰）</th>`, "<td class=\"nb\">-0.20〜&#43;0.20</td>", "<span class=nb>+0.35 ‰</span>", `<select id="from" name="from"><option value="">—</option><option selected>2020</option>`,
			"0（変化なし）を中心に", "増えた（良くなった）市区町村を青", `href="/town/indicators/births_per_1000?from=2020&amp;to=2023">変化のランキング</a>`,
			`href="https://hensachi.example/town/map?m=births_per_1000&amp;from=2020&amp;to=2023"`}, []string{`id="year"`}},
		{"/town/map?m=births_per_1000@2023", 200, "01100 01202 01345 13101 13102", []string{`<select id="from" name="from"><option value="">—</option><option>2020</option>`}, nil},
		{"/town/map?m=income&from=2020&to=2023", 400, "", []string{"from と to は指標のキー"}, nil},
		{"/town/map?m=births_per_1000&to=2023", 400, "", []string{"from と to の両方"}, nil},
		{"/town/map?m=births_per_1000&year=2020&from=2020&to=2023", 400, "", []string{"year と from・to"}, nil},
		{"/town/map?m=nope", 400, "", []string{"m には"}, nil},
		{"/town/map?m=income&year=2020", 400, "", []string{"year は指標のキー"}, nil},
		{"/town/map?m=births_per_1000&year=1999", 400, "", []string{"この指標の年は"}, nil},
		{"/town/map?pref=99", 400, "", []string{"都道府県コード 99 はありません"}, nil},
		// one 類似団体 coloured, the others grey
		{"/town/map?peer_group=special_ward", 200, "13101 13102", []string{`id="peer-note"`, "特別区（2020年国勢調査による類似団体、2 市区町村）",
			`<option value="special_ward" selected>特別区（2）</option>`, `<a href=municipalities/01100 class=rest><path`, "札幌市（北海道）類似団体の外"}, nil},
		{"/town/map?peer_group=nope", 400, "", []string{"「nope」という類似団体はありません"}, nil},
		// a change's map colours one group too; the table's links keep it
		{"/town/map?m=births_per_1000&from=2020&to=2023&peer_group=special_ward", 200, "13101 13102", []string{`id="peer-note"`,
			`<option value="special_ward" selected>特別区（2）</option>`, `<a href=municipalities/01202 class=rest><path`, "函館市（北海道）類似団体の外"}, nil},
		{"/town/map?m=young&peer_group=special_ward", 200, "13101 13102", []string{`href="/town/map?m=young&amp;peer_group=special_ward&amp;sort=name#values"`}, nil},
	} {
		t.Run(tc.path, func(t *testing.T) {
			status, body := getPage(t, router, tc.path)
			if status != tc.status {
				t.Fatalf("status %d, want %d: %.300s", status, tc.status, body)
			}
			var codes []string
			for _, m := range drawn.FindAllStringSubmatch(body, -1) {
				if m[2] == "nv" {
					m[1] += "*"
				}
				codes = append(codes, m[1])
			}
			if got := strings.Join(codes, " "); got != tc.codes {
				t.Errorf("drawn %q, want %q", got, tc.codes)
			}
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("no %q", w)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(body, a) {
					t.Errorf("has %q", a)
				}
			}
		})
	}
}

// TestMapLegend: each class gives the values it holds in the measure's units; the test catalog's
// five scores 55, 50, 45, 40, 35 fall in classes 4, 3, 3, 2, 1.
func TestMapLegend(t *testing.T) {
	c := towntest.Catalog()
	st := standing{values: make([]hensachi.Optional[float64], c.Len())}
	st.Hensachi = []float64{62, 50, 48, 41, 30}
	for i, v := range []float64{900, 500, 450.5, 300, 100} {
		st.values[i] = hensachi.Some(v)
	}
	st.values[2] = hensachi.Optional[float64]{}
	got := st.legend(hensachi.Field{Unit: "円", Decimals: 1})
	nb := `<span class=nb>`
	want := []string{"35 未満:" + nb + "100.0 円</span>:1", "35〜40:—:0", "40〜45:" + nb + "300.0 円</span>:1", "45〜55:" + nb + "500.0 円</span>:1", "55〜60:—:0",
		"60〜65:" + nb + "900.0 円</span>:1", "65 以上:—:0"}
	for k, l := range got {
		if s := l.Range + ":" + string(l.Values) + ":" + itoa(l.Municipalities); s != want[k] {
			t.Errorf("class %d: %s, want %s", k, s, want[k])
		}
	}
	st.Hensachi[0], st.Hensachi[1] = 42, 44
	if l := st.legend(hensachi.Field{Unit: "円"})[2]; string(l.Values) != "300 〜 "+nb+"900 円</span>" { // a line may break at 〜
		t.Errorf("class 2 holding three: %s", l.Values)
	}
}

// TestChangeScale: a change map's classes are whole steps either side of zero, the better side
// up (a fall where less is better), the step a round number near a third of the 90th percentile.
func TestChangeScale(t *testing.T) {
	values := []hensachi.Optional[float64]{}
	for _, v := range []float64{-7, -3.2, -1, 0, 0.4, 2, 5, 12, 30, -60} {
		values = append(values, hensachi.Some(v))
	}
	values = append(values, hensachi.Optional[float64]{})
	sc := newChangeScale(values, 1, false) // sizes' 90th percentile 30: a step of 10
	if sc.step != 10 {
		t.Fatalf("step %v, want 10", sc.step)
	}
	for _, tc := range []struct {
		v           float64
		higher, low int
	}{{0, 3, 3}, {9.9, 3, 3}, {-9.9, 3, 3}, {10, 4, 2}, {-10, 2, 4}, {25, 5, 1}, {30, 6, 0}, {-45, 0, 6}} {
		if got := sc.class(tc.v); got != tc.higher {
			t.Errorf("class(%v) = %d, want %d", tc.v, got, tc.higher)
		}
		if got := (changeScale{step: 10, lowerBetter: true}).class(tc.v); got != tc.low {
			t.Errorf("where less is better, class(%v) = %d, want %d", tc.v, got, tc.low)
		}
	}
	if got := sc.ranges(0); got[0] != "-30 以下" || got[3] != "-10〜+10" || got[6] != "+30 以上" {
		t.Errorf("ranges %q", got)
	}
	if got := (changeScale{step: 10, lowerBetter: true}).ranges(0); got[6] != "-30 以下" || got[0] != "+30 以上" {
		t.Errorf("ranges where less is better %q", got)
	}
	for x, want := range map[float64]float64{0.11: 0.2, 0.3: 0.5, 2.4: 2.5, 3: 5, 7: 10, 0.001: 0.001} {
		if got := roundStep(x); math.Abs(got-want) > 1e-12 {
			t.Errorf("roundStep(%v) = %v, want %v", x, got, want)
		}
	}
	if sc := newChangeScale(values[:1], 2, false); sc.step != 2.5 { // a third of 7, rounded up
		t.Errorf("one value: step %v", sc.step)
	}
}

func itoa(n int) string { return strings.TrimSpace(number(float64(n), 0)) }

// TestMapsOff: without boundaries the map page says why, as a 503, and the other pages stay,
// the municipality page without its map.
func TestMapsOff(t *testing.T) {
	towns := towntest.Municipalities()
	bare := town.New(towns, towntest.Meta(), "v2", towntest.PublicURL)
	s, err := New(Deps{Catalogs: staticCatalogs{bare}, PublicURL: towntest.PublicURL})
	if err != nil {
		t.Fatal(err)
	}
	router := httprouter.New()
	s.Routes(router.Handle)
	for path, want := range map[string]struct {
		status int
		text   string
	}{
		"/town/map":                  {503, "地図は利用できません"},
		"/town/municipalities/01100": {200, "札幌市"},
		"/":                          {200, "/town/map?m=income"},
	} {
		status, body := getPage(t, router, path)
		if status != want.status || !strings.Contains(body, want.text) || strings.Contains(body, `id="pref-map"`) {
			t.Errorf("%s: %d, want %d with %q: %.300s", path, status, want.status, want.text, body)
		}
	}
}

// TestMapLinks: the landing, ranking, prefecture and municipality pages link to the maps, and the
// municipality page draws its prefecture with itself picked out.
func TestMapLinks(t *testing.T) {
	router := siteRouter(t)
	for path, want := range map[string][]string{
		"/":                            {`href="/town/map?m=income"`},
		"/town/rankings/young?pref=13": {`href="/town/map?m=young&amp;pref=13" id="map-link"`},
		"/town/prefectures/01":         {`href="/town/map?m=income&amp;pref=01"`},
		"/town/municipalities/01202":   {`id="pref-map"`, `href="/town/map?m=income&amp;pref=01"`, "北海道の中の函館市の位置", `<path class=pick d="M`, "出典：テスト境界を加工して作成"},
	} {
		_, body := getPage(t, router, path)
		for _, w := range want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: no %q", path, w)
			}
		}
	}
}

// TestMapTableRows: the table gives every municipality drawn, with its value and ranks, a row
// header each, the one without a value last in rank order and dashed.
func TestMapTableRows(t *testing.T) {
	_, body := getPage(t, siteRouter(t), "/town/map?m=young")
	rows := regexp.MustCompile(`<tr><th scope=row><a href=municipalities/(\d{5})>[^<]+</a> <small>[^<]+</small></th><td class=n>([^<]+)</td><td class=n>([^<]+)</td></tr>`).FindAllStringSubmatch(body, -1)
	var got []string
	for _, r := range rows {
		got = append(got, r[1]+":"+r[3])
	}
	if want := "01100:1 13101:2 01202:3 13102:4 01345:—"; strings.Join(got, " ") != want {
		t.Errorf("rows %q, want %q", strings.Join(got, " "), want)
	}
	if len(rows) > 0 && rows[len(rows)-1][2] != "—" {
		t.Errorf("the row without a value gives %q", rows[len(rows)-1][2])
	}
}

// TestRing: the locator rings a municipality under ringBelowPx where it is seen, round what it
// draws with room to spare, and leaves a larger one alone.
func TestRing(t *testing.T) {
	d := &drawnMap{Boxes: []rect{{100, 100, 110, 104}, {100, 100, 101, 101}, {0, 0, ringBelowPx, 2}, {0, 0, 40, 2}}, PxPerUnit: 1}
	for n, want := range []string{`<circle class=ring cx=105 cy=102 r=11 />`, `<circle class=ring cx=101 cy=101 r=7 />`, "", ""} {
		if got := d.ring(n); got != want {
			t.Errorf("box %v: %q, want %q", d.Boxes[n], got, want)
		}
	}
}

// TestPathData: rings become a move and relative lines in whole units, corners that round onto
// the one before or lie on a straight line dropped, a shape too small to draw a square, and an
// inset's small island a diamond.
func TestPathData(t *testing.T) {
	square := [][][][2]float64{{{{0, 0}, {0.2, 0}, {10, 0}, {10, 5}, {10, 10}, {0, 10}, {0, 0}}}}
	if got := string(pathData(square, 1, 100, 200, 0).data); got != "M100 200l10 0 0 10-10 0z" {
		t.Errorf("square: %q", got)
	}
	if got := string(pathData(square, 0.01, 100, 200, 0).data); got != "M98 198l4 0 0 4-4 0z" {
		t.Errorf("speck: %q", got)
	}
	// in an inset, an island under 6 units across is a diamond 6 across; a larger one is itself
	if got := string(pathData(square, 0.1, 100, 200, 6).data); got != "M101 198l3 3-3 3-3-3z" {
		t.Errorf("island of an inset: %q", got)
	}
	if got := string(pathData(square, 1, 100, 200, 6).data); got != "M100 200l10 0 0 10-10 0z" {
		t.Errorf("square in an inset: %q", got)
	}
}

// TestThin: a shape is drawn without outline when the outline is as long as its area or longer,
// whatever the rings' direction and however many islands it has.
func TestThin(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rings [][][2]int
		want  bool
	}{
		{"10 × 10: 100 units² in 40 units of outline", [][][2]int{{{100, 200}, {110, 200}, {110, 210}, {100, 210}}}, false},
		{"the same, drawn the other way round", [][][2]int{{{100, 200}, {100, 210}, {110, 210}, {110, 200}}}, false},
		{"25 units² in 20", [][][2]int{{{100, 200}, {105, 200}, {105, 205}, {100, 205}}}, false},
		{"16 in 16: a quarter under the outline", [][][2]int{{{100, 200}, {104, 200}, {104, 204}, {100, 204}}}, false},
		{"9 in 12", [][][2]int{{{100, 200}, {103, 200}, {103, 203}, {100, 203}}}, true},
		{"a strip 2 units wide: 80 in 84", [][][2]int{{{100, 200}, {140, 200}, {140, 202}, {100, 202}}}, true},
		{"小笠原村's islands", [][][2]int{{{990, 734}, {990, 735}, {989, 735}}, {{556, 636}, {557, 636}, {557, 637}, {556, 637}}, {{510, 614}, {512, 614}, {512, 616}, {510, 616}}}, true},
		{"a square with a hole: 6,400 in 640", [][][2]int{{{0, 0}, {100, 0}, {100, 100}, {0, 100}}, {{20, 20}, {20, 80}, {80, 80}, {80, 20}}}, false},
	} {
		var s shapePath
		for _, r := range tc.rings {
			s.ring(r)
		}
		if got := s.thin(); got != tc.want {
			t.Errorf("%s (%s): thin = %v, want %v", tc.name, s.data, got, tc.want)
		}
	}
}
