package ingest

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// yearly is one item's figures for one survey year and where they come from.
type yearly struct {
	year int
	// name is the source's own name of the item in the file the figures come from, "" where the
	// source names items by code only.
	name string
	file string
	at   func(code string) figure
	// figures are at's values for the code list's municipalities, in its order, read on first use.
	figures []figure
}

// values returns the figures of every municipality of cl, in its order.
func (y *yearly) values(cl *CodeList) []figure {
	if y.figures == nil {
		y.figures = make([]figure, len(cl.Entries))
		for i, e := range cl.Entries {
			y.figures[i] = y.at(e.Code)
		}
	}
	return y.figures
}

// series are an item's survey years, oldest first.
type series []*yearly

// at returns the figures of a survey year, or nil.
func (s series) at(year int) *yearly {
	i, ok := slices.BinarySearchFunc(s, year, func(y *yearly, year int) int { return cmp.Compare(y.year, year) })
	if !ok {
		return nil
	}
	return s[i]
}

// nearest returns the figures of the latest survey year not after year, or, when there is none,
// of the earliest after it: what a denominator takes.
func (s series) nearest(year int) *yearly {
	i, _ := slices.BinarySearchFunc(s, year+1, func(y *yearly, year int) int { return cmp.Compare(y.year, year) })
	if i > 0 {
		return s[i-1]
	}
	return s[0]
}

func (s series) years() []int {
	out := make([]int, len(s))
	for i, y := range s {
		out[i] = y.year
	}
	return out
}

// edition is one parsed edition of SSDSE-A (or another file of a series).
type edition struct {
	source Source
	table  *Table
}

// disagreement is an item and survey year that two editions of SSDSE-A both hold with different
// figures; the newer edition's are kept.
type disagreement struct {
	item         string
	year         int
	newer, older string // files
	codes        int    // how many municipalities differ
	examples     []string
}

// definitionBreak is a survey year from which an item is named differently in its series, its
// earlier names not declared the same definition (Manifest.RenamedItems).
type definitionBreak struct {
	year, previous int
	from, to       string // the item's names before and from year
}

// maxExamples is how many municipalities the report names per disagreement.
const maxExamples = 3

// ssdseSeries assembles every SSDSE-A item's series from the editions, oldest first: a survey year's
// figures come from the newest edition that holds the item for that year. It returns the
// disagreements between editions on the same item and year, and each item's definition breaks.
// A renamed item the manifest declares must be written under its declared names; an item the
// manifest re-dates (Manifest.SurveyYears) takes its survey's year.
func ssdseSeries(editions []edition, cl *CodeList, man *Manifest) (map[string]series, []disagreement, map[string][]definitionBreak, error) {
	held := map[string]map[int][]int{} // item → survey year → editions holding it, oldest first
	for e, ed := range editions {
		for item, ys := range ed.table.Years {
			y, err := strconv.Atoi(ys)
			if err != nil {
				return nil, nil, nil, sourceErr(ed.table.File, 2, item, "not a survey year: %q", ys)
			}
			y = man.surveyYear(item, y)
			if held[item] == nil {
				held[item] = map[int][]int{}
			}
			held[item][y] = append(held[item][y], e)
		}
	}
	for _, sy := range man.SurveyYears {
		for _, item := range sy.Items {
			held := slices.ContainsFunc(editions, func(ed edition) bool { _, ok := ed.table.Years[item]; return ok })
			if held && !slices.ContainsFunc(editions, func(ed edition) bool { return ed.table.Years[item] == strconv.Itoa(sy.Written) }) {
				return nil, nil, nil, fmt.Errorf("sources.json: ssdse_survey_years: no edition of SSDSE-A writes %s as %d", item, sy.Written)
			}
		}
	}
	out := map[string]series{}
	var disagreements []disagreement
	for _, item := range slices.Sorted(maps.Keys(held)) {
		var s series
		for _, year := range slices.Sorted(maps.Keys(held[item])) {
			eds := held[item][year]
			newest := editions[eds[len(eds)-1]]
			col := column{t: newest.table, col: item}
			s = append(s, &yearly{year: year, name: newest.table.Names[item], file: newest.table.File, at: col.at})
			for _, older := range eds[:len(eds)-1] {
				if d, ok := compareEditions(item, year, newest.table, editions[older].table, cl); ok {
					disagreements = append(disagreements, d)
				}
			}
		}
		out[item] = s
	}
	breaks, err := definitionBreaks(out, editions, man.RenamedItems)
	if err != nil {
		return nil, nil, nil, err
	}
	return out, disagreements, breaks, nil
}

