package town_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/rawfiles"
	"github.com/hensachi/hensachi/internal/testrig/realdata"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
	"github.com/hensachi/hensachi/town"
)

// servedIndicators is what the service serves of the indicator catalogue, as far as the proof
// needs it.
type servedIndicators interface {
	Catalogue() []hensachi.Indicator // the entries with their years
	Codes() []string                 // the municipalities, in the order values are given
	// Value is an indicator's value for a municipality in a survey year; ok is false for a null.
	Value(key string, year int, code string) (v float64, ok bool)
	// Standing is a municipality's rank and deviation score on an indicator in a survey year.
	Standing(key string, year int, code string) (rank int, hensachi float64, ok bool)
}

// catalogIndicators reads the catalogue from the read model of the real dataset, written to its
// file and opened as the server opens it (realdata.Catalog): what the API and the pages answer.
type catalogIndicators struct{ c *town.Catalog }

func (ci catalogIndicators) Catalogue() []hensachi.Indicator {
	var out []hensachi.Indicator
	for _, ind := range ci.c.Indicators("") {
		out = append(out, *ind)
	}
	return out
}

func (ci catalogIndicators) Codes() []string {
	codes := make([]string, ci.c.Len())
	for m := range codes {
		codes[m] = ci.c.Row(m).Code
	}
	return codes
}

func (ci catalogIndicators) point(key string, year int, code string) (town.IndicatorPoint, bool) {
	i, m := ci.c.IndicatorIndex(key), ci.c.Index(code)
	if i < 0 || m < 0 {
		return town.IndicatorPoint{}, false
	}
	k := ci.c.Indicator(i).YearIndex(year)
	if k < 0 {
		return town.IndicatorPoint{}, false
	}
	p := ci.c.IndicatorPoint(i, k, m)
	return p, p.Value.Valid
}

func (ci catalogIndicators) Value(key string, year int, code string) (float64, bool) {
	p, ok := ci.point(key, year, code)
	return p.Value.V, ok
}

func (ci catalogIndicators) Standing(key string, year int, code string) (int, float64, bool) {
	p, ok := ci.point(key, year, code)
	return p.Rank, p.Hensachi, ok
}

// lastXLSFinanceYear is the newest fiscal year whose list of financial indicators is an .xls workbook.
const lastXLSFinanceYear = 2015

// proofSeed fixes the draw, so that a failure names triples that the next run draws again.
const proofSeed = 20261126

