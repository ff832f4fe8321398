package rawfiles

import (
	"math"
	"slices"

	"github.com/hensachi/hensachi"
)

// IndicatorYears returns the survey years an indicator has: those its counted items (items, or
// numerator for a ratio) and the items it subtracts all have, within the entry's from_year and
// to_year.
func (s *Sources) IndicatorYears(ind hensachi.Indicator) []int {
	f := ind.Formula
	counted := f.Items
	if len(counted) == 0 {
		counted = f.Numerator
	}
	var years []int
	for i, it := range slices.Concat(counted, f.Minus) {
		ys := s.Years(it)
		if i == 0 {
			years = slices.Clone(ys) // Years' lists are shared
			continue
		}
		years = slices.DeleteFunc(years, func(y int) bool { return !slices.Contains(ys, y) })
	}
	return slices.DeleteFunc(years, func(y int) bool {
		return (ind.FromYear != 0 && y < ind.FromYear) || (ind.ToYear != 0 && y > ind.ToYear)
	})
}

// Recompute computes an indicator for a municipality in one of its survey years by the rules the
// catalogue states: the counted items and those subtracted are of the year; each denominator item
// is of its latest survey year not after it, or its earliest when it has none before; the
// result is scaled and rounded half away from zero to the entry's decimals. A zero denominator
// gives no value. It returns the value before rounding too, for a comparison that must allow for
// a tie at the rounding boundary.
func (s *Sources) Recompute(ind hensachi.Indicator, year int, code string) (rounded, exact float64, st Status) {
	f := ind.Formula
	scale := f.Scale
	if scale == 0 {
		scale = 1
	}
	ofYear := func(string) int { return year }
	counted := f.Items
	if len(counted) == 0 {
		counted = f.Numerator
	}
	num, st := s.sum(counted, ofYear, code)
	minus, ms := s.sum(f.Minus, ofYear, code)
	st = max(st, ms)
	v := num - minus
	if len(f.Denominator) > 0 {
		den, ds := s.sum(f.Denominator, func(it string) int { return nearest(s.Years(it), year) }, code)
		st = max(st, ds)
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