// compareEditions compares two editions' figures of one item, reporting ok when they differ.
func compareEditions(item string, year int, newer, older *Table, cl *CodeList) (disagreement, bool) {
	d := disagreement{item: item, year: year, newer: newer.File, older: older.File}
	newerRows, olderRows := newer.inOrder(cl), older.inOrder(cl)
	newerCol, olderCol := newer.cols[item], older.cols[item]
	for i, e := range cl.Entries {
		n, hasN := newerCol.get(newerRows[i])
		o, hasO := olderCol.get(olderRows[i])
		if hasN == hasO && (!hasN || n.Missing == o.Missing && n.V == o.V) {
			continue
		}
		d.codes++
		if len(d.examples) < maxExamples {
			d.examples = append(d.examples, fmt.Sprintf("%s %s %s → %s", e.Code, e.Name, cellText(o), cellText(n)))
		}
	}
	return d, d.codes > 0
}

func cellText(c Cell) string {
	if c.Missing != "" || c == (Cell{}) {
		return "none"
	}
	return strconv.FormatFloat(c.V, 'f', -1, 64)
}

// sameName folds the differences of writing that do not change a name: the width of digits,
// letters and brackets (１５歳 and 15歳) and the comma between words (農業，林業 and 農業、林業).
func sameName(name string) string {
	return strings.ReplaceAll(norm.NFKC.String(name), ",", "、")
}

// definitionBreaks finds, in every item's series, the survey years from which its name differs
// from the year before, less the renames the manifest declares; it fails when a declared rename of
// an item the editions have names a name none of them writes.
func definitionBreaks(all map[string]series, editions []edition, renamed []RenamedItem) (map[string][]definitionBreak, error) {
	same := map[string]map[string]string{} // item → folded name → the declared set's first name
	for _, r := range renamed {
		if same[r.Item] == nil {
			same[r.Item] = map[string]string{}
		}
		if _, ok := all[r.Item]; !ok {
			continue // no edition has the item: nothing to rename
		}
		for _, n := range r.Names {
			written := slices.ContainsFunc(editions, func(ed edition) bool {
				name, ok := ed.table.Names[r.Item]
				return ok && sameName(name) == sameName(n)
			})
			if !written {
				return nil, fmt.Errorf("sources.json: ssdse_renamed_items: no edition of SSDSE-A names %s %q", r.Item, n)
			}
			same[r.Item][sameName(n)] = sameName(r.Names[0])
		}
	}
	definition := func(item, name string) string {
		n := sameName(name)
		if d, ok := same[item][n]; ok {
			return d
		}
		return n
	}
	breaks := map[string][]definitionBreak{}
	for item, s := range all {
		for k := 1; k < len(s); k++ {
			if definition(item, s[k].name) != definition(item, s[k-1].name) {
				breaks[item] = append(breaks[item], definitionBreak{year: s[k].year, previous: s[k-1].year, from: s[k-1].name, to: s[k].name})
			}
		}
	}
	return breaks, nil
}

// columnSeries is the series of a table column per year, the columns named YearColumn(figure, year).
func columnSeries(t *Table, figure string) series {
	var s series
	for _, y := range t.FiscalYears(figure) {
		s = append(s, &yearly{year: y, file: t.File, at: column{t: t, col: YearColumn(figure, y)}.at})
	}
	return s
}

// financeSeries is the series of each figure of the finance workbooks, one year per file.
func financeSeries(files []edition) map[string]series {
	out := map[string]series{}
	for _, f := range files {
		for _, c := range financeColumns {
			out[c] = append(out[c], &yearly{year: f.source.Year, file: f.table.File, at: column{t: f.table, col: c}.at})
		}
	}
	return out
}

// furusatoSeries are the hometown-tax receipts (in thousand yen as published, and in yen for the
// ratios, which keep the detail file's exact yen) and donations per fiscal year, from the detail
// file where it has the year and from the history file before.
func furusatoSeries(fs *furusatoTables) map[string]series {
	years := func(detailFigure, historyFigure string) []int {
		ys := append(fs.detail.FiscalYears(detailFigure), fs.history.FiscalYears(historyFigure)...)
		slices.Sort(ys)
		return slices.Compact(ys)
	}
	var receipts, receiptsYen, counts series
	for _, y := range years(ReceiptsYen, ReceiptsThousandYen) {
		file := fs.history.File
		if _, ok := fs.detail.Years[YearColumn(ReceiptsYen, y)]; ok {
			file = fs.detail.File
		}
		receipts = append(receipts, &yearly{year: y, file: file, at: func(code string) figure { return fs.receiptsThousandYen(code, y) }})
		receiptsYen = append(receiptsYen, &yearly{year: y, file: file, at: func(code string) figure { return fs.receiptsYen(code, y) }})
	}
	for _, y := range years(ReceiptsCount, ReceiptsCount) {
		t := fs.history
		if _, ok := fs.detail.Years[YearColumn(ReceiptsCount, y)]; ok {
			t = fs.detail
		}
		counts = append(counts, &yearly{year: y, file: t.File, at: column{t: t, col: YearColumn(ReceiptsCount, y)}.at})
	}
	return map[string]series{furusatoReceiptsItem: receipts, furusatoReceiptsYenItem: receiptsYen, furusatoCountItem: counts}
}
