package ingest

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/hensachi/hensachi"
)

// itemPanel is every item a formula may name, each with its series of survey years.
type itemPanel struct {
	series map[item]series
	// editions are SSDSE-A's, oldest first, for the rule that items summed together share a year.
	editions []edition
	breaks   map[string][]definitionBreak // by SSDSE-A item code
}

// newItemPanel gathers the series of every source's items.
func newItemPanel(ssdse map[string]series, editions []edition, breaks map[string][]definitionBreak,
	finance map[string]series, portal *Table, furusato map[string]series, jumin map[string]series) *itemPanel {
	p := &itemPanel{series: map[item]series{}, editions: editions, breaks: breaks}
	for name, s := range ssdse {
		p.series[item{name: name}] = s
	}
	for name, s := range finance {
		p.series[item{source: financeItems, name: name}] = s
	}
	for _, name := range sourceItems[portalItems] {
		p.series[item{source: portalItems, name: name}] = columnSeries(portal, name)
	}
	for name, s := range furusato {
		p.series[item{source: furusatoItems, name: name}] = s
	}
	for name, s := range jumin {
		p.series[item{source: juminItems, name: name}] = s
	}
	return p
}

// plannedIndicator is an indicator with the figures each of its survey years is computed from.
type plannedIndicator struct {
	ind   hensachi.Indicator
	years []plannedYear
}

type plannedYear struct {
	year int
	// denominatorYear is the year the denominator's figures are of (by the entry's
	// denominator_source), 0 without a denominator.
	denominatorYear                  int
	counted, subtracted, denominator []*yearly
	// base are the counted items of the year change_over before, for a change over years.
	base []*yearly
}

// formulaPart is the items of one part of a formula with the field they are written in.
type formulaPart struct {
	field string // items, numerator or denominator
	items []item
}

// plan resolves an indicator's items and years by the year rule (see the top of indicators.go).
// An item without figures, items summed together of different survey years in one edition, no
// survey year within from_year–to_year, a definition break not marked in breaks, and a break
// marked that is not one of its survey years are errors naming the entry and field.
func (p *itemPanel) plan(ind hensachi.Indicator) (plannedIndicator, error) {
	f := ind.Formula
	counted := formulaPart{field: "items"}
	if len(f.Items) == 0 {
		counted.field = "numerator"
	}
	subtracted := formulaPart{field: "minus"}
	den := formulaPart{field: "denominator"}
	for _, part := range []struct {
		into *formulaPart
		raw  []string
	}{{&counted, f.Counted()}, {&subtracted, f.Minus}, {&den, f.Denominator}} {
		for i, raw := range part.raw {
			it, err := parseItem(raw)
			if err != nil {
				return plannedIndicator{}, &ManifestError{Entry: ind.Key, Field: fmt.Sprintf("formula.%s[%d]", part.into.field, i), Err: err}
			}
			if len(p.series[it]) == 0 {
				where := "its source has no figures for it"
				if it.source == "" {
					where = "no edition of SSDSE-A has this item code"
				}
				return plannedIndicator{}, manifestErr(ind.Key, fmt.Sprintf("formula.%s[%d]", part.into.field, i), "%s: %s", raw, where)
			}
			part.into.items = append(part.into.items, it)
		}
	}
	// what is subtracted is of the counted items' year, as what is added
	year := formulaPart{field: counted.field, items: slices.Concat(counted.items, subtracted.items)}
	for _, part := range []formulaPart{year, den} {
		if err := p.shareYears(ind.Key, part); err != nil {
			return plannedIndicator{}, err
		}
	}
	years := p.series[counted.items[0]].years()
	for _, it := range year.items[1:] {
		other := p.series[it].years()
		years = slices.DeleteFunc(years, func(y int) bool { return !slices.Contains(other, y) })
	}
	years = slices.DeleteFunc(years, func(y int) bool { return !inYears(ind, y) })
	if len(years) == 0 {
		return plannedIndicator{}, manifestErr(ind.Key, "formula."+counted.field, "no survey year of its items is within from_year–to_year")
	}
	if err := p.checkBreaks(ind, slices.Concat(year.items, den.items)); err != nil {
		return plannedIndicator{}, err
	}
	if err := checkDeclaredBreaks(ind, years); err != nil {
		return plannedIndicator{}, err
	}
	var denYears []int // the years every denominator item has
	for k, it := range den.items {
		ys := p.series[it].years()
		if k == 0 {
			denYears = ys
		}
		denYears = slices.DeleteFunc(denYears, func(y int) bool { return !slices.Contains(ys, y) })
	}
	if isCensusRule(ind.DenominatorSource) {
		if y := slices.IndexFunc(denYears, func(y int) bool { return y%5 != 0 }); y >= 0 {
			return plannedIndicator{}, manifestErr(ind.Key, "denominator_source", "%s takes census years, and the denominator has %d", ind.DenominatorSource, denYears[y])
		}
	}
	plan := plannedIndicator{ind: ind}
	for _, y := range years {
		py := plannedYear{year: y}
		if f.ChangeOver > 0 {
			if !slices.Contains(years, y-f.ChangeOver) {
				continue
			}
			for _, it := range counted.items {
				py.base = append(py.base, p.series[it].at(y-f.ChangeOver))
			}
		}
		if len(den.items) > 0 {
			dy, ok := denominatorYear(ind.DenominatorSource, y, denYears)
			if !ok {
				continue
			}
			py.denominatorYear = dy
			for _, it := range den.items {
				py.denominator = append(py.denominator, p.series[it].at(dy))
			}
		}
		for _, it := range counted.items {
			py.counted = append(py.counted, p.series[it].at(y))
		}
		for _, it := range subtracted.items {
			py.subtracted = append(py.subtracted, p.series[it].at(y))
		}
		plan.years = append(plan.years, py)
	}
	if len(plan.years) == 0 {
		return plannedIndicator{}, manifestErr(ind.Key, "denominator_source", "no survey year of its items (%s) has a denominator by %s (the denominator has %s)",
			intList(years), cmp.Or(ind.DenominatorSource, "change_over"), intList(denYears))
	}
	return plan, nil
}