// TestIndicatorsAgainstRawFiles is the catalogue's proof: it recomputes indicators straight from
// the raw files, by readers and rules of its own (package rawfiles, which shares no code with
// ingest), and holds what the service serves against them: every indicator's survey years, at
// least 1,000 (municipality, indicator, year) values drawn at random over all indicators and
// years, and for a sample of indicator-years the whole ranking, rank and deviation score of every
// municipality.
func TestIndicatorsAgainstRawFiles(t *testing.T) {
	raw := testenv.Shared(t, "data/raw")
	src, err := rawfiles.ReadSources(raw, financeLists(t))
	if err != nil {
		t.Fatal(err)
	}
	var served servedIndicators = catalogIndicators{realdata.Catalog(t, "https://hensachi.example")}
	codes := served.Codes()
	if want := len(src.Codes.Entries); len(codes) != want {
		t.Fatalf("the service has %d municipalities, the code list %d", len(codes), want)
	}

	type pair struct {
		ind  hensachi.Indicator
		year int
	}
	var pairs []pair
	for _, ind := range served.Catalogue() {
		var servedYears []int
		for _, y := range ind.Years {
			servedYears = append(servedYears, y.Year)
			pairs = append(pairs, pair{ind, y.Year})
		}
		if want := yearsWithValues(src, ind, codes); !slices.Equal(servedYears, want) {
			t.Errorf("%s: served for years %v, the raw files give values for %v", ind.Key, servedYears, want)
		}
	}
	if len(pairs) == 0 {
		t.Fatal("the service has no indicator-years")
	}

	rng := rand.New(rand.NewPCG(proofSeed, 1))
	compared, unknown, nulls, failures := 0, 0, 0, 0
	hit := map[string]bool{}
	// compare holds one served value against the raw files, reporting false for a figure the raw
	// readers cannot place.
	compare := func(p pair, code string) bool {
		mine, exact, st := src.Recompute(p.ind, p.year, code)
		if st == rawfiles.Unknown {
			unknown++
			return false
		}
		compared++
		hit[p.ind.Key] = true
		got, ok := served.Value(p.ind.Key, p.year, code)
		switch {
		case st == rawfiles.None && ok:
			failures++
			t.Errorf("%s %d %s: served %v, the raw files give no value", p.ind.Key, p.year, code, got)
		case st == rawfiles.None:
			nulls++
		case !ok:
			failures++
			t.Errorf("%s %d %s: served null, the raw files give %v (%s)", p.ind.Key, p.year, code, mine, explain(src, p.ind, p.year, code))
		case !agrees(got, mine, exact, p.ind.Decimals):
			failures++
			t.Errorf("%s %d %s: served %v, the raw files give %v (%s)", p.ind.Key, p.year, code, got, mine, explain(src, p.ind, p.year, code))
		}
		if failures > 20 {
			t.Fatal("more than 20 values differ; stopping")
		}
		return true
	}
	const want = 1500
	for compared < want && unknown < 10*want {
		compare(pairs[rng.IntN(len(pairs))], codes[rng.IntN(len(codes))])
	}
	if compared < 1000 {
		t.Errorf("compared %d values, want at least 1,000 (%d draws fell on figures the raw readers cannot place)", compared, unknown)
	}
	t.Logf("compared %d values (%d of them nulls) of %d indicators over %d indicator-years; %d draws skipped as unplaceable",
		compared, nulls, len(hit), len(pairs), unknown)

	// The finance lists of FY2005–FY2015 (.xls, by prefecture and name before FY2011, null where a
	// merger changed a territory since) get a draw of their own, so that every run holds a few
	// hundred of their values whatever the draw above fell on.
	var lists []pair
	for _, p := range pairs {
		if p.year <= lastXLSFinanceYear && slices.ContainsFunc(p.ind.Formula.Items, func(it string) bool { return strings.HasPrefix(it, "finance.") }) {
			lists = append(lists, p)
		}
	}
	if len(lists) == 0 {
		t.Fatalf("no finance indicator is served for FY%d or before", lastXLSFinanceYear)
	}
	before, tries := compared, 0
	for compared-before < 300 && tries < 3000 {
		tries++
		compare(lists[rng.IntN(len(lists))], codes[rng.IntN(len(codes))])
	}
	if compared-before < 300 {
		t.Errorf("compared %d values of the finance lists of FY2005–FY%d in %d draws, want 300", compared-before, lastXLSFinanceYear, tries)
	}
	t.Logf("compared %d values of the finance lists of FY2005–FY%d over %d indicator-years", compared-before, lastXLSFinanceYear, len(lists))

	ranked := 0
	for ranked < 30 {
		p := pairs[rng.IntN(len(pairs))]
		column, ok := recomputeColumn(src, p.ind, p.year, codes)
		if !ok || len(column) < 2 {
			continue // a figure the raw readers cannot place would move every rank below it
		}
		ranked++
		checkSummary(t, p.ind, p.year, column)
		if p.ind.LowerIsBetter() { // ranked from the lowest value: the highest of the negated ones
			for code, v := range column {
				column[code] = -v
			}
		}
		for code, want := range rawfiles.Rank(column) {
			rank, h, ok := served.Standing(p.ind.Key, p.year, code)
			if !ok || rank != want.Rank || h != want.Hensachi {
				t.Errorf("%s %d %s: served rank %d, score %v (present: %t); recomputed rank %d of %d, score %v",
					p.ind.Key, p.year, code, rank, h, ok, want.Rank, len(column), want.Hensachi)
			}
		}
	}
}

