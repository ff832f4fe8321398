package serve_test

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/town"
)

type indicatorEntry struct {
	Key   string `json:"key"`
	Group string `json:"group"`
	Years []struct {
		Year   int      `json:"year"`
		Count  int      `json:"count"`
		Median *float64 `json:"median"`
	} `json:"years"`
	Latest *struct {
		Year int `json:"year"`
	} `json:"latest"`
}

type indicatorPointJSON struct {
	Year     int      `json:"year"`
	Value    *float64 `json:"value"`
	Rank     *int     `json:"rank"`
	Hensachi *float64 `json:"hensachi"`
}

// TestIndicatorCalls: the catalogue by group, a ranking in a survey year with national ranks
// under pref, and one municipality's indicators agreeing with that ranking.
func TestIndicatorCalls(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	type catalogue struct {
		Group *string          `json:"group"`
		Total int              `json:"total"`
		Items []indicatorEntry `json:"items"`
	}
	all := decode[catalogue](t, decode[envelope](t, ts.get(t, "/town/v1/indicators").body).Data)
	if all.Group != nil || all.Total != len(all.Items) || all.Total < 300 {
		t.Fatalf("catalogue: group %v, total %d, %d items", all.Group, all.Total, len(all.Items))
	}
	for _, e := range all.Items {
		if len(e.Years) == 0 || e.Latest == nil || e.Latest.Year != e.Years[len(e.Years)-1].Year {
			t.Errorf("%s: years %v, latest %v", e.Key, e.Years, e.Latest)
		}
	}
	fiscal := decode[catalogue](t, decode[envelope](t, ts.get(t, "/town/v1/indicators?group=%E8%B2%A1%E6%94%BF").body).Data)
	if fiscal.Group == nil || *fiscal.Group != "財政" || fiscal.Total == 0 || fiscal.Total >= all.Total {
		t.Fatalf("財政: %+v", fiscal)
	}
	for _, e := range fiscal.Items {
		if e.Group != "財政" {
			t.Errorf("%s of group %s in 財政's list", e.Key, e.Group)
		}
	}

	type ranking struct {
		Indicator indicatorEntry `json:"indicator"`
		Year      int            `json:"year"`
		Total     int            `json:"total"`
		Items     []struct {
			Rank     int     `json:"rank"`
			Code     string  `json:"code"`
			Hensachi float64 `json:"hensachi"`
			Value    float64 `json:"value"`
			Year     int     `json:"year"`
		} `json:"items"`
	}
	r := decode[ranking](t, decode[envelope](t, ts.get(t, "/town/v1/indicators/population?year=2015&limit=100").body).Data)
	if r.Indicator.Key != "population" || r.Year != 2015 || len(r.Items) != 100 || r.Items[0].Rank != 1 || r.Items[0].Code != "13100" && r.Items[0].Code != "14100" {
		t.Fatalf("population 2015: %+v", r.Items[:min(3, len(r.Items))])
	}
	for k, it := range r.Items {
		if it.Year != 2015 || k > 0 && (it.Value > r.Items[k-1].Value || it.Rank < r.Items[k-1].Rank) {
			t.Fatalf("item %d out of order: %+v", k, it)
		}
	}
	tokyo := decode[ranking](t, decode[envelope](t, ts.get(t, "/town/v1/indicators/population?year=2015&pref=13&order=asc&limit=100").body).Data)
	if tokyo.Total != 62 || tokyo.Items[len(tokyo.Items)-1].Rank == 1 || tokyo.Items[0].Rank < tokyo.Items[61].Rank {
		t.Fatalf("Tokyo: total %d, last %+v", tokyo.Total, tokyo.Items[len(tokyo.Items)-1])
	}

	type municipality struct {
		Code  string `json:"code"`
		Total int    `json:"total"`
		Items []struct {
			Key       string               `json:"key"`
			Year      int                  `json:"year"`
			Value     *float64             `json:"value"`
			Rank      *int                 `json:"rank"`
			RankTotal int                  `json:"rank_total"`
			Hensachi  *float64             `json:"hensachi"`
			Series    []indicatorPointJSON `json:"series"`
		} `json:"items"`
	}
	top := r.Items[0].Code
	m := decode[municipality](t, decode[envelope](t, ts.get(t, "/town/v1/municipalities/"+top+"/indicators?keys=fiscal_strength,population").body).Data)
	if m.Code != top || m.Total != 2 || m.Items[0].Key != "fiscal_strength" || m.Items[1].Key != "population" {
		t.Fatalf("keys in their order: %+v", m)
	}
	pop := m.Items[1]
	last := pop.Series[len(pop.Series)-1]
	if pop.Year != last.Year || *pop.Value != *last.Value || pop.RankTotal < 1700 {
		t.Errorf("latest %+v is not the series' last %+v", pop, last)
	}
	i := slices.IndexFunc(pop.Series, func(p indicatorPointJSON) bool { return p.Year == 2015 })
	if i < 0 || *pop.Series[i].Rank != 1 || *pop.Series[i].Value != r.Items[0].Value || *pop.Series[i].Hensachi != r.Items[0].Hensachi {
		t.Errorf("2015 in the series %+v, in the ranking %+v", pop.Series, r.Items[0])
	}
	for k := 1; k < len(pop.Series); k++ {
		if pop.Series[k].Year <= pop.Series[k-1].Year {
			t.Errorf("series not oldest first: %+v", pop.Series)
		}
	}
	every := decode[municipality](t, decode[envelope](t, ts.get(t, "/town/v1/municipalities/07546/indicators").body).Data)
	if every.Total != all.Total {
		t.Errorf("07546: %d indicators, want %d", every.Total, all.Total)
	}
	group := decode[municipality](t, decode[envelope](t, ts.get(t, "/town/v1/municipalities/07546/indicators?group=%E8%B2%A1%E6%94%BF").body).Data)
	if group.Total != fiscal.Total {
		t.Errorf("07546 財政: %d indicators, want %d", group.Total, fiscal.Total)
	}
}

