package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/fixtures"
)

func TestLoadIndicators(t *testing.T) {
	inds, err := LoadIndicators()
	if err != nil {
		t.Fatal(err)
	}
	if len(inds) == 0 {
		t.Fatal("the compiled manifest has no indicators")
	}
}

// TestIndicatorManifestErrors: every fault of an entry names the entry and the field.
func TestIndicatorManifestErrors(t *testing.T) {
	const good = `{"key": "births", "label": "出生率", "unit": "‰", "group": "人口・世帯", "description": "d", "source": "s",
		"direction": "higher_better", "kind": "rate", "formula": {"numerator": ["A4101"], "denominator": ["A1101"], "scale": 1000}, "denominator_source": "census", "decimals": 2}`
	with := func(replace ...string) string {
		return `{"indicators": [` + strings.NewReplacer(replace...).Replace(good) + `]}`
	}
	tests := []struct {
		name, doc, entry, field, reason string
	}{
		{"not JSON", `{"indicators": [`, "", "", "not the expected JSON document"},
		{"unknown field", with(`"decimals"`, `"fromyear": 2016, "decimals"`), "", "", `unknown field "fromyear"`},
		{"no indicators", `{"indicators": []}`, "", "", "no indicators"},
		{"key not snake_case", with(`"births"`, `"Births-1"`), "#1", "key", "not a snake_case key"},
		{"key repeated", `{"indicators": [` + good + `, ` + good + `]}`, "births", "key", "used by an earlier entry"},
		{"empty label", with(`"出生率"`, `" "`), "births", "label", "empty"},
		{"unknown group", with(`"人口・世帯"`, `"人口"`), "births", "group", `"人口" is not one of`},
		{"decimals", with(`"decimals": 2`, `"decimals": 7`), "births", "decimals", "not from 0 to 6"},
		{"no direction", with(`"direction": "higher_better", `, ``), "births", "direction", `"" is not one of`},
		{"unknown direction", with(`"higher_better"`, `"up"`), "births", "direction", `"up" is not one of`},
		{"unknown kind", with(`"rate"`, `"share"`), "births", "kind", `"share" is not one of`},
		{"a count with a direction", with(`"rate"`, `"count"`), "births", "direction", "a count is neutral"},
		{"years given", with(`"decimals": 2`, `"decimals": 2, "years": [{"year": 2020}]`), "births", "years", "the ingest adds the years"},
		{"items and a ratio", with(`"numerator"`, `"items": ["A1101"], "numerator"`), "births", "formula", "either items or numerator"},
		{"no formula", with(`"numerator": ["A4101"], "denominator": ["A1101"], `, ``), "births", "formula", "give items, or numerator"},
		{"no denominator", with(`"denominator": ["A1101"], `, ``), "births", "formula.denominator", "needs a denominator"},
		{"negative scale", with(`"scale": 1000`, `"scale": -1`), "births", "formula.scale", "not a positive number"},
		{"item not in the grammar", with(`["A4101"]`, `["a4101"]`), "births", "formula.numerator[0]", "neither an SSDSE-A item code"},
		{"unknown source", with(`["A1101"]`, `["census.A1101"]`), "births", "formula.denominator[0]", `names no source with items`},
		{"unknown finance header", with(`["A4101"]`, `["finance.財政力"]`), "births", "formula.numerator[0]", `finance has no item "財政力"`},
		{"item summed twice", with(`["A1101"]`, `["A1101", "A1101"]`), "births", "formula.denominator[1]", "summed twice"},
		{"from after to", with(`"decimals": 2`, `"decimals": 2, "from_year": 2020, "to_year": 2016`), "births", "to_year", "before from_year"},
		{"not a year", with(`"decimals": 2`, `"decimals": 2, "from_year": 20`), "births", "from_year", "not a survey year"},
		{"break without a note", with(`"decimals": 2`, `"decimals": 2, "breaks": [2018]`), "births", "note", "must be explained"},
		{"unknown change", with(`"decimals": 2`, `"decimals": 2, "change": "ratio"`), "births", "change", `"ratio" is not one of difference, percent`},
		{"a change of a change", with(`"numerator": ["A4101"], "denominator": ["A1101"], "scale": 1000}, "denominator_source": "census"`,
			`"items": ["A1101"], "change_over": 1}, "change": "difference"`), "births", "change", "itself a change"},
		{"break outside the years", with(`"decimals": 2`, `"decimals": 2, "to_year": 2016, "breaks": [2018], "note": "n"`), "births", "breaks", "outside from_year–to_year"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseIndicators([]byte(tc.doc))
			var me *ManifestError
			if !errors.As(err, &me) {
				t.Fatalf("error %v (%T), want a *ManifestError", err, err)
			}
			if me.Entry != tc.entry || me.Field != tc.field || !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("error %q at entry %q field %q; want entry %q field %q saying %q", err, me.Entry, me.Field, tc.entry, tc.field, tc.reason)
			}
			if tc.entry != "" && !strings.Contains(err.Error(), "entry "+tc.entry+" field "+tc.field) {
				t.Errorf("message %q does not name the entry and field", err)
			}
		})
	}
	if _, err := parseIndicators([]byte(with())); err != nil {
		t.Errorf("the good entry: %v", err)
	}
}