// checkSummary holds an indicator-year's national summary against the recomputed column: the count,
// the least and greatest values, and the median and mean to one decimal more than the values.
func checkSummary(t *testing.T, ind hensachi.Indicator, year int, column map[string]float64) {
	t.Helper()
	k := ind.YearIndex(year)
	got := ind.Years[k]
	var vals []float64
	sum := 0.0
	for _, v := range column {
		vals = append(vals, v)
	}
	slices.Sort(vals)
	for _, v := range vals {
		sum += v
	}
	n := len(vals)
	median := vals[n/2]
	if n%2 == 0 {
		median = (vals[n/2-1] + vals[n/2]) / 2
	}
	mean := sum / float64(n)
	d := ind.Decimals + 1
	if got.Count != n || got.Min != vals[0] || got.Max != vals[n-1] ||
		!agrees(got.Median, rawfiles.RoundHalfAway(median, d), median, d) || !agrees(got.Mean, rawfiles.RoundHalfAway(mean, d), mean, d) {
		t.Errorf("%s %d: served summary %+v; recomputed count %d, median %v, mean %v, min %v, max %v",
			ind.Key, year, got, n, rawfiles.RoundHalfAway(median, d), rawfiles.RoundHalfAway(mean, d), vals[0], vals[n-1])
	}
}