// TestIndicatorCallsBadParameters: each refusal names its parameter, and none counts.
func TestIndicatorCallsBadParameters(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	tests := []struct {
		path   string
		status int
		param  string
	}{
		{"/town/v1/indicators?group=%E3%81%AA%E3%81%97", 400, "group"},
		{"/town/v1/indicators?group=", 400, "group"},
		{"/town/v1/indicators?limit=3", 400, "limit"},
		{"/town/v1/indicators/nope", 404, ""},
		{"/town/v1/indicators/population?year=1999", 400, "year"},
		{"/town/v1/indicators/population?year=20x5", 400, "year"},
		{"/town/v1/indicators/population?year=02020", 400, "year"}, // as on the export: one reading of a year
		{"/town/v1/export?format=csv&indicators=population&year=02020", 400, "year"},
		{"/town/v1/municipalities/13101/similar?measures=income,population@02020", 400, "measures"},
		{"/town/v1/indicators/population?order=up", 400, "order"},
		{"/town/v1/indicators/population?pref=48", 400, "pref"},
		{"/town/v1/indicators/population?limit=101", 400, "limit"},
		{"/town/v1/indicators/population?offset=-1", 400, "offset"},
		{"/town/v1/municipalities/13101/indicators?keys=nope", 400, "keys"},
		{"/town/v1/municipalities/13101/indicators?keys=population,population", 400, "keys"},
		{"/town/v1/municipalities/13101/indicators?keys=,", 400, "keys"},
		{"/town/v1/municipalities/13101/indicators?keys=population&group=%E8%B2%A1%E6%94%BF", 400, "group"},
		{"/town/v1/municipalities/1310/indicators", 400, "code"},
		{"/town/v1/municipalities/99999/indicators", 404, ""},
		{"/town/v1/export?format=csv&indicators=nope", 400, "indicators"},
		{"/town/v1/export?format=json&indicators=population", 400, "indicators"},
		{"/town/v1/export?format=csv&year=2020", 400, "year"},
		{"/town/v1/export?format=csv&indicators=fiscal_strength&year=2004", 400, "year"},
		{"/town/v1/export?format=csv&indicators=all&year=1990", 400, "year"},
		{"/town/v1/export?format=csv&indicators=all,population", 400, "indicators"},
		{"/town/v1/export/series", 400, "format"},
		{"/town/v1/export/series?format=json", 400, "format"},
		{"/town/v1/export/series?format=csv&indicators=nope", 400, "indicators"},
		{"/town/v1/export/series?format=csv&pref=1", 400, "pref"},
		{"/town/v1/export/series?format=csv&year=2020", 400, "year"},
		{"/town/v1/indicators/unemployment_rate?from=2015", 400, "to"},
		{"/town/v1/indicators/unemployment_rate?to=2020", 400, "from"},
		{"/town/v1/indicators/unemployment_rate?from=2010&to=2020", 400, "from"},
		{"/town/v1/indicators/unemployment_rate?from=2015&to=2O20", 400, "to"},
		{"/town/v1/indicators/unemployment_rate?from=2020&to=2015", 400, "to"},
		{"/town/v1/indicators/unemployment_rate?from=2015&to=2020&year=2020", 400, "year"},
		{"/town/v1/indicators/unemployment_rate?from=2015&to=2020&order=up", 400, "order"},
		{"/town/v1/indicators/retail_shops?from=2014&to=2021", 400, "from"},               // across the break of 2016
		{"/town/v1/indicators/establishments_all?from=2014&to=2014", 400, "from"},         // one year: no change
		{"/town/v1/indicators/jumin_population_change_1y?from=2015&to=2020", 400, "from"}, // itself a change
		{"/town/v1/export?format=csv&change=2015-2020", 400, "change"},
		{"/town/v1/export?format=csv&indicators=population&change=2015", 400, "change"},
		{"/town/v1/export?format=csv&indicators=population&change=2020-2015", 400, "change"},
		{"/town/v1/export?format=csv&indicators=population,births&change=2015-2020", 400, "change"},
		{"/town/v1/export?format=csv&indicators=retail_shops&change=2014-2021", 400, "change"},
		{"/town/v1/export/series?format=csv&change=1990-1995", 400, "change"},
	}
	for _, tt := range tests {
		r := ts.get(t, tt.path)
		if r.status != tt.status || r.header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("GET %s: %d %s, want %d", tt.path, r.status, r.header.Get("Content-Type"), tt.status)
			continue
		}
		if p := decode[problem](t, r.body); p.Param != tt.param {
			t.Errorf("GET %s: param %q, want %q (%s)", tt.path, p.Param, tt.param, p.Detail)
		}
	}
	if used := ts.Quota.Used(ts.freeID, hensachi.ServiceTown); used != 0 {
		t.Errorf("%d calls counted for bad parameters", used)
	}
}