// indicatorResult builds the fixtures with the fixture catalogue (or inds) and returns the build.
func indicatorResult(t *testing.T, ms []fixtures.Municipality, inds []hensachi.Indicator, opts ...fixtures.Option) (*Result, error) {
	t.Helper()
	dir := t.TempDir()
	if err := fixtures.WriteRaw(dir, ms, opts...); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	if inds == nil {
		inds = fixtures.Indicators()
	}
	return BuildIndicators(dir, slog.New(slog.NewTextHandler(io.Discard, nil)), inds)
}

// indicatorValue is a built indicator's value for a municipality and survey year.
func indicatorValue(t *testing.T, res *Result, key string, year int, code string) hensachi.Optional[float64] {
	t.Helper()
	i := slices.IndexFunc(res.Indicators.Indicators, func(ind hensachi.Indicator) bool { return ind.Key == key })
	if i < 0 {
		t.Fatalf("no indicator %s", key)
	}
	k := res.Indicators.Indicators[i].YearIndex(year)
	if k < 0 {
		t.Fatalf("indicator %s has no year %d (years %v)", key, year, res.Indicators.Indicators[i].Years)
	}
	m := slices.IndexFunc(res.Municipalities, func(m hensachi.Municipality) bool { return m.Code == code })
	return res.IndicatorValues[i][k][m]
}

func fixtureColumn(code string) fixtures.SSDSEColumn {
	for _, c := range fixtures.SSDSEColumns {
		if c.Code == code {
			return c
		}
	}
	panic("no fixture column " + code)
}