// denominatorYear is the year of the denominator's figures for a numerator of year y by a
// denominator_source (see hensachi.DenominatorSources), among the years the denominator has; ok is
// false when it has not that year.
func denominatorYear(rule string, y int, have []int) (int, bool) {
	if len(have) == 0 {
		return 0, false
	}
	switch rule {
	case hensachi.DenominatorSameYear, hensachi.DenominatorJuminJanuary:
		return y, slices.Contains(have, y)
	case hensachi.DenominatorJuminNextJanuary:
		return y + 1, slices.Contains(have, y+1)
	case hensachi.DenominatorCensus, hensachi.DenominatorCensusJapanese:
		best := have[0]
		for _, c := range have[1:] { // ascending, so a tie keeps the earlier
			if abs(c-y) < abs(best-y) {
				best = c
			}
		}
		return best, true
	case hensachi.DenominatorArea:
		i, _ := slices.BinarySearch(have, y+1)
		if i > 0 {
			return have[i-1], true
		}
		return have[0], true
	}
	return 0, false
}

func abs(n int) int { return max(n, -n) }

// isCensusRule reports whether a denominator_source divides by a census count, which the
// evacuation rule covers.
func isCensusRule(rule string) bool {
	return rule == hensachi.DenominatorCensus || rule == hensachi.DenominatorCensusJapanese
}

// shareYears checks that the SSDSE-A items of a part that every edition holds are of one survey
// year there.
func (p *itemPanel) shareYears(key string, part formulaPart) error {
	for _, ed := range p.editions {
		var first item
		for _, it := range part.items {
			if it.source != "" {
				continue
			}
			y, ok := ed.table.Years[it.name]
			if !ok {
				continue
			}
			if first.name == "" {
				first = it
				continue
			}
			if y0 := ed.table.Years[first.name]; y != y0 {
				return manifestErr(key, "formula."+part.field, "%s has %s of %s and %s of %s: items summed together must share a survey year",
					ed.table.File, first, y0, it, y)
			}
		}
	}
	return nil
}