// TestIndicatorExports: the export's indicator columns agree with the ranking call; the long
// table is the same gzipped or not, in code order within a year, and its Parquet file is one.
func TestIndicatorExports(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	r := ts.get(t, "/town/v1/export?format=csv&pref=13&indicators=population,fiscal_strength&year=2020")
	if r.status != http.StatusOK || !strings.Contains(r.header.Get("Content-Disposition"), "-indicators.csv") {
		t.Fatalf("export: %d %s", r.status, r.header.Get("Content-Disposition"))
	}
	rows := readCSV(t, r.body)
	header := rows[0]
	want := []string{"population_2020", "population_2020_rank", "population_2020_hensachi",
		"fiscal_strength_2020", "fiscal_strength_2020_rank", "fiscal_strength_2020_hensachi"}
	if got := header[len(header)-len(want):]; !slices.Equal(got, want) || len(rows) != 63 {
		t.Fatalf("columns %v, %d rows", got, len(rows))
	}
	type ranking struct {
		Items []struct {
			Rank  int     `json:"rank"`
			Code  string  `json:"code"`
			Value float64 `json:"value"`
		} `json:"items"`
	}
	first := decode[ranking](t, decode[envelope](t, ts.get(t, "/town/v1/indicators/population?year=2020&pref=13&limit=1").body).Data).Items[0]
	col := len(header) - len(want)
	for _, row := range rows[1:] {
		if row[0] == first.Code && (row[col] != strconv.FormatFloat(first.Value, 'f', -1, 64) || row[col+1] != strconv.Itoa(first.Rank)) {
			t.Errorf("%s: export %v, ranking %+v", row[0], row[col:col+3], first)
		}
	}

	plain := ts.do(t, http.MethodGet, "/town/v1/export/series?format=csv&indicators=population&pref=13", "X-API-Key", ts.freeKey, "Accept-Encoding", "identity")
	gz := ts.do(t, http.MethodGet, "/town/v1/export/series?format=csv&indicators=population&pref=13", "X-API-Key", ts.freeKey, "Accept-Encoding", "gzip")
	if plain.status != http.StatusOK || gz.status != http.StatusOK || plain.header.Get("Content-Encoding") != "" || gz.header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("series: %d and %d gzipped (%q)", plain.status, gz.status, gz.header.Get("Content-Encoding"))
	}
	if unzipped, err := gunzipStrict(gz.body); err != nil || !bytes.Equal(unzipped, plain.body) {
		// what the stream holds says where it went wrong: its start, its end, its length
		t.Fatalf("series gzipped: %v; %d bytes (Content-Length %s) starting % x, ending % x; %d bytes unzipped, %d plain",
			err, len(gz.body), gz.header.Get("Content-Length"), gz.body[:min(16, len(gz.body))], gz.body[max(0, len(gz.body)-16):], len(unzipped), len(plain.body))
	}
	if n, _ := strconv.Atoi(plain.header.Get("Content-Length")); n != len(plain.body) {
		t.Errorf("Content-Length %d of %d bytes", n, len(plain.body))
	}
	long := readCSV(t, plain.body)
	if !slices.Equal(long[0], []string{"code", "name", "prefecture_code", "indicator", "year", "value", "rank", "hensachi"}) {
		t.Fatalf("series header %v", long[0])
	}
	for k := 2; k < len(long); k++ {
		a, b := long[k-1], long[k]
		if a[4] > b[4] || a[4] == b[4] && a[0] >= b[0] || b[2] != "13" || b[3] != "population" {
			t.Fatalf("rows %d, %d: %v, %v", k-1, k, a, b)
		}
	}
	pq := ts.get(t, "/town/v1/export/series?format=parquet&indicators=population,fiscal_strength")
	if pq.status != http.StatusOK || !bytes.HasPrefix(pq.body, []byte("PAR1")) || !bytes.HasSuffix(pq.body, []byte("PAR1")) {
		t.Fatalf("series parquet: %d, %d bytes", pq.status, len(pq.body))
	}
}

