package param

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hensachi/hensachi"

	"github.com/hensachi/hensachi/town"
)

// IndicatorKeys reads name, a list of indicator keys (comma-separated, the parameter repeated, or
// both): their positions in the catalogue in the order given,
// nil when absent. With every, the value all names the whole catalogue. A key the catalogue does
// not have, or one given twice, is an invalid parameter.
func IndicatorKeys(c *town.Catalog, q Query, name string, every bool) ([]int, error) {
	keys := q.List(name)
	if every && len(keys) == 1 && keys[0] == "all" && len(q.values[name]) == 1 {
		return c.IndicatorGroupIndexes(""), nil
	}
	if q.Has(name) && len(keys) == 0 {
		return nil, invalid(name, name+" has no keys; omit it for the default", name+" に指標のキーがありません。")
	}
	idx := make([]int, 0, len(keys))
	for _, key := range keys {
		i := c.IndicatorIndex(key)
		switch {
		case i < 0:
			all := ""
			if every {
				all = ", or all"
			}
			return nil, invalid(name, fmt.Sprintf("%s: there is no indicator %q; GET /town/v1/indicators lists the keys%s", name, Truncate(key), all),
				name+" の「"+truncateRunes(key, 40)+"」という指標はありません。")
		case slices.Contains(idx, i):
			return nil, invalid(name, fmt.Sprintf("%s names %s twice", name, key), name+" に "+key+" が 2 回指定されています。")
		}
		idx = append(idx, i)
	}
	if len(idx) == 0 {
		return nil, nil
	}
	return idx, nil
}

// IndicatorsYear reads year, one survey year for the indicators idx of an export (0 when absent:
// each in its latest). With all, the whole catalogue was asked for, and year keeps the indicators
// that have it; otherwise each of idx must have it. It returns the indicators kept. A year given
// without indicators, or one none of them has, is an invalid parameter.
func IndicatorsYear(c *town.Catalog, q Query, idx []int, all bool) ([]int, int, error) {
	y, ok, err := q.One("year")
	if err != nil || !ok {
		return idx, 0, err
	}
	year, err := surveyYear("year", y)
	if err != nil {
		return nil, 0, err
	}
	if len(idx) == 0 {
		return nil, 0, invalid("year", "year picks the indicators' survey year: give indicators too", "year は indicators と一緒に指定してください。")
	}
	kept := make([]int, 0, len(idx))
	for _, i := range idx {
		ind := c.Indicator(i)
		switch {
		case ind.YearIndex(year) >= 0:
			kept = append(kept, i)
		case !all:
			return nil, 0, invalid("year", fmt.Sprintf("indicator %s has no survey year %d; its years are %s", ind.Key, year, years(ind)),
				"指標 "+ind.Key+" の年は "+years(ind)+" のいずれかです。")
		}
	}
	if len(kept) == 0 {
		return nil, 0, invalid("year", fmt.Sprintf("no indicator has the survey year %d", year), strconv.Itoa(year)+" 年の指標はありません。")
	}
	return kept, year, nil
}

// IndicatorsOfMunicipality reads what GET /town/v1/municipalities/{code}/indicators is asked
// for: keys (IndicatorKeys) or group (IndicatorGroup), not both; every indicator when neither.
func IndicatorsOfMunicipality(c *town.Catalog, q Query) ([]int, error) {
	if q.Has("keys") && q.Has("group") {
		return nil, invalid("group", "give keys or group, not both", "keys と group はどちらか一方だけを指定してください。")
	}
	idx, err := IndicatorKeys(c, q, "keys", false)
	if err != nil || idx != nil {
		return idx, err
	}
	group, err := IndicatorGroup(q)
	if err != nil {
		return nil, err
	}
	return c.IndicatorGroupIndexes(group), nil
}

// Dimensions reads measures, the deviation scores a similarity is measured on: 2 to
// town.MaxDimensions distinct axes or indicator keys, an indicator in its latest survey year or,
// written key@year, in that one; nil when absent. A statistic has no deviation score, so it is
// refused as anything else is.
func Dimensions(c *town.Catalog, q Query) ([]town.Dimension, []string, error) {
	return dimensions(c, q, "measures", true, 2, town.MaxDimensions)
}

// MaxChartedIndicators is how many indicators the compare page takes: it draws a chart of each,
// as Japan Dashboard sets four side by side. The API's comparison takes town.MaxDimensions, as it
// did before it carried series: a client written for that keeps working.
const MaxChartedIndicators = 4

// IndicatorDimensions reads indicators of a comparison: 1 to most distinct indicator keys, each
// in its latest survey year or, written key@year, in that one; nil when absent.
func IndicatorDimensions(c *town.Catalog, q Query, most int) ([]town.Dimension, []string, error) {
	return dimensions(c, q, "indicators", false, 1, most)
}

