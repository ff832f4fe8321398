package rawfiles

import (
	"math"
	"slices"

	"github.com/hensachi/hensachi"
)

// IndicatorYears returns the survey years an indicator has: those its counted items (items, or
// numerator for a ratio) and the items it subtracts all have, within the entry's from_year and
// to_year, less those whose denominator year (by its denominator_source) the denominator does
// not have, and, for a change over N years, those whose year N before is not among them.
func (s *Sources) IndicatorYears(ind hensachi.Indicator) []int {
	f := ind.Formula
	var years []int
	for i, it := range slices.Concat(counted(f), f.Minus) {
		ys := s.Years(it)
		if i == 0 {
			years = slices.Clone(ys) // Years' lists are shared
			continue
		}
		years = slices.DeleteFunc(years, func(y int) bool { return !slices.Contains(ys, y) })
	}
	years = slices.DeleteFunc(years, func(y int) bool {
		return (ind.FromYear != 0 && y < ind.FromYear) || (ind.ToYear != 0 && y > ind.ToYear)
	})
	all := slices.Clone(years)
	return slices.DeleteFunc(years, func(y int) bool {
		if f.ChangeOver > 0 && !slices.Contains(all, y-f.ChangeOver) {
			return true
		}
		_, ok := s.DenominatorYear(ind, y)
		return len(f.Denominator) > 0 && !ok
	})
}

func counted(f hensachi.Formula) []string {
	if len(f.Items) > 0 {
		return f.Items
	}
	return f.Numerator
}

// DenominatorYear is the year an indicator's denominator is of for a numerator of year, by its
// denominator_source: the same year (same_year, jumin_january), the next (jumin_next_january),
// the nearest census year the items have, ties to the earlier (census, census_japanese), or the
// latest area survey not after year, else the earliest (area). ok is false when the items do not
// have it.
func (s *Sources) DenominatorYear(ind hensachi.Indicator, year int) (int, bool) {
	var have []int
	for i, it := range ind.Formula.Denominator {
		ys := s.Years(it)
		if i == 0 {
			have = slices.Clone(ys)
		}
		have = slices.DeleteFunc(have, func(y int) bool { return !slices.Contains(ys, y) })
	}
	if len(have) == 0 {
		return 0, false
	}
	want := year
	switch ind.DenominatorSource {
	case hensachi.DenominatorJuminNextJanuary:
		want = year + 1
	case hensachi.DenominatorCensus, hensachi.DenominatorCensusJapanese:
		want = have[0]
		for _, c := range have {
			if math.Abs(float64(c-year)) < math.Abs(float64(want-year)) {
				want = c
			}
		}
	case hensachi.DenominatorArea:
		want = nearest(have, year)
	}
	return want, slices.Contains(have, want)
}

// Evacuated reports whether the census of a year does not describe a municipality: its population
// (A1101) is under half its 住民基本台帳 population of the next 1 January (the towns of Fukushima
// under evacuation orders). A census year without a release of the next January is never.
func (s *Sources) Evacuated(census int, code string) bool {
	counted, cs := s.Value("A1101", census, code)
	registered, rs := s.Value("jumin.population", census+1, code)
	return cs == Have && rs == Have && counted < registered/2
}

// Recompute computes an indicator for a municipality in one of its survey years by the rules the
// catalogue states: the counted items and those subtracted are of the year; the denominator is of
// the year its denominator_source gives, and a census-based rate is no value where the census
// does not describe the municipality (Evacuated); a change over N years divides the change since
// year N before by that year's figure; the result is scaled and rounded half away from zero to the
// entry's decimals. A zero denominator gives no value. It returns the value before rounding too,
// for a comparison that must allow for a tie at the rounding boundary.
func (s *Sources) Recompute(ind hensachi.Indicator, year int, code string) (rounded, exact float64, st Status) {
	f := ind.Formula
	scale := f.Scale
	if scale == 0 {
		scale = 1
	}
	of := func(y int) func(string) int { return func(string) int { return y } }
	num, st := s.sum(counted(f), of(year), code)
	minus, ms := s.sum(f.Minus, of(year), code)
	st = max(st, ms)
	v := num - minus
	var den float64
	switch {
	case f.ChangeOver > 0:
		var bs Status
		den, bs = s.sum(counted(f), of(year-f.ChangeOver), code)
		st = max(st, bs)
		v -= den
	case len(f.Denominator) > 0:
		dy, _ := s.DenominatorYear(ind, year)
		var ds Status
		den, ds = s.sum(f.Denominator, of(dy), code)
		st = max(st, ds)
		census := ind.DenominatorSource == hensachi.DenominatorCensus || ind.DenominatorSource == hensachi.DenominatorCensusJapanese
		if st == Have && census && s.Evacuated(dy, code) {
			st = None
		}
	}
	if f.ChangeOver > 0 || len(f.Denominator) > 0 {
		if st == Have && den == 0 {
			st = None
		}
		v /= den
	}
	if st != Have {
		return 0, 0, st
	}
	exact = scale * v
	return RoundHalfAway(exact, ind.Decimals), exact, Have
}

// RoundHalfAway rounds to decimals places, halves away from zero.
func RoundHalfAway(v float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(v*p) / p
}
