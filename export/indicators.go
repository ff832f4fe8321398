package export

import (
	"context"
	"fmt"
	"slices"
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
	// Only leaves out the axes, the statistics and the hometown tax: the columns that name the
	// municipality, then the indicators' (a page's download of what it shows).
	Only bool
	// Peers, when set, is a 類似団体's code: only its members, each indicator with its rank
	// among them too ({key}_{year}_rank_in_peers, and its change's).
	Peers string
}

// key names the selection in a cache.
func (s Selection) key() string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(s.Year))
	if s.Change != [2]int{} {
		fmt.Fprintf(&b, ":%d-%d", s.Change[0], s.Change[1])
	}
	if s.Only {
		b.WriteString(":only")
	}
	if s.Peers != "" {
		b.WriteString(":peers=" + s.Peers)
	}
	for _, i := range s.Indicators {
		b.WriteByte(',')
		b.WriteString(strconv.Itoa(i))
	}
	return b.String()
}

// Table is the table every format writes for rows: Columns (with sel.Only the four that name the
// municipality), then for each indicator of sel, in its survey year, {key}_{year} (the value; an
// integer for an indicator of no decimals, a count), {key}_{year}_rank (national) and
// {key}_{year}_hensachi, null where the municipality has no value, with sel.Peers the rank among
// the group after the national one ({key}_{year}_rank_in_peers); and with sel.Change its change
// columns (changeColumns).
func Table(c *town.Catalog, rows []*hensachi.Municipality, sel Selection) []hensachi.Column {
	return tableOf(c, rows, sel, names{})
}

// tableOf is Table with its names in n's language.
func tableOf(c *town.Catalog, rows []*hensachi.Municipality, sel Selection, n names) []hensachi.Column {
	var cols []hensachi.Column
	if sel.Only {
		cols = nameColumns(rows, n)
	} else {
		cols = columns(&c.Meta, rows, n)
	}
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
		name, year := ind.Key+"_"+strconv.Itoa(col.Year), strconv.Itoa(col.Year)
		value := hensachi.Column{Name: n.of(name, ind.Unit, ind.Label, year)}
		if ind.Decimals == 0 { // a count, an integer as the statistics of no decimals are
			value.Ints = make([]hensachi.Optional[int64], len(rows))
		} else {
			value.Floats = make([]hensachi.Optional[float64], len(rows))
		}
		rank := hensachi.Column{Name: n.of(name+"_rank", "", ind.Label, year, jaRank), Ints: make([]hensachi.Optional[int64], len(rows))}
		score := hensachi.Column{Name: n.of(name+"_hensachi", "", ind.Label, year, jaHensachi), Floats: make([]hensachi.Optional[float64], len(rows))}
		for k, m := range index {
			if value.Ints != nil {
				value.Ints[k] = Whole(col.Values[m])
			} else {
				value.Floats[k] = col.Values[m]
			}
			rank.Ints[k], score.Floats[k] = col.Ranks[m], col.Hensachi[m]
		}
		cols = append(cols, value, rank)
		if sel.Peers != "" {
			cols = append(cols, peerRanks(n.of(name+"_rank_in_peers", "", ind.Label, year, jaPeerRank), index,
				func(m int) int { return c.RankInPeers(i, y, m).Rank }))
		}
		cols = append(cols, score)
		if sel.Change != [2]int{} {
			cols = append(cols, changeColumns(c, i, sel.Change, index, sel.Peers != "", n)...)
		}
	}
	return cols
}