// dimensions reads a list of dimensions named name, of axes too when axes, least to most; it
// returns them with their keys as the answer names them (key@year for an indicator).
func dimensions(c *town.Catalog, q Query, name string, axes bool, least, most int) ([]town.Dimension, []string, error) {
	list := q.List(name)
	what := "indicator keys"
	if axes {
		what = "axes or indicator keys"
	}
	switch {
	case !q.Has(name):
		return nil, nil, nil
	case len(list) < least || len(list) > most:
		return nil, nil, invalid(name, fmt.Sprintf("%s must name %d to %d %s, not %d", name, least, most, what, len(list)),
			fmt.Sprintf("%s には %d から %d までのキーを指定してください。", name, least, most))
	}
	dims := make([]town.Dimension, 0, len(list))
	keys := make([]string, 0, len(list))
	for _, key := range list {
		d, named, err := dimension(c, name, key, axes)
		if err != nil {
			return nil, nil, err
		}
		if slices.Contains(keys, named) {
			return nil, nil, invalid(name, fmt.Sprintf("%s names %s twice", name, named), name+" に "+named+" が 2 回指定されています。")
		}
		dims, keys = append(dims, d), append(keys, named)
	}
	return dims, keys, nil
}

// dimension reads one key of a dimensions list.
func dimension(c *town.Catalog, name, key string, axes bool) (town.Dimension, string, error) {
	if a := hensachi.AxisIndex(key); axes && a >= 0 {
		return town.Dimension{Axis: a, Indicator: -1}, key, nil
	}
	i, k, err := datedIndicator(c, name, key)
	if err != nil {
		return town.Dimension{}, "", err
	}
	if i < 0 {
		what, japanese := "an indicator key", "指標のキー"
		if axes {
			what, japanese = "an axis ("+strings.Join(keys(hensachi.Axes), ", ")+") or an indicator key", "6 軸か指標のキー"
		}
		return town.Dimension{}, "", invalid(name, fmt.Sprintf("%s: %q is not %s (GET /town/v1/indicators lists them; key@year for a survey year)", name, Truncate(key), what),
			name+" の「"+truncateRunes(key, 40)+"」は"+japanese+"ではありません。")
	}
	ind := c.Indicator(i)
	return town.Dimension{Indicator: i, Year: k}, ind.Key + "@" + strconv.Itoa(ind.Years[k].Year), nil
}

// OptionalIndicator reads name, one indicator key, and year, its survey year (the latest when
// absent): the indicator's position and the year's, ok false without the indicator. An unknown
// key, and a year without the indicator or one it does not have, are invalid parameters.
func OptionalIndicator(c *town.Catalog, q Query, name string) (i, k int, ok bool, err error) {
	key, ok, err := q.One(name)
	switch {
	case err != nil:
		return 0, 0, false, err
	case !ok && q.Has("year"):
		return 0, 0, false, invalid("year", "year picks the survey year of "+name+": give "+name+" too", "year は "+name+" と一緒に指定してください。")
	case !ok:
		return 0, 0, false, nil
	}
	if i = c.IndicatorIndex(key); i < 0 {
		return 0, 0, false, invalid(name, fmt.Sprintf("there is no indicator %q; GET /town/v1/indicators lists the keys", Truncate(key)),
			"「"+truncateRunes(key, 40)+"」という指標はありません。")
	}
	k, err = IndicatorYear(c, q, i)
	return i, k, err == nil, err
}

// Change is a change between two survey years of an indicator: the positions of the years in its
// Years, From < To.
type Change struct{ From, To int }

// IndicatorChange reads from and to, the two survey years of indicator i whose change a ranking or
// a map shows: ok is false when neither is given. With them, year is refused (it picks the year of
// levels, and which of the two would win is a guess). Both must be given, be survey years of the
// indicator and from before to; the indicator must have a measure of change (hensachi.Indicator.
// Change); and the two years must be of one definition: a change across a break compares two
// figures under one name, which a reader would take for a change in the world, so it is refused,
// naming from, with the break and the years that can be compared.
func IndicatorChange(c *town.Catalog, q Query, i int) (Change, bool, error) {
	if !q.Has("from") && !q.Has("to") {
		return Change{}, false, nil
	}
	if q.Has("year") {
		return Change{}, false, invalid("year", "year picks the survey year of a ranking of levels; a change between two years takes from and to alone",
			"year と from・to は一緒に指定できません。変化を見るときは from と to だけを指定してください。")
	}
	ind := c.Indicator(i)
	var ys [2]int
	for n, name := range []string{"from", "to"} {
		y, ok, err := q.One(name)
		if err != nil {
			return Change{}, false, err
		}
		if !ok {
			other := map[string]string{"from": "to", "to": "from"}[name]
			return Change{}, false, invalid(name, fmt.Sprintf("%s is required with %s: a change is between two survey years", name, other),
				"変化を見るには from と to の両方の年を指定してください。")
		}
		year, err := surveyYear(name, y)
		if err != nil {
			return Change{}, false, err
		}
		if ys[n] = ind.YearIndex(year); ys[n] < 0 {
			return Change{}, false, invalid(name, fmt.Sprintf("%s: indicator %s has no survey year %d; its years are %s", name, ind.Key, year, years(ind)),
				name+" の年は "+years(ind)+" のいずれかです。")
		}
	}
	if err := changeOf(ind, ys[0], ys[1], "from", "to"); err != nil {
		return Change{}, false, err
	}
	return Change{ys[0], ys[1]}, true, nil
}