// TestIndicatorYears checks the year rule on the fixtures: an indicator's years are its counted
// items' survey years, a denominator takes the year its denominator_source says (the nearest
// census, the 住民基本台帳 of the next 1 January, which leaves out the years before its first
// release), a change over a year needs the year before, and each source gives the years it has.
func TestIndicatorYears(t *testing.T) {
	res, err := indicatorResult(t, fixtures.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	years := func(from, to int) []int {
		var ys []int
		for y := from; y <= to; y++ {
			ys = append(ys, y)
		}
		return ys
	}
	want := map[string][]int{
		"population":          {2015, 2020}, // census columns: 2015 up to the 2021 edition, 2020 after
		"area_km2":            years(2016, 2024),
		"births_per_1000":     years(2015, 2023), // the newest edition has 2023, one year back per edition
		"in_movers":           years(2016, 2024),
		"shops_per_10000":     years(2013, 2021),
		"jobless_rate":        {2015, 2020}, // the 2018 edition has no labour-force column
		"fiscal_strength":     fixtures.FinanceYears,
		"future_burden":       fixtures.FinanceYears,
		"income_per_taxpayer": fixtures.IncomeYears,
		"furusato_receipts":   years(2008, 2024),
		"furusato_count":      years(2008, 2024),
		"furusato_per_person": years(2013, 2024), // over the population of 1 January 2014 on
		"jumin_population":    fixtures.JuminYears,
		"jumin_change_1y":     years(2015, 2025),
		"marriages_per_1000":  years(2015, 2023),
	}
	for _, ind := range res.Indicators.Indicators {
		var got []int
		for _, y := range ind.Years {
			got = append(got, y.Year)
		}
		if !slices.Equal(got, want[ind.Key]) {
			t.Errorf("%s years %v, want %v", ind.Key, got, want[ind.Key])
		}
	}

	ms := fixtures.Default()
	aoba := ms[slices.IndexFunc(ms, func(m fixtures.Municipality) bool { return m.Code == "01202" })]
	births, pop := fixtureColumn("A4101"), fixtureColumn("A1101")
	check := func(key string, year int, want float64) {
		t.Helper()
		if got := indicatorValue(t, res, key, year, aoba.Code); !got.Valid || got.V != want {
			t.Errorf("%s %d = %+v, want %v", key, year, got, want)
		}
	}
	// births over the nearest census: 2023 and 2018 over the 2020 census, 2017 over the 2015 one
	for _, y := range []int{2023, 2018, 2017} {
		census := 2020
		if y < 2018 {
			census = 2015
		}
		check("births_per_1000", y, hensachi.Round(aoba.SSDSEValue(births, y)/aoba.SSDSEValue(pop, census)*1000, 2))
	}
	check("births_per_1000", 2023, hensachi.Round(288.0/48000*1000, 2)) // the same by hand: 48,000 × 0.006 births
	check("population", 2015, 43200)                                    // 48,000 less 2% for five years
	check("area_km2", 2024, 123.45)                                     // 12,345 ha
	shops := fixtureColumn("H6130")
	check("shops_per_10000", 2016, hensachi.Round((aoba.SSDSEValue(shops, 2016)+aoba.SSDSEValue(fixtureColumn("H6131"), 2016))/aoba.SSDSEValue(pop, 2015)*10000, 2))
	check("fiscal_strength", 2016, fixtures.FinanceFigures(ms, 2016)["01202"]["財政力指数"])
	last := len(fixtures.IncomeYears) - 1
	check("income_per_taxpayer", 2023, hensachi.Round(aoba.TaxableIncome[last]/aoba.Taxpayers[last]*0.1, 1)) // 300 by hand
	// receipts: FY2015 from data.json (thousand yen), FY2024 from the detail file (yen, rounded)
	check("furusato_receipts", 2015, math.Round(98765432.0/1000))
	check("furusato_receipts", 2024, math.Round(1234567890.0/1000))
	check("furusato_count", 2024, 45678)
	check("furusato_count", 2015, 4321)
	// FY2013 per person over the population of 1 January 2014, FY2024 over that of 1 January 2025
	check("furusato_per_person", 2013, hensachi.Round(math.Round(float64(aoba.Receipts[2013].Yen)/1000)*1000/fixtures.JuminFigures(48000, 2014, 1).Population, 0))
	check("furusato_per_person", 2024, 26059) // ¥1,234,568,000 / 47,376 (48,000 × 0.987)
	check("jumin_population", 2014, 48960)    // 48,000 × 1.02
	check("jumin_change_1y", 2015, -0.29)     // (48,816 − 48,960) / 48,960 × 100
}

// TestIndicatorNulls: a zero or missing denominator and a missing figure are nulls, each with its
// reason and years in the report.
func TestIndicatorNulls(t *testing.T) {
	ms := fixtures.Default()
	edit(t, ms, "01345", func(m *fixtures.Municipality) { m.SSDSE["A1101"] = 0 })
	res, err := indicatorResult(t, ms, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := indicatorValue(t, res, "births_per_1000", 2023, "01345"); v.Valid {
		t.Errorf("births with no population = %v, want null", v)
	}
	n := res.Report.indicatorByID["births_per_1000"]
	if g := n.reasons["A1101 is 0"]; g == nil || !slices.Equal(g.codes, []string{"01345"}) || len(g.years) != 9 {
		t.Errorf("births nulls %+v", n.reasons)
	}
	// future_burden is "-" for every other municipality, in every year: no net future burden, 0
	if got := res.Report.IndicatorNulls("future_burden"); got != 0 {
		t.Errorf("future_burden has %d nulls, want none: a dash is 0", got)
	}
	if v := indicatorValue(t, res, "future_burden", fixtures.FinanceYear, "01202"); v != hensachi.Some(0.0) {
		t.Errorf("future_burden of 01202, written \"-\", is %v, want 0", v)
	}
	// 霧野町 has no income series before its merger (2010–2012)
	g := res.Report.indicatorByID["income_per_taxpayer"].reasons["C120110/2010: null for 2010 in "+fixtures.PathPortal]
	if g == nil || !slices.Equal(g.codes, []string{"01345"}) {
		t.Errorf("income nulls %+v", res.Report.indicatorByID["income_per_taxpayer"].reasons)
	}
	var text bytes.Buffer
	if _, err := res.Report.WriteTo(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"births_per_1000", "A1101 is 0 [2015–2023] (01345 霧野町)",
		"item-years two editions give different figures for (the newer edition's are kept): 0",
		"A5101 転入者数 = 転入者数（日本人移動者）",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, text.String())
		}
	}
}