// checkBreaks compares the definition breaks of an indicator's SSDSE-A items within its years
// with the breaks its entry marks.
func (p *itemPanel) checkBreaks(ind hensachi.Indicator, items []item) error {
	found := map[int]string{}
	for _, it := range items {
		for _, b := range p.breaks[it.name] {
			if it.source == "" && inYears(ind, b.previous) && inYears(ind, b.year) {
				found[b.year] = fmt.Sprintf("%s is 「%s」 up to %d and 「%s」 from %d", it, b.from, b.previous, b.to, b.year)
			}
		}
	}
	for _, y := range slices.Sorted(maps.Keys(found)) {
		if !slices.Contains(ind.Breaks, y) {
			return manifestErr(ind.Key, "breaks", "%s, a change of definition: mark %d in breaks and explain it in note, keep to one definition with from_year/to_year, "+
				"or, if only the name changed, declare it in sources.json ssdse_renamed_items", found[y], y)
		}
	}
	return nil
}

// checkDeclaredBreaks checks that every break an entry declares is one of its survey years: a
// break is where the series must not be joined, which only a year it has can be. Breaks the
// sources document without renaming an item (商業統計 → 経済センサス, a new area survey) are
// declared by hand, with their reason in the note (checkIndicator).
func checkDeclaredBreaks(ind hensachi.Indicator, years []int) error {
	for _, y := range ind.Breaks {
		if !slices.Contains(years, y) || y == years[0] {
			return manifestErr(ind.Key, "breaks", "%d is not a survey year after the first of the indicator (%v)", y, years)
		}
	}
	return nil
}

// values computes the indicator for every municipality of cl in every planned year, rounded to its
// decimals in exact decimal arithmetic (roundHalfAway), recording each null and why in the
// report. A year where no municipality has a value is left out (and reported). A census or
// census_japanese rate is null where ev says the census does not describe the municipality, and
// the entry's note says so once per census year.
func (pi plannedIndicator) values(cl *CodeList, r *Report, ev evacuation) (hensachi.Indicator, [][]hensachi.Optional[float64]) {
	ind := pi.ind
	scale := ind.Formula.Factor()
	var out [][]hensachi.Optional[float64]
	var censusYears []int // the census years whose evacuation nulled a value
	for _, py := range pi.years {
		counted, subtracted, den, base := columnsOf(py.counted, cl), columnsOf(py.subtracted, cl), columnsOf(py.denominator, cl), columnsOf(py.base, cl)
		var evacuated map[string]string
		if isCensusRule(ind.DenominatorSource) {
			evacuated = ev[py.denominatorYear]
		}
		vals := make([]hensachi.Optional[float64], len(cl.Entries))
		valid := 0
		for i, e := range cl.Entries {
			f := sumAt(counted, i)
			if len(subtracted) > 0 {
				f = combine(f, sumAt(subtracted, i), minus)
			}
			switch {
			case len(base) > 0:
				earlier := sumAt(base, i)
				change := combine(f, earlier, minus)
				if f = ratio(change, earlier, scale); f.why == "" {
					f.v = roundHalfAway(change.v, earlier.v, scale, ind.Decimals)
				}
			case len(den) > 0:
				num, d := f, sumAt(den, i)
				if f = ratio(num, d, scale); f.why == "" {
					f.v = roundHalfAway(num.v, d.v, scale, ind.Decimals)
				}
			case f.why == "":
				f.v = roundHalfAway(f.v, 1, scale, ind.Decimals)
			}
			if why, ok := evacuated[e.Code]; ok && f.why == "" {
				f = figure{why: why}
				if !slices.Contains(censusYears, py.denominatorYear) {
					censusYears = append(censusYears, py.denominatorYear)
				}
			}
			if vals[i] = r.recordIndicator(ind.Key, py.year, e.Code, f, ind.Decimals); vals[i].Valid {
				valid++
			}
		}
		if valid == 0 {
			r.dropIndicatorYear(ind.Key, py.year)
			continue
		}
		ind.Years = append(ind.Years, hensachi.IndicatorYear{Year: py.year})
		out = append(out, vals)
	}
	slices.Sort(censusYears)
	for _, c := range censusYears {
		ind.Note += ev.sentence(c, cl)
	}
	return ind, out
}

