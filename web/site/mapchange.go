package site

import (
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/param"
	"github.com/hensachi/hensachi/town"
)

// The map of an indicator's change between two survey years (/town/map?m=key&from=&to=): a
// municipality's colour is its change itself, in seven classes of equal width either side of zero,
// so that the centre is no change whatever the indicator; the better side blue as on the maps of
// levels, and for an indicator with no better side a diverging palette of no good or bad (PuOr).

// changeMap is the map page of the change of the indicator m between from and to.
func (s *Site) changeMap(c *town.Catalog, q param.Query) (string, any, error) {
	key, ok, err := q.One("m")
	if err != nil {
		return "", nil, err
	}
	i := c.IndicatorIndex(key)
	if !ok || i < 0 {
		return "", nil, &hensachi.Error{Code: hensachi.EInvalidParameter, Param: "from", Message: "from and to go with an indicator key given as m",
			Japanese: "from と to は指標のキー（m）と一緒に指定してください。"}
	}
	ch, _, err := param.IndicatorChange(c, q, i)
	if err != nil {
		return "", nil, err
	}
	var p mapPage
	d, where, err := p.place(c, q)
	if err != nil {
		return "", nil, err
	}
	ind := c.Indicator(i)
	p.Change = newChangeView(ind, ch)
	f := p.Change.Field
	span := strconv.Itoa(p.Change.From) + "→" + strconv.Itoa(p.Change.To) + "年"
	p.M.Measure = param.Measure{Field: f}
	p.M.Key, p.M.Label = ind.Key, f.Label+"（"+span+"）"
	change := c.IndicatorChange(i, ch.From, ch.To)
	scale := newChangeScale(change.Values, f.Decimals, ind.LowerIsBetter())
	p.Palette = paletteOf(ind.Field())
	if p.Palette == "seq" {
		p.Palette = "div"
	}
	col := mapColours{palette: p.Palette,
		class: func(m int) int {
			if !change.Values[m].Valid {
				return -1
			}
			return scale.class(change.Values[m].V)
		},
		label: func(m int) string {
			// the years are the map's heading's: 1,741 titles repeating them cost 35 KB
			return strings.TrimSpace(signedNumber(change.Values[m].V, f.Decimals)+" "+f.Unit) + "、全国 " + integer(change.Ranks[m]) + " 位"
		}}
	p.Map = mapSVG(c, d, p.M.Label, col.only(c, p.Peers), where)
	p.Drawn = integer(len(d.Rows))
	p.Missing = missing(c, d, change.Values)
	p.Legend = legendOf(change.Values, func(m int) int { return scale.class(change.Values[m].V) }, scale.ranges(f.Decimals), f,
		func(v float64) string { return signedNumber(v, f.Decimals) })
	p.RangeHead = "変化" + unitInParens(f.Unit)
	p.Reading = mapChangeReading(ind.Field())
	p.Select = measureSelect{ID: "m", Label: "指標", Groups: everyMeasureGroups(c, ind.Key)}
	p.FromYears, p.ToYears = changeYearOptions(ind, ch)
	prefCode := param.PrefectureCode(p.Pref)
	for _, pr := range c.Meta.Prefectures {
		p.Prefectures = append(p.Prefectures, prefOption{Code: pr.Code, Name: pr.Name, Selected: pr.Code == prefCode})
	}
	p.CSV = csvLink("/town/indicators/"+ind.Key+".csv", withPref(url.Values{"from": {strconv.Itoa(p.Change.From)}, "to": {strconv.Itoa(p.Change.To)}}, p.Pref))
	p.MeasureSource, p.StatsCredit = ind.Source, c.Meta.Source.Name
	p.Base = s.base(c, p.M.Label+"の地図（"+where+"）",
		where+"の市区町村を"+ind.Label+"の"+span+"の変化で塗り分けた地図。"+p.Reading, changeMapURL(ind.Key, p.Change.From, p.Change.To, prefCode))
	return "map", p, nil
}

// changeMapURL is the address of the map of an indicator's change, the whole country's for an
// empty pref.
func changeMapURL(key string, from, to int, pref string) string {
	return mapURL(key, pref) + "&from=" + strconv.Itoa(from) + "&to=" + strconv.Itoa(to)
}

func unitInParens(unit string) string {
	if unit == "" {
		return ""
	}
	return "（" + unit + "）"
}

// changeScale is a change map's seven classes: the middle one (3) holds the changes within one
// step of zero either way, and each class out from it one step more, the last open; the step is a
// round number (1, 2, 2.5 or 5 times a power of ten) near a third of the 90th percentile of the
// changes' sizes, so that most municipalities spread over the classes whatever the indicator. The
// classes are oriented as the ranking is: 6, the darkest blue, is the best change (the largest fall
// where less is better).
type changeScale struct {
	step        float64
	lowerBetter bool
}

func newChangeScale(values []hensachi.Optional[float64], decimals int, lowerBetter bool) changeScale {
	var sizes []float64
	for _, v := range values {
		if v.Valid {
			sizes = append(sizes, math.Abs(v.V))
		}
	}
	least := math.Pow(10, -float64(decimals)) // a step finer than the figures would split equal values
	if len(sizes) == 0 {
		return changeScale{step: least, lowerBetter: lowerBetter}
	}
	slices.Sort(sizes)
	p90 := sizes[int(0.9*float64(len(sizes)-1))]
	return changeScale{step: max(roundStep(p90/3), least), lowerBetter: lowerBetter}
}

// roundStep is the round number (1, 2, 2.5 or 5 times a power of ten) nearest x from above.
func roundStep(x float64) float64 {
	if x <= 0 {
		return 0
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if x <= m*p*(1+1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// class is the class of a change v: 3 within a step of zero, 4 to 6 steps to the better side, 2
// to 0 to the worse (a rise where more is better, or where neither is).
func (sc changeScale) class(v float64) int {
	o := v
	if sc.lowerBetter {
		o = -v
	}
	n := int(math.Floor(math.Abs(o)/sc.step + 1e-9)) // whole steps from zero
	n = min(n, 3)
	if o < 0 {
		return 3 - n
	}
	return 3 + n
}

// ranges are the classes' changes as the legend writes them, class 0 first.
func (sc changeScale) ranges(decimals int) []string {
	at := func(n int) string { return signedNumber(float64(n)*sc.step, decimals) }
	// by steps from zero in the direction of a rise: class 6 holds 3 steps and more
	rise := []string{at(-3) + " 以下", at(-3) + "〜" + at(-2), at(-2) + "〜" + at(-1), at(-1) + "〜" + at(1),
		at(1) + "〜" + at(2), at(2) + "〜" + at(3), at(3) + " 以上"}
	if !sc.lowerBetter {
		return rise
	}
	out := slices.Clone(rise)
	slices.Reverse(out)
	return out
}