// TestEditionPrecedence: where two editions hold an item's survey year, the newer one's figures
// are kept and a difference is reported with its count and examples.
func TestEditionPrecedence(t *testing.T) {
	revise := func(edition int, value string) fixtures.Option {
		return fixtures.WithFault(fixtures.Fault{File: fixtures.PathSSDSEEdition(edition), Kind: fixtures.NonNumeric,
			Code: "01202", Column: "A1101", Value: value})
	}
	t.Run("an older edition differs", func(t *testing.T) {
		res, err := indicatorResult(t, fixtures.Default(), nil, revise(2023, "47000"))
		if err != nil {
			t.Fatal(err)
		}
		if v := indicatorValue(t, res, "population", 2020, "01202"); v != hensachi.Some(48000.0) {
			t.Errorf("population 2020 = %v, want the 2026 edition's 48000", v)
		}
		if res.Report.Disagreements() != 1 {
			t.Fatalf("%d disagreements, want 1: %+v", res.Report.Disagreements(), res.Report.disagreements)
		}
		d := res.Report.disagreements[0]
		if d.item != "A1101" || d.year != 2020 || d.codes != 1 || d.older != fixtures.PathSSDSEEdition(2023) || d.newer != fixtures.PathSSDSE ||
			!slices.Equal(d.examples, []string{"01202 青葉市 47000 → 48000"}) {
			t.Errorf("disagreement %+v", d)
		}
	})
	t.Run("the newest edition revised", func(t *testing.T) {
		res, err := indicatorResult(t, fixtures.Default(), nil, revise(2026, "48500"))
		if err != nil {
			t.Fatal(err)
		}
		if v := indicatorValue(t, res, "population", 2020, "01202"); v != hensachi.Some(48500.0) {
			t.Errorf("population 2020 = %v, want 48500", v)
		}
		// the 2022–2025 editions hold 2020 too, each with the old figure
		if res.Report.Disagreements() != 4 {
			t.Errorf("%d disagreements, want one per older edition (4)", res.Report.Disagreements())
		}
	})
}

// renameItem writes another Japanese name for an item in one edition.
func renameItem(edition int, item, name string) fixtures.Option {
	return fixtures.WithMutate(func(file, _ string, rows [][]any) [][]any {
		if file == fixtures.PathSSDSEEdition(edition) {
			rows[2][slices.Index(rows[0], any(item))] = name
		}
		return rows
	})
}

