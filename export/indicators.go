package export

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/town"
)

// The indicators in the export: their columns beside the axes' in the table every format writes
// (Table), and their long table, one row per municipality, indicator and survey year (Series).
// Which indicators, which year and which prefecture are the call's to pick: the exports with
// indicator columns are kept in a cache of a byte budget (town.Cache) instead of one per version;
// the long table is built once per version for the whole country with every indicator, and a
// call's choice is cut from it (series.go).

// exportBudget bounds the exports with indicator columns kept in memory: one with every
// indicator's is about 10 MB of CSV for the whole country and 3 MB gzipped.
const exportBudget = 32 << 20

// Selection picks the indicator columns of an export.
type Selection struct {
	// Indicators are positions in the catalogue (town.Catalog.Indicator), in column order.
	Indicators []int
	// Year is a survey year every one of them has; 0 takes each in its latest.
	Year int
	// Change, when not zero, is two survey years, earlier first, between which every one of them
	// has a change (param.ExportChange): each gets its change columns too.
	Change [2]int
}

// key names the selection in a cache.
func (s Selection) key() string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(s.Year))
	if s.Change != [2]int{} {
		fmt.Fprintf(&b, ":%d-%d", s.Change[0], s.Change[1])
	}
	for _, i := range s.Indicators {
		b.WriteByte(',')
		b.WriteString(strconv.Itoa(i))
	}
	return b.String()
}

// Table is the table every format writes for rows: Columns, then for each indicator of sel, in
// its survey year, {key}_{year} (the value; an integer for an indicator of no decimals, a count),
// {key}_{year}_rank (national) and {key}_{year}_hensachi, null where the municipality has no value;
// and with sel.Change its change columns (changeColumns).
func Table(c *town.Catalog, rows []*hensachi.Municipality, sel Selection) []hensachi.Column {
	cols := Columns(&c.Meta, rows)
	if len(sel.Indicators) == 0 {
		return cols
	}
	index := make([]int, len(rows))
	for k, m := range rows {
		index[k] = c.Index(m.Code)
	}
	for _, i := range sel.Indicators {
		ind := c.Indicator(i)
		y := len(ind.Years) - 1
		if sel.Year != 0 {
			y = ind.YearIndex(sel.Year)
		}
		col := c.IndicatorColumn(i, y)
		name := ind.Key + "_" + strconv.Itoa(col.Year)
		value := hensachi.Column{Name: name}
		if ind.Decimals == 0 { // a count, an integer as the statistics of no decimals are
			value.Ints = make([]hensachi.Optional[int64], len(rows))
		} else {
			value.Floats = make([]hensachi.Optional[float64], len(rows))
		}
		rank := hensachi.Column{Name: name + "_rank", Ints: make([]hensachi.Optional[int64], len(rows))}
		score := hensachi.Column{Name: name + "_hensachi", Floats: make([]hensachi.Optional[float64], len(rows))}
		for k, m := range index {
			if value.Ints != nil {
				value.Ints[k] = Whole(col.Values[m])
			} else {
				value.Floats[k] = col.Values[m]
			}
			rank.Ints[k], score.Floats[k] = col.Ranks[m], col.Hensachi[m]
		}
		cols = append(cols, value, rank, score)
		if sel.Change != [2]int{} {
			cols = append(cols, changeColumns(c, i, sel.Change, index)...)
		}
	}
	return cols
}

// changeColumns are indicator i's change between the survey years of change for the rows index
// (positions in the catalog): {key}_{from}_{to}_{diff|pct} (the change: a difference in the
// indicator's unit, an integer where its values are, or a percent of the earlier value),
// {…}_rank (national) and {…}_hensachi, the measure in the name so that no column is read as the
// other; null where the municipality has no change. The change is ranked once per catalog and
// pair of years (town.Catalog.IndicatorChange), so the columns cost a copy per call.
func changeColumns(c *town.Catalog, i int, change [2]int, index []int) []hensachi.Column {
	ind := c.Indicator(i)
	ch := c.IndicatorChange(i, ind.YearIndex(change[0]), ind.YearIndex(change[1]))
	name := fmt.Sprintf("%s_%d_%d_%s", ind.Key, change[0], change[1], changeSuffix(ind))
	value := hensachi.Column{Name: name}
	if ch.Decimals() == 0 {
		value.Ints = make([]hensachi.Optional[int64], len(index))
	} else {
		value.Floats = make([]hensachi.Optional[float64], len(index))
	}
	rank := hensachi.Column{Name: name + "_rank", Ints: make([]hensachi.Optional[int64], len(index))}
	score := hensachi.Column{Name: name + "_hensachi", Floats: make([]hensachi.Optional[float64], len(index))}
	for k, m := range index {
		v := ch.Values[m]
		if value.Ints != nil {
			value.Ints[k] = Whole(v)
		} else {
			value.Floats[k] = v
		}
		if v.Valid {
			rank.Ints[k], score.Floats[k] = hensachi.Some(int64(ch.Ranks[m])), hensachi.Some(ch.Hensachi[m])
		}
	}
	return []hensachi.Column{value, rank, score}
}

// changeInName is what a file name says of a change's years: -change-2015-2020, "" without one.
func changeInName(change [2]int) string {
	if change == [2]int{} {
		return ""
	}
	return fmt.Sprintf("-change-%d-%d", change[0], change[1])
}

// changeSuffix names an indicator's measure of change in a column name.
func changeSuffix(ind *hensachi.Indicator) string {
	if ind.Change == hensachi.ChangePercent {
		return "pct"
	}
	return "diff"
}

// selectionKey names an export with indicators in its cache.
type selectionKey struct {
	format    *Format
	pref      string
	selection string
}

var withIndicators = town.NewCache[selectionKey, *File](exportBudget, (*File).held)

// WithIndicators returns the file of a prefecture ("" for the whole country) with the indicator
// columns of sel, built on its first request and kept while the budget allows; an unknown
// prefecture is not_found. The file is named as Of's with "-indicators" before the extension, and
// "-change-{from}-{to}" after it with a change.
func WithIndicators(c *town.Catalog, f *Format, pref string, sel Selection) (*File, error) {
	list, ok := c.List(pref)
	if !ok {
		return nil, unknownPrefecture(pref)
	}
	if len(sel.Indicators) == 0 {
		return Of(c, f, pref)
	}
	return withIndicators.Get(context.Background(), c, selectionKey{f, pref, sel.key()}, func() (*File, error) {
		name := strings.TrimSuffix(Filename(&c.Meta, pref, f.Name), "."+f.Name) + "-indicators" + changeInName(sel.Change) + "." + f.Name
		file, err := build(f, c, list.Items, sel, name)
		if err != nil {
			return nil, err
		}
		file.Gzipped()
		return file, nil
	})
}
