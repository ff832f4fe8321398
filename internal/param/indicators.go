package param

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/hensachi/hensachi/town"
)

// IndicatorKeys reads name, a list of indicator keys (comma-separated, or the parameter repeated
// for a list longer than one value's MaxLen): their positions in the catalogue in the order given,
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
	year, err := strconv.Atoi(y)
	if !Digits(y) || err != nil || len(y) != 4 {
		return nil, 0, invalid("year", fmt.Sprintf("year must be a survey year such as 2020, not %q", Truncate(y)),
			"year には調査年（例：2020）を指定してください。")
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