func readCSV(t *testing.T, b []byte) [][]string {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte("\uFEFF")))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestSimilarAndCompareTakeIndicators: similar on the six axes named as measures is the default
// list; on an indicator it ranks by that indicator's deviation score; a comparison adds each
// indicator's standing of the compared municipalities in their order.
func TestSimilarAndCompareTakeIndicators(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	type neighbour struct {
		Code        string  `json:"code"`
		Distance    float64 `json:"distance"`
		Differences []struct {
			Measure    string  `json:"measure"`
			Hensachi   float64 `json:"hensachi"`
			Difference float64 `json:"difference"`
		} `json:"differences"`
	}
	type similar struct {
		Measures []string    `json:"measures"`
		Items    []neighbour `json:"items"`
	}
	plain := decode[similar](t, decode[envelope](t, ts.get(t, "/town/v1/municipalities/28214/similar?limit=20").body).Data)
	axes := decode[similar](t, decode[envelope](t, ts.get(t, "/town/v1/municipalities/28214/similar?limit=20&measures=young,shops,doctor,income,inflow,daytime").body).Data)
	if len(axes.Items) != 20 || len(axes.Measures) != 6 {
		t.Fatalf("on the six axes: %+v", axes)
	}
	for k := range plain.Items {
		if plain.Items[k].Code != axes.Items[k].Code || plain.Items[k].Distance != axes.Items[k].Distance {
			t.Errorf("neighbour %d: %+v by default, %+v on the axes named", k, plain.Items[k], axes.Items[k])
		}
	}
	on := decode[similar](t, decode[envelope](t, ts.get(t, "/town/v1/municipalities/28214/similar?limit=5&measures=income,population@2020").body).Data)
	if !slices.Equal(on.Measures, []string{"income", "population@2020"}) || len(on.Items) != 5 {
		t.Fatalf("income and population: %+v", on)
	}
	for k := 1; k < len(on.Items); k++ {
		if on.Items[k].Distance < on.Items[k-1].Distance {
			t.Errorf("not nearest first: %+v", on.Items)
		}
	}

	type compared struct {
		Items      []struct{ Code string } `json:"items"`
		Indicators []struct {
			Key    string   `json:"key"`
			Year   int      `json:"year"`
			Median *float64 `json:"median"`
			Items  []struct {
				Code  string   `json:"code"`
				Value *float64 `json:"value"`
				Rank  *int     `json:"rank"`
			} `json:"items"`
		} `json:"indicators"`
	}
	cmp := decode[compared](t, decode[envelope](t, ts.get(t, "/town/v1/compare?codes=13101,07546&indicators=population@2015,fiscal_strength").body).Data)
	if len(cmp.Items) != 2 || len(cmp.Indicators) != 2 || cmp.Indicators[0].Key != "population@2015" || cmp.Indicators[0].Year != 2015 ||
		cmp.Indicators[1].Items[1].Code != "07546" || cmp.Indicators[0].Median == nil || cmp.Indicators[0].Items[0].Rank == nil {
		t.Fatalf("compare with indicators: %+v", cmp)
	}
	without := decode[compared](t, decode[envelope](t, ts.get(t, "/town/v1/compare?codes=13101,07546").body).Data)
	if without.Indicators != nil {
		t.Errorf("indicators without asking: %+v", without.Indicators)
	}
	for _, tt := range []struct{ path, param string }{
		{"/town/v1/municipalities/28214/similar?measures=income", "measures"},
		{"/town/v1/municipalities/28214/similar?measures=income,pop", "measures"},
		{"/town/v1/municipalities/28214/similar?measures=income,income", "measures"},
		{"/town/v1/municipalities/28214/similar?measures=income,population@1900", "measures"},
		{"/town/v1/compare?codes=13101,07546&indicators=young", "indicators"},
		{"/town/v1/compare?codes=13101,07546&indicators=" + strings.Repeat("population,", 11), "indicators"},
	} {
		r := ts.get(t, tt.path)
		if p := decode[problem](t, r.body); r.status != 400 || p.Param != tt.param {
			t.Errorf("GET %s: %d %+v", tt.path, r.status, p)
		}
	}
}