// changeColumns are indicator i's change between the survey years of change for the rows index
// (positions in the catalog): {key}_{from}_{to}_{diff|pct} (the change: a difference in the
// indicator's unit, an integer where its values are, or a percent of the earlier value),
// {…}_rank (national), with peers {…}_rank_in_peers (within the municipality's 類似団体), and
// {…}_hensachi, the measure in the name so that no column is read as the other; null where the
// municipality has no change. The change is ranked once per catalog and
// pair of years (town.Catalog.IndicatorChange), so the columns cost a copy per call.
func changeColumns(c *town.Catalog, i int, change [2]int, index []int, peers bool, n names) []hensachi.Column {
	ind := c.Indicator(i)
	ch := c.IndicatorChange(i, ind.YearIndex(change[0]), ind.YearIndex(change[1]))
	name := fmt.Sprintf("%s_%d_%d_%s", ind.Key, change[0], change[1], changeSuffix(ind))
	span, measure := fmt.Sprintf("%d→%d", change[0], change[1]), jaChange(ind)
	value := hensachi.Column{Name: n.of(name, town.ChangeUnit(ind), ind.Label, span, measure)}
	if ch.Decimals() == 0 {
		value.Ints = make([]hensachi.Optional[int64], len(index))
	} else {
		value.Floats = make([]hensachi.Optional[float64], len(index))
	}
	rank := hensachi.Column{Name: n.of(name+"_rank", "", ind.Label, span, measure, jaRank), Ints: make([]hensachi.Optional[int64], len(index))}
	score := hensachi.Column{Name: n.of(name+"_hensachi", "", ind.Label, span, measure, jaHensachi), Floats: make([]hensachi.Optional[float64], len(index))}
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
	if !peers {
		return []hensachi.Column{value, rank, score}
	}
	inPeers := peerRanks(n.of(name+"_rank_in_peers", "", ind.Label, span, measure, jaPeerRank), index, func(m int) int { return ch.PeerRanks[m] })
	return []hensachi.Column{value, rank, inPeers, score}
}

// peerRanks is a column of ranks within the rows' 類似団体 (rankOf by catalog position, 0 for
// none), null where there is none.
func peerRanks(name string, index []int, rankOf func(m int) int) hensachi.Column {
	col := hensachi.Column{Name: name, Ints: make([]hensachi.Optional[int64], len(index))}
	for k, m := range index {
		if r := rankOf(m); r > 0 {
			col.Ints[k] = hensachi.Some(int64(r))
		}
	}
	return col
}

// jaChange names an indicator's measure of change in Japanese: 増減率 (a percent of the earlier
// value) or 増減 (a difference).
func jaChange(ind *hensachi.Indicator) string {
	if ind.Change == hensachi.ChangePercent {
		return "増減率"
	}
	return "増減"
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
// "-change-{from}-{to}" after it with a change; with sel.Only by its indicators
// (onlyFilename).
func WithIndicators(c *town.Catalog, f *Format, pref string, sel Selection) (*File, error) {
	list, ok := c.List(pref)
	if !ok {
		return nil, unknownPrefecture(pref)
	}
	if len(sel.Indicators) == 0 {
		return Of(c, f, pref)
	}
	if _, ok := c.PeerGroup(sel.Peers); sel.Peers != "" && !ok {
		return nil, &hensachi.Error{Code: hensachi.ENotFound, Message: "no peer group " + sel.Peers, Japanese: "この類似団体はありません。"}
	}
	return withIndicators.Get(context.Background(), c, selectionKey{f, pref, sel.key()}, func() (*File, error) {
		name := strings.TrimSuffix(Filename(&c.Meta, pref, f.Name), "."+f.Name) + "-indicators" + changeInName(sel.Change) + "." + f.Name
		if sel.Only {
			name = onlyFilename(c, pref, f, sel)
		}
		rows := list.Items
		if sel.Peers != "" { // the group's members, in code order as the list's, of the prefecture
			rows = slices.DeleteFunc(c.PeerMembers(sel.Peers), func(m *hensachi.Municipality) bool { return pref != "" && m.Prefecture.Code != pref })
		}
		file, err := build(f, c, rows, sel, name)
		if err != nil {
			return nil, err
		}
		file.Gzipped()
		return file, nil
	})
}

// onlyFilename names a page's download of indicators: hensachi-{keys}[-{year}][-change-{from}-{to}][-{pref}][-peers-{group}]-{data date}.{format},
// e.g. hensachi-population-2020-13-2026-01-01.csv, so that the files of several pages saved side
// by side say what each holds.
func onlyFilename(c *town.Catalog, pref string, f *Format, sel Selection) string {
	var b strings.Builder
	b.WriteString("hensachi")
	for _, i := range sel.Indicators {
		b.WriteString("-" + c.Indicator(i).Key)
	}
	if sel.Year != 0 && sel.Change == [2]int{} {
		b.WriteString("-" + strconv.Itoa(sel.Year))
	}
	b.WriteString(changeInName(sel.Change))
	if pref != "" {
		b.WriteString("-" + pref)
	}
	if sel.Peers != "" {
		b.WriteString("-peers-" + sel.Peers)
	}
	return b.String() + "-" + c.Meta.DataUpdated + "." + f.Name
}