// changeOf checks that indicator ind has a measure of change and that its from-th and to-th survey
// years can be compared, naming fromName (and toName for the order) at fault.
func changeOf(ind *hensachi.Indicator, from, to int, fromName, toName string) error {
	fy, ty := ind.Years[from].Year, ind.Years[to].Year
	switch {
	case ind.Change == "":
		return invalid(fromName, fmt.Sprintf("indicator %s has no measure of change between years (it has one survey year, or is itself a change)", ind.Key),
			"指標 "+ind.Key+" は年の間の変化を出しません（調査年が 1 つか、それ自体が変化率の指標です）。")
	case from >= to:
		return invalid(toName, fmt.Sprintf("%s (%d) must be after %s (%d)", toName, ty, fromName, fy),
			fmt.Sprintf("%s の年（%d）は %s の年（%d）より後にしてください。", toName, ty, fromName, fy))
	}
	if b := town.BreakBetween(ind, fy, ty); b > 0 {
		return invalid(fromName, fmt.Sprintf("indicator %s changes its definition in %d (see its note), so %d and %d are not comparable: compare years before %d, or from %d on",
			ind.Key, b, fy, ty, b, b),
			fmt.Sprintf("指標 %s は %d 年から定義が変わるため（指標の注を参照）、%d 年と %d 年は比べられません。%d 年より前どうしか、%d 年以降どうしで比べてください。",
				ind.Key, b, fy, ty, b, b))
	}
	return nil
}

// ExportChange reads change, Y1-Y2 (2015-2020), the two survey years of the change columns an
// export adds for the indicators idx (0, 0 when absent). With all, the whole catalogue was asked
// for, and change keeps the indicators that can compare the two years; otherwise each of idx must
// (IndicatorChange's rules, naming change). It returns the indicators kept. A change given
// without indicators, or one none of them can compare, is an invalid parameter.
func ExportChange(c *town.Catalog, q Query, idx []int, all bool) ([]int, [2]int, error) {
	v, ok, err := q.One("change")
	if err != nil || !ok {
		return idx, [2]int{}, err
	}
	a, b, dash := strings.Cut(v, "-")
	if !dash {
		return nil, [2]int{}, invalid("change", fmt.Sprintf("change must be two survey years joined by -, such as 2015-2020, not %q", Truncate(v)),
			"change には 2 つの調査年を - でつないで指定してください（例：2015-2020）。")
	}
	from, err := surveyYear("change", a)
	if err != nil {
		return nil, [2]int{}, err
	}
	to, err := surveyYear("change", b)
	if err != nil {
		return nil, [2]int{}, err
	}
	if from >= to {
		return nil, [2]int{}, invalid("change", fmt.Sprintf("change: %d must be before %d", from, to), "change の最初の年を後の年より前にしてください。")
	}
	if len(idx) == 0 {
		return nil, [2]int{}, invalid("change", "change adds the indicators' change columns: give indicators too", "change は indicators と一緒に指定してください。")
	}
	kept := make([]int, 0, len(idx))
	for _, i := range idx {
		ind := c.Indicator(i)
		var err error
		k, l := ind.YearIndex(from), ind.YearIndex(to)
		if missing := from; k < 0 || l < 0 {
			if k >= 0 {
				missing = to
			}
			err = invalid("change", fmt.Sprintf("change: indicator %s has no survey year %d; its years are %s", ind.Key, missing, years(ind)),
				"change の指標 "+ind.Key+" の年は "+years(ind)+" のいずれかです。")
		} else {
			err = changeOf(ind, k, l, "change", "change")
		}
		switch {
		case err == nil:
			kept = append(kept, i)
		case !all:
			return nil, [2]int{}, err
		}
	}
	if len(kept) == 0 {
		return nil, [2]int{}, invalid("change", fmt.Sprintf("no indicator has a change from %d to %d", from, to), fmt.Sprintf("%d 年から %d 年への変化を出せる指標はありません。", from, to))
	}
	return kept, [2]int{from, to}, nil
}