// TestCompareIndicatorSeries: each compared indicator gives every compared municipality, in the
// order of codes, its series of every survey year with the catalogue's value, national rank and
// deviation score (nulls where it has none) and its standing in the year asked for, the series'
// point of that year; four indicators of ten municipalities are one call, a fifth indicator or an
// eleventh municipality a 400 naming its parameter.
func TestCompareIndicatorSeries(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	c, err := ts.Catalogs.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	type point struct {
		Year     int      `json:"year"`
		Value    *float64 `json:"value"`
		Rank     *int     `json:"rank"`
		Hensachi *float64 `json:"hensachi"`
	}
	type compared struct {
		Indicators []struct {
			Key    string `json:"key"`
			Year   int    `json:"year"`
			Breaks []int  `json:"breaks"`
			Items  []struct {
				Code string `json:"code"`
				point
				Series []point `json:"series"`
			} `json:"items"`
		} `json:"indicators"`
	}
	// 双葉町 (07546) has no residents in 2020, so no value on what the census divides by
	keys := []string{"fiscal_strength", "population@2015", "births_per_1000"}
	for _, ind := range c.Indicators("") {
		if len(ind.Breaks) > 0 { // a series with a break, when the catalogue has one
			keys = append(keys, ind.Key)
			break
		}
	}
	if len(keys) < 4 {
		keys = append(keys, "laspeyres_index")
	}
	codes := []string{"28214", "13101", "07546", "01100", "47201", "14100", "13102", "26100", "40130", "04100"}
	before := decode[envelope](t, ts.get(t, "/town/v1/meta").body).Usage.UsedToday
	r := ts.get(t, "/town/v1/compare?codes="+strings.Join(codes, ",")+"&indicators="+strings.Join(keys, ","))
	if r.status != http.StatusOK {
		t.Fatalf("ten municipalities on four indicators: %d %s", r.status, r.body)
	}
	env := decode[envelope](t, r.body)
	if env.Usage.UsedToday != before+1 {
		t.Errorf("the call counted %d, want 1", env.Usage.UsedToday-before)
	}
	got := decode[compared](t, env.Data)
	if len(got.Indicators) != len(keys) {
		t.Fatalf("%d indicators, want %d", len(got.Indicators), len(keys))
	}
	same := func(p point, want town.IndicatorPoint) bool {
		if !want.Value.Valid {
			return p.Value == nil && p.Rank == nil && p.Hensachi == nil
		}
		return p.Value != nil && *p.Value == want.Value.V && p.Rank != nil && *p.Rank == want.Rank && p.Hensachi != nil && *p.Hensachi == want.Hensachi
	}
	nulls := 0
	for k, gi := range got.Indicators {
		key, _, _ := strings.Cut(keys[k], "@")
		i := c.IndicatorIndex(key)
		ind := c.Indicator(i)
		if !strings.HasPrefix(gi.Key, key+"@") || !slices.Equal(gi.Breaks, append([]int{}, ind.Breaks...)) || len(gi.Items) != len(codes) {
			t.Errorf("%s: key %s, breaks %v, %d items", keys[k], gi.Key, gi.Breaks, len(gi.Items))
			continue
		}
		for j, item := range gi.Items {
			if item.Code != codes[j] {
				t.Errorf("%s: item %d is %s, want %s", keys[k], j, item.Code, codes[j])
				continue
			}
			row := c.Index(item.Code)
			if len(item.Series) != len(ind.Years) {
				t.Errorf("%s %s: %d points, want %d", keys[k], item.Code, len(item.Series), len(ind.Years))
				continue
			}
			for y, p := range item.Series {
				want := c.IndicatorPoint(i, y, row)
				if p.Year != want.Year || !same(p, want) {
					t.Errorf("%s %s %d: %+v, want %+v", keys[k], item.Code, want.Year, p, want)
				}
				if p.Value == nil {
					nulls++
				}
				// the standing of the year asked for is that year's point
				if p.Year == gi.Year && !same(item.point, want) {
					t.Errorf("%s %s: standing %+v, want the %d point %+v", keys[k], item.Code, item.point, gi.Year, want)
				}
			}
		}
	}
	if nulls == 0 {
		t.Error("no null in any series: the test looks at nothing")
	}
	var eleven []string // one more than a comparison takes, each distinct
	for _, ind := range c.Indicators("")[:11] {
		eleven = append(eleven, ind.Key)
	}
	for _, tt := range []struct{ path, param string }{
		{"/town/v1/compare?codes=13101,07546&indicators=" + strings.Join(eleven, ","), "indicators"},
		{"/town/v1/compare?codes=13101,07546&indicators=", "indicators"},
		{"/town/v1/compare?codes=13101,07546&indicators=fiscal_strength,fiscal_strength", "indicators"},
		{"/town/v1/compare?codes=13101,07546&indicators=fiscal_strength@1900", "indicators"},
		{"/town/v1/compare?codes=13101,07546&indicators=nope", "indicators"},
		{"/town/v1/compare?codes=" + strings.Join(codes, ",") + ",13103&indicators=fiscal_strength", "codes"},
		{"/town/v1/compare?codes=13101,07546&indicators=fiscal_strength&q=x", "q"},
	} {
		r := ts.get(t, tt.path)
		if p := decode[problem](t, r.body); r.status != 400 || p.Param != tt.param {
			t.Errorf("GET %s: %d %+v, want 400 naming %s", tt.path, r.status, p, tt.param)
		}
	}
	if r := ts.do(t, http.MethodGet, "/town/v1/compare?codes=13101,07546&indicators=fiscal_strength"); r.status != http.StatusUnauthorized {
		t.Errorf("without a key: %d", r.status)
	}
}