// TestDefinitionBreaks: an item renamed between editions without a declared rename is a change of
// definition, which an indicator crossing it must mark or avoid.
func TestDefinitionBreaks(t *testing.T) {
	births := func(change func(*hensachi.Indicator)) []hensachi.Indicator {
		ind := fixtures.Indicators()[2]
		if ind.Key != "births_per_1000" {
			t.Fatalf("fixture indicator %s", ind.Key)
		}
		change(&ind)
		return []hensachi.Indicator{ind}
	}
	// the 2018 edition (births of 2015) writes another name: the definition changes from 2016
	changed := renameItem(2018, "A4101", "出生数（日本人）")
	tests := []struct {
		name   string
		inds   []hensachi.Indicator
		opts   []fixtures.Option
		reason string // "" for a build that succeeds
	}{
		{"unmarked", births(func(*hensachi.Indicator) {}), []fixtures.Option{changed},
			"A4101 is 「出生数（日本人）」 up to 2015 and 「出生数」 from 2016, a change of definition"},
		{"marked", births(func(ind *hensachi.Indicator) { ind.Breaks, ind.Note = []int{2016}, "2015年は日本人のみ。" }), []fixtures.Option{changed}, ""},
		{"kept to one definition", births(func(ind *hensachi.Indicator) { ind.FromYear = 2016 }), []fixtures.Option{changed}, ""},
		{"a width change is no change", births(func(*hensachi.Indicator) {}), []fixtures.Option{renameItem(2018, "A4101", "出生数")}, ""},
		{"a break the sources document without a rename", births(func(ind *hensachi.Indicator) { ind.Breaks, ind.Note = []int{2016}, "n" }), nil, ""},
		{"a break in a year the indicator does not have", births(func(ind *hensachi.Indicator) { ind.Breaks, ind.Note = []int{2030}, "n" }), nil,
			"2030 is not a survey year after the first"},
		{"a break in the first year", births(func(ind *hensachi.Indicator) { ind.Breaks, ind.Note = []int{2015}, "n" }), nil,
			"2015 is not a survey year after the first"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := indicatorResult(t, fixtures.Default(), tc.inds, tc.opts...)
			if tc.reason == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var me *ManifestError
			if !errors.As(err, &me) || me.Entry != "births_per_1000" || me.Field != "breaks" || !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("error %v, want one at births_per_1000 breaks saying %q", err, tc.reason)
			}
		})
	}
}

// TestIndicatorPlanErrors: what only the sources can tell is checked when they are read, and
// named by entry and field too.
func TestIndicatorPlanErrors(t *testing.T) {
	entry := func(f hensachi.Formula, from, to int) []hensachi.Indicator {
		return []hensachi.Indicator{{Key: "probe", Label: "l", Group: "人口・世帯", Description: "d", Source: "s", Formula: f, FromYear: from, ToYear: to}}
	}
	tests := []struct {
		name   string
		inds   []hensachi.Indicator
		field  string
		reason string
	}{
		{"an item no edition has", entry(hensachi.Formula{Items: []string{"A9999"}}, 0, 0), "formula.items[0]", "no edition of SSDSE-A has this item code"},
		{"items of different years summed", entry(hensachi.Formula{Items: []string{"A4101", "A1101"}}, 0, 0), "formula.items",
			"items summed together must share a survey year"},
		{"a denominator of different years", entry(hensachi.Formula{Numerator: []string{"A1101"}, Denominator: []string{"A1101", "A4101"}}, 0, 0),
			"formula.denominator", "must share a survey year"},
		{"no year within the bounds", entry(hensachi.Formula{Items: []string{"A1101"}}, 2016, 2019), "formula.items", "no survey year"},
		{"years without a measure of change", entry(hensachi.Formula{Items: []string{"A1101"}}, 0, 0), "change", "declare how a change between two of them is measured"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := indicatorResult(t, fixtures.Default(), tc.inds)
			var me *ManifestError
			if !errors.As(err, &me) || me.Entry != "probe" || me.Field != tc.field || !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("error %v, want one at probe %s saying %q", err, tc.field, tc.reason)
			}
		})
	}
}