// columnsOf returns the figures of each yearly, nil for none.
func columnsOf(ys []*yearly, cl *CodeList) [][]figure {
	if len(ys) == 0 {
		return nil
	}
	out := make([][]figure, len(ys))
	for k, y := range ys {
		out[k] = y.values(cl)
	}
	return out
}

// sumAt sums the figures of municipality i; the first missing one makes the sum missing.
func sumAt(cols [][]figure, i int) figure {
	f := cols[0][i]
	for _, c := range cols[1:] {
		f = combine(f, c[i], plus)
	}
	return f
}

// sourceItemNames name the items of the sources other than SSDSE-A and the finance lists, whose files
// name them by a code (portal's C120110) or by a header too short to stand alone (住民基本台帳's 計),
// for the pages to show beside the item.
var sourceItemNames = map[item]string{
	{portalItems, PortalTaxableIncome}:       "課税対象所得（千円）",
	{portalItems, PortalTaxpayers}:           "納税義務者数（所得割）",
	{furusatoItems, furusatoReceiptsItem}:    "ふるさと納税の受入額（千円）",
	{furusatoItems, furusatoReceiptsYenItem}: "ふるさと納税の受入額（円）",
	{furusatoItems, furusatoCountItem}:       "ふるさと納税の受入件数",
	{juminItems, JuminPopulation}:            "住民基本台帳人口（1月1日、日本人住民と外国人住民）",
	{juminItems, JuminHouseholds}:            "住民基本台帳の世帯数（1月1日）",
	{juminItems, JuminBirths}:                "出生者数（住民基本台帳、年中）",
	{juminItems, JuminDeaths}:                "死亡者数（住民基本台帳、年中）",
	{juminItems, JuminMovesIn}:               "転入者数（住民基本台帳、年中）",
	{juminItems, JuminMovesOut}:              "転出者数（住民基本台帳、年中）",
}

// itemNames returns the name of every item the indicators' formulas name, keyed as a formula
// writes the item: SSDSE-A's own name in the newest edition that has the item, a finance list's
// figure by its header, the others by sourceItemNames.
func (p *itemPanel) itemNames(inds []hensachi.Indicator) map[string]string {
	names := map[string]string{}
	for _, ind := range inds {
		f := ind.Formula
		for _, raw := range slices.Concat(f.Counted(), f.Minus, f.Denominator) {
			it, err := parseItem(raw)
			if err != nil {
				continue // plan refused it already
			}
			switch {
			case it.source == "":
				for _, y := range slices.Backward(p.series[it]) {
					if y.name != "" {
						names[raw] = y.name
						break
					}
				}
			case it.source == financeItems:
				names[raw] = it.name
			default:
				names[raw] = sourceItemNames[it]
			}
		}
	}
	return names
}

// buildIndicators plans and computes every indicator of the catalogue, census rates under the
// evacuation rule ev.
func buildIndicators(inds []hensachi.Indicator, p *itemPanel, cl *CodeList, r *Report, ev evacuation) (hensachi.IndicatorCatalogue, hensachi.IndicatorValues, error) {
	cat := hensachi.IndicatorCatalogue{Method: indicatorMethod}
	var values hensachi.IndicatorValues
	for _, ind := range inds {
		plan, err := p.plan(ind)
		if err != nil {
			return cat, nil, err
		}
		withYears, v := plan.values(cl, r, ev)
		if len(v) == 0 {
			return cat, nil, manifestErr(ind.Key, "formula", "no municipality has a value in any survey year (%s)", yearList(plan.years))
		}
		if err := checkChangeDeclared(withYears); err != nil {
			return cat, nil, err
		}
		cat.Indicators = append(cat.Indicators, withYears)
		values = append(values, v)
	}
	return cat, values, nil
}

func yearList(ys []plannedYear) string {
	years := make([]int, len(ys))
	for i, y := range ys {
		years[i] = y.year
	}
	return intList(years)
}

func intList(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}