// TestIndicatorChangeCalls: a change's ranking agrees with the catalogue's own values, computed
// here by hand (a difference in points for the unemployment rate, whose fall ranks first; a
// percent for the population, the largest increase first, none where the earlier value is 0);
// the export's change columns and the long table with a change give the same figures.
func TestIndicatorChangeCalls(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	type changeRanking struct {
		Indicator struct {
			Decimals int `json:"decimals"`
		} `json:"indicator"`
		Change struct {
			From, To      int
			Measure, Unit string
		} `json:"change"`
		Total int `json:"total"`
		Items []struct {
			Rank      int     `json:"rank"`
			Code      string  `json:"code"`
			Hensachi  float64 `json:"hensachi"`
			Change    float64 `json:"change"`
			FromYear  int     `json:"from_year"`
			FromValue float64 `json:"from_value"`
			ToYear    int     `json:"to_year"`
			ToValue   float64 `json:"to_value"`
		} `json:"items"`
	}
	series := func(code, key string) map[int]float64 {
		type municipality struct {
			Items []struct {
				Series []indicatorPointJSON `json:"series"`
			} `json:"items"`
		}
		m := decode[municipality](t, decode[envelope](t, ts.get(t, "/town/v1/municipalities/"+code+"/indicators?keys="+key).body).Data)
		out := map[int]float64{}
		for _, p := range m.Items[0].Series {
			if p.Value != nil {
				out[p.Year] = *p.Value
			}
		}
		return out
	}
	for _, tc := range []struct {
		key, measure, unit string
		change             func(a, b float64, decimals int) float64
		falls              bool // the best change is the largest fall
	}{
		{"unemployment_rate", "difference", "ポイント", func(a, b float64, decimals int) float64 { return hensachi.Round(b-a, decimals) }, true},
		{"population", "percent", "%", func(a, b float64, _ int) float64 { return hensachi.Round((b-a)/a*100, 1) }, false},
	} {
		r := decode[changeRanking](t, decode[envelope](t, ts.get(t, "/town/v1/indicators/"+tc.key+"?from=2015&to=2020&limit=100").body).Data)
		if r.Change.From != 2015 || r.Change.To != 2020 || r.Change.Measure != tc.measure || r.Change.Unit != tc.unit || len(r.Items) != 100 || r.Total < 1700 {
			t.Fatalf("%s: %+v, %d items of %d", tc.key, r.Change, len(r.Items), r.Total)
		}
		for k, it := range r.Items {
			worse := k > 0 && (tc.falls && it.Change < r.Items[k-1].Change || !tc.falls && it.Change > r.Items[k-1].Change)
			if it.FromYear != 2015 || it.ToYear != 2020 || it.Change != tc.change(it.FromValue, it.ToValue, r.Indicator.Decimals) || worse || k == 0 && (it.Rank != 1 || it.Hensachi <= 50) {
				t.Fatalf("%s item %d: %+v", tc.key, k, it)
			}
		}
		for _, it := range []int{0, 1, 57, 99} { // the two values are the municipality's own
			s := series(r.Items[it].Code, tc.key)
			if s[2015] != r.Items[it].FromValue || s[2020] != r.Items[it].ToValue {
				t.Errorf("%s %s: %v and %v, its series %v", tc.key, r.Items[it].Code, r.Items[it].FromValue, r.Items[it].ToValue, s)
			}
		}
	}
	// a percent of no population means nothing: 双葉町 (07546) had none in 2015 or 2020
	csv := ts.get(t, "/town/v1/export?format=csv&pref=07&indicators=population,unemployment_rate&year=2015&change=2015-2020")
	if csv.status != http.StatusOK || !strings.Contains(csv.header.Get("Content-Disposition"), "-indicators-change-2015-2020.csv") {
		t.Fatalf("export: %d %s", csv.status, csv.header.Get("Content-Disposition"))
	}
	rows := readCSV(t, csv.body)
	col := func(name string) int { return slices.Index(rows[0], name) }
	pct, diff := col("population_2015_2020_pct"), col("unemployment_rate_2015_2020_diff")
	if pct < 0 || diff < 0 || col("population_2015_2020_pct_rank") != pct+1 || col("unemployment_rate_2015_2020_diff_hensachi") != diff+2 {
		t.Fatalf("change columns missing: %v", rows[0])
	}
	for _, row := range rows[1:] {
		if row[0] == "07546" && (row[col("population_2015")] != "0" || row[pct] != "" || row[pct+1] != "") {
			t.Errorf("双葉町: population 2015 %q, change %q rank %q", row[col("population_2015")], row[pct], row[pct+1])
		}
		if row[0] == "07201" { // 福島市: as the ranking has it
			r := decode[changeRanking](t, decode[envelope](t, ts.get(t, "/town/v1/indicators/population?from=2015&to=2020&pref=07&limit=100").body).Data)
			for _, it := range r.Items {
				if it.Code == "07201" && (row[pct] != strconv.FormatFloat(it.Change, 'f', -1, 64) || row[pct+1] != strconv.Itoa(it.Rank)) {
					t.Errorf("福島市: export %q rank %q, ranking %+v", row[pct], row[pct+1], it)
				}
			}
		}
	}
	long := ts.get(t, "/town/v1/export/series?format=csv&pref=13&indicators=unemployment_rate&change=2015-2020")
	rows = readCSV(t, long.body)
	if long.status != http.StatusOK || len(rows) != 63 || rows[0][11] != "change" || rows[1][10] != "difference" || rows[1][4] != "2020" || rows[1][8] != "2015" {
		t.Fatalf("long table: %d, %d rows, %v %v", long.status, len(rows), rows[0], rows[1])
	}
}