// TestParseSSDSEEdition: an older edition is read whole, its names kept, its old code of a
// municipality whose status changed read as the current one.
func TestParseSSDSEEdition(t *testing.T) {
	ms := fixtures.Default()
	cl := fixtureCodeList(t, ms)
	successor := fixtures.WithMutate(func(_, _ string, rows [][]any) [][]any {
		for _, r := range rows[3:] {
			if r[0] == "R01202" {
				r[0] = "R40305" // as if 01202 were 那珂川市, listed as 那珂川町
			}
		}
		return rows
	})
	saved := successors
	successors = map[string]string{"40305": "01202"}
	defer func() { successors = saved }()
	path := fixtures.PathSSDSEEdition(2018)
	tb, err := ParseSSDSE(path, bytes.NewReader(render(t, fixtures.Files[path], ms, successor)), cl)
	if err != nil {
		t.Fatal(err)
	}
	wantCodes(t, tb, ms)
	if tb.Names["A1101"] != "人口総数" || tb.Years["A1101"] != "2015" || tb.Years["A4101"] != "2015" {
		t.Errorf("A1101 %q %s, A4101 %s", tb.Names["A1101"], tb.Years["A1101"], tb.Years["A4101"])
	}
	if _, ok := tb.Years["F1102"]; ok {
		t.Error("the 2018 edition has a labour-force column")
	}
	wantCell(t, tb, "01202", "A1101", 43200)
	for _, m := range members(ms) {
		for _, c := range fixtures.SSDSEColumns {
			if y := fixtures.SSDSEYear(c, 2018); y != 0 {
				wantCell(t, tb, m.Code, c.Code, m.SSDSEValue(c, y))
			}
		}
	}
}

func TestParseSSDSEEditionMalformed(t *testing.T) {
	cl := fixtureCodeList(t, fixtures.Default())
	header := func(row, col int, value string) []fixtures.Option {
		return mutate(func(_ string, rows [][]any) [][]any {
			rows[row][col] = value
			return rows
		})
	}
	runMalformed(t, fixtures.PathSSDSE, fixtures.WriteSSDSE, []malformed{
		{name: "not an item code", opts: header(0, 4, "人口"), row: 1, column: "人口", reason: "not an SSDSE-A item code"},
		{name: "item twice", opts: header(0, 4, "A1101"), row: 1, column: "A1101", reason: "appears twice"},
		{name: "not a year", opts: header(1, 3, "令和2"), row: 2, column: "A1101", reason: `not a survey year: "令和2"`},
	}, func(r io.Reader) error {
		_, err := ParseSSDSE(fixtures.PathSSDSE, r, cl)
		return err
	})
}

func TestYearSpans(t *testing.T) {
	for _, tc := range []struct {
		years []int
		want  string
	}{
		{nil, "[]"}, {[]int{2015}, "[2015]"}, {[]int{2015, 2016, 2017, 2020}, "[2015–2017, 2020]"},
	} {
		if got := yearSpans(tc.years); got != tc.want {
			t.Errorf("yearSpans(%v) = %q, want %q", tc.years, got, tc.want)
		}
	}
}

func ExampleFormula() {
	f := hensachi.Formula{Numerator: []string{"A4101"}, Denominator: []string{"A1101"}, Scale: 1000}
	fmt.Println(f.Counted(), f.Factor(), hensachi.Formula{Items: []string{"A1101"}}.Factor())
	// Output: [A4101] 1000 1
}

// TestItemNames: every item a formula of the catalogue takes has a name for the pages to show
// beside its code: SSDSE-A's own, a finance list's header, the other sources' item in words.
func TestItemNames(t *testing.T) {
	res, err := indicatorResult(t, fixtures.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for item, want := range map[string]string{
		"A4101":                 fixtureColumn("A4101").Name,
		"A1101":                 "総人口",
		"finance.財政力指数":         "財政力指数",
		"portal.C120110":        "課税対象所得（千円）",
		"jumin.population":      "住民基本台帳人口（1月1日、日本人住民と外国人住民）",
		"furusato.receipts_yen": "ふるさと納税の受入額（円）",
	} {
		if got, ok := res.ItemNames[item]; ok && got != want {
			t.Errorf("the name of %s: %q, want %q", item, got, want)
		}
	}
	for _, ind := range res.Indicators.Indicators {
		f := ind.Formula
		for _, item := range slices.Concat(f.Counted(), f.Minus, f.Denominator) {
			if res.ItemNames[item] == "" {
				t.Errorf("%s: item %s has no name", ind.Key, item)
			}
		}
	}
	for _, item := range []string{"A4101", "finance.財政力指数", "portal.C120110", "jumin.population"} {
		if _, ok := res.ItemNames[item]; !ok {
			t.Errorf("the fixture catalogue takes %s, which has no name", item)
		}
	}
}
