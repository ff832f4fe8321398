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
	return dimensions(c, q, "measures", true, 2)
}

// IndicatorDimensions reads indicators of a comparison: 1 to town.MaxDimensions distinct
// indicator keys, each in its latest survey year or, written key@year, in that one; nil when
// absent.
func IndicatorDimensions(c *town.Catalog, q Query) ([]town.Dimension, []string, error) {
	return dimensions(c, q, "indicators", false, 1)
}

// dimensions reads a list of dimensions named name, of axes too when axes, at least least; it
// returns them with their keys as the answer names them (key@year for an indicator).
func dimensions(c *town.Catalog, q Query, name string, axes bool, least int) ([]town.Dimension, []string, error) {
	list := q.List(name)
	what := "indicator keys"
	if axes {
		what = "axes or indicator keys"
	}
	switch {
	case !q.Has(name):
		return nil, nil, nil
	case len(list) < least || len(list) > town.MaxDimensions:
		return nil, nil, invalid(name, fmt.Sprintf("%s must name %d to %d %s, not %d", name, least, town.MaxDimensions, what, len(list)),
			fmt.Sprintf("%s には %d から %d までのキーを指定してください。", name, least, town.MaxDimensions))
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
