package site

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestDirectionOnRealData reads, on the real dataset, what the pages say of which way is better:
// an indicator's page says it in one sentence and ranks its best first, a map colours a directed
// measure better-blue (its lowest values for one where less is better) and a neutral one in one
// hue, and the catalogue offers a group's comparable indicators before its counts.
func TestDirectionOnRealData(t *testing.T) {
	s := newRealSite(t, "https://hensachi.example")
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"/town/indicators/unemployment_rate", []string{"値が小さいほど良いとみる指標です。1位は値の最も小さい市区町村"}},
		{"/town/indicators/fiscal_strength", []string{"値が大きいほど良いとみる指標です。"}},
		{"/town/indicators/population", []string{"市区町村の規模（数そのもの）を示す指標", "良し悪しの向きを決めていない指標です。"}},
		{"/town/indicators/deaths_per_1000", []string{"値が小さいほど良いとみる指標です。", "高齢者の多い自治体ほど高くなり"}},
		{"/town/map?m=unemployment_rate", []string{`<svg class="map" `, "良い方（値の小さい方）を青、悪い方を赤で塗ります。"}},
		{"/town/map?m=population", []string{`<svg class="map seq" `, `<table id="legend-table" class="seq">`, "数そのものは市区町村の規模を示し"}},
		{"/town/map?m=jobless", []string{`<svg class="map" `, "良い方（値の小さい方）を青"}},
		{"/town/indicators", []string{"完全失業率</a> 中央値", "・小さいほど良い", "・数（規模）"}},
	} {
		status, body := s.render(t, tc.path)
		if status != 200 {
			t.Fatalf("%s: %d", tc.path, status)
		}
		for _, w := range tc.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s lacks %q", tc.path, w)
			}
		}
	}

	// On the unemployment map the darkest blue (c6) holds the lowest rates, the darkest red (c0) the
	// highest: the legend's values run against its classes.
	_, body := s.render(t, "/town/map?m=unemployment_rate")
	legend := regexp.MustCompile(`<span class="sw c(\d)"></span></td><td class="nb">[^<]+</td><td class="n wrap">(?:<span class=nb>)?([0-9.]+)`)
	lowest := map[string]string{}
	for _, m := range legend.FindAllStringSubmatch(body, -1) {
		lowest[m[1]] = m[2]
	}
	if lowest["6"] == "" || lowest["0"] == "" || !(atof(t, lowest["6"]) < atof(t, lowest["0"])) {
		t.Errorf("unemployment legend: class 6 from %q, class 0 from %q; want the best (blue) class to hold the lowest rates", lowest["6"], lowest["0"])
	}

	// 人口・世帯 lists its rates before its counts: 総人口 comes after 出生率.
	_, body = s.render(t, "/town/indicators")
	if b, p := strings.Index(body, ">出生率"), strings.Index(body, ">総人口</a>"); b < 0 || p < 0 || b > p {
		t.Errorf("the catalogue lists 総人口 at %d before 出生率 at %d", p, b)
	}
}

func atof(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