// financeLists are the lists of financial indicators the dataset declares it is built from: the
// proof recomputes the years the service claims to have, from the same files.
func financeLists(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "ingest", "sources.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Sources []struct {
			Path   string `json:"path"`
			Series string `json:"series"`
		} `json:"sources"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var lists []string
	for _, s := range m.Sources {
		if s.Series == "finance" {
			lists = append(lists, s.Path)
		}
	}
	if len(lists) == 0 {
		t.Fatal("ingest/sources.json lists no finance series")
	}
	return lists
}

// yearsWithValues are the survey years of an indicator in which some municipality has a value.
func yearsWithValues(src *rawfiles.Sources, ind hensachi.Indicator, codes []string) []int {
	var out []int
	for _, y := range src.IndicatorYears(ind) {
		if slices.ContainsFunc(codes, func(c string) bool {
			_, _, st := src.Recompute(ind, y, c)
			return st == rawfiles.Have
		}) {
			out = append(out, y)
		}
	}
	return out
}

// recomputeColumn recomputes an indicator-year for every municipality; ok is false when one of
// them cannot be placed.
func recomputeColumn(src *rawfiles.Sources, ind hensachi.Indicator, year int, codes []string) (map[string]float64, bool) {
	col := map[string]float64{}
	for _, c := range codes {
		v, _, st := src.Recompute(ind, year, c)
		switch st {
		case rawfiles.Unknown:
			return nil, false
		case rawfiles.Have:
			col[c] = v
		}
	}
	return col, true
}

// agrees reports whether a served value is the recomputed one: equal once rounded, or, where the
// exact value lies on the rounding boundary up to floating-point error, either neighbour.
func agrees(served, rounded, exact float64, decimals int) bool {
	if served == rounded {
		return true
	}
	step := math.Pow10(-decimals)
	half := exact*math.Pow10(decimals) - math.Floor(exact*math.Pow10(decimals))
	return math.Abs(half-0.5) < 1e-6 && math.Abs(served-rounded) <= step*1.000001
}

// explain shows the items a recomputed value came from, for a failure's message.
func explain(src *rawfiles.Sources, ind hensachi.Indicator, year int, code string) string {
	f := ind.Formula
	s := ""
	for _, it := range slices.Concat(f.Items, f.Numerator, f.Minus) {
		v, st := src.Value(it, year, code)
		s += fmt.Sprintf("%s@%d=%v/%d ", it, year, v, st)
	}
	at, _ := src.DenominatorYear(ind, year)
	for _, it := range f.Denominator {
		v, st := src.Value(it, at, code)
		s += fmt.Sprintf("%s@%d=%v/%d ", it, at, v, st)
	}
	return s
}

// TestHometownTaxIndicatorsInYen pins ratios of the hometown tax to figures worked by hand from
// the detail file's exact yen (jichitai_detail_multi.csv, 受入額_円 and 受入件数) and the
// 住民基本台帳 population of the next 1 January: receipts rounded to thousand yen first would give 9,041,455, 49,363 and 25,306, which
// the proof above, reading the catalogue's own formula, cannot tell apart.
func TestHometownTaxIndicatorsInYen(t *testing.T) {
	served := catalogIndicators{realdata.Catalog(t, "https://hensachi.example")}
	served.pinned(t, []pin{
		{"furusato_average_donation", 2023, "13101", 9041434},  // 千代田区: ¥99,455,775 / 11
		{"furusato_average_donation", 2024, "13421", 49362},    // 小笠原村: ¥27,988,500 / 567
		{"furusato_receipts_per_person", 2022, "46303", 27776}, // 三島村: ¥10,249,240 / 369 registered on 1 January 2023 (jumin-2023.xlsx row 2207)
	})
}

// pin is a figure worked out by hand: an indicator's value for a municipality in a year.
type pin struct {
	key  string
	year int
	code string
	want float64
}

// pinned checks each pinned figure against the served one.
func (served catalogIndicators) pinned(t *testing.T, pins []pin) {
	t.Helper()
	for _, p := range pins {
		if got, ok := served.Value(p.key, p.year, p.code); !ok || got != p.want {
			t.Errorf("%s %d %s = %v (ok %v), want %v", p.key, p.year, p.code, got, ok, p.want)
		}
	}
}

// TestDenominatorsByHand pins figures worked by hand from the raw files, one per denominator rule
// the issue 「Figures a journalist can print」 was about.
func TestDenominatorsByHand(t *testing.T) {
	served := catalogIndicators{realdata.Catalog(t, "https://hensachi.example")}
	served.pinned(t, []pin{
		// 飯舘村: 57 births in 2016 over the 6,128 registered on 1 January 2017 (jumin-2017.xls row 494)
		{"jumin_births_per_1000", 2016, "07564", 9.30},
		// 大泉町: 195 births of Japanese children in 2023 over the 34,140 Japanese of the 2020 census
		// (SSDSE-A-2026 A4101, A1102), not 4.63 over all 42,089 residents
		{"births_per_1000", 2023, "10524", 5.71},
		// 夕張市: taxable income of FY2023, ¥6,597,274 thousand (portal C120110), over the 6,411
		// registered on 1 January 2024 (jumin-2024.xlsx row 27)
		{"taxable_income_per_capita", 2023, "01209", 1029.1},
		// 那珂川市: 50,420 on 1 January 2019 over the 50,030 of 2014, when it was 那珂川町 (40305)
		{"jumin_population_change_5y", 2019, "40231", 0.78},
	})
	// 飯舘村's 2016 births over its 41 residents of the 2015 census would be 1,317 per 1,000: the
	// census does not describe it, so the rate is null, and the note says why.
	if got, ok := served.Value("births_per_1000", 2016, "07564"); ok {
		t.Errorf("births_per_1000 2016 07564 = %v, want null under the evacuation rule", got)
	}
	for _, ind := range served.Catalogue() {
		if ind.Key == "births_per_1000" && !strings.Contains(ind.Note, "2015年国勢調査の人口が2016年1月1日の住民基本台帳人口の半分未満の市町村（福島県") {
			t.Errorf("births_per_1000's note %q does not name the municipalities the evacuation rule nulls", ind.Note)
		}
	}
}

// TestIndicatorBounds holds every served value to what its kind allows: a share in % is at most
// 100, and births, deaths and natural increase per 1,000 residents are within ±50 (a rate past that
// divides by the wrong people, as births over a census that counted 41 of 6,000 registered). No
// entry needs an exception; one that did would have to explain it in its note and be named here.
func TestIndicatorBounds(t *testing.T) {
	served := catalogIndicators{realdata.Catalog(t, "https://hensachi.example")}
	vital := []string{"A4101", "A4200", "jumin.births", "jumin.deaths"}
	population := []string{"A1101", "A1102", "jumin.population"}
	checked := 0
	for _, ind := range served.Catalogue() {
		share := ind.Unit == "%" && (strings.HasSuffix(ind.Key, "_share") || strings.Contains(ind.Label, "割合"))
		f := ind.Formula
		perPopulation := ind.Unit == "‰" && len(f.Denominator) == 1 && slices.Contains(population, f.Denominator[0]) &&
			slices.ContainsFunc(f.Numerator, func(it string) bool { return slices.Contains(vital, it) })
		if !share && !perPopulation {
			continue
		}
		checked++
		for _, y := range ind.Years {
			switch {
			case share && y.Max > 100:
				t.Errorf("%s %d: a share of %v%%", ind.Key, y.Year, y.Max)
			case perPopulation && (y.Max > 50 || y.Min < -50):
				t.Errorf("%s %d: %v to %v per 1,000 residents", ind.Key, y.Year, y.Min, y.Max)
			}
		}
	}
	if checked < 40 {
		t.Errorf("checked %d indicators, expected the shares and the vital rates (40 or more)", checked)
	}
}
