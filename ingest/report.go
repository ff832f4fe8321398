package ingest

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/hensachi/hensachi"
)

// Report counts, per field, the municipalities without a value and why; per indicator, the
// municipality-years without a value and why; and what the SSDSE-A editions say differently.
type Report struct {
	cl     *CodeList
	fields []string                       // in the order first recorded
	nulls  map[string]map[string][]string // field → reason → codes
	total  map[string]int

	indicators    []*indicatorNulls // in the order first recorded
	indicatorByID map[string]*indicatorNulls
	disagreements []disagreement
	breaks        map[string][]definitionBreak
	renamed       []RenamedItem
	finance       []financeReport // the lists of FY2005–FY2015, oldest first
}

type financeReport struct {
	match *FinanceMatch
	file  string
}

// indicatorNulls are the nulls of one indicator over its years, grouped by reason.
type indicatorNulls struct {
	key     string
	total   int // municipality-years recorded
	nulls   int
	reasons map[string]*nullGroup
	dropped []int // years left out: no municipality has a value
}

type nullGroup struct {
	count int
	years []int    // ascending, without repeats
	codes []string // in the order first recorded, without repeats
}

func newReport(cl *CodeList) *Report {
	return &Report{cl: cl, nulls: map[string]map[string][]string{}, total: map[string]int{}, indicatorByID: map[string]*indicatorNulls{}}
}

// recordIndicator notes an indicator's figure for one municipality and survey year and returns it
// rounded as an optional value.
func (r *Report) recordIndicator(key string, year int, code string, f figure, decimals int) hensachi.Optional[float64] {
	n := r.indicatorByID[key]
	if n == nil {
		n = &indicatorNulls{key: key, reasons: map[string]*nullGroup{}}
		r.indicatorByID[key] = n
		r.indicators = append(r.indicators, n)
	}
	n.total++
	if f.why == "" {
		return hensachi.Some(hensachi.Round(f.v, decimals))
	}
	n.nulls++
	g := n.reasons[f.why]
	if g == nil {
		g = &nullGroup{}
		n.reasons[f.why] = g
	}
	g.count++
	if i, found := slices.BinarySearch(g.years, year); !found {
		g.years = slices.Insert(g.years, i, year)
	}
	if !slices.Contains(g.codes, code) {
		g.codes = append(g.codes, code)
	}
	return hensachi.Optional[float64]{}
}

// dropIndicatorYear notes a survey year left out of an indicator because no municipality has a
// value in it.
func (r *Report) dropIndicatorYear(key string, year int) {
	r.indicatorByID[key].dropped = append(r.indicatorByID[key].dropped, year)
}

// IndicatorNulls returns how many municipality-years of an indicator have no value.
func (r *Report) IndicatorNulls(key string) int {
	if n := r.indicatorByID[key]; n != nil {
		return n.nulls
	}
	return 0
}

// Disagreements returns how many item-years two SSDSE-A editions give different figures for.
func (r *Report) Disagreements() int { return len(r.disagreements) }

// record notes a figure and returns it rounded as an optional value.
func (r *Report) record(key, code string, f figure, decimals int) hensachi.Optional[float64] {
	if _, seen := r.total[key]; !seen {
		r.fields = append(r.fields, key)
		r.nulls[key] = map[string][]string{}
	}
	r.total[key]++
	if f.why != "" {
		r.nulls[key][f.why] = append(r.nulls[key][f.why], code)
		return hensachi.Optional[float64]{}
	}
	return hensachi.Some(hensachi.Round(f.v, decimals))
}

func (r *Report) recordInt(key, code string, f figure) hensachi.Optional[int64] {
	v := r.record(key, code, f, 0)
	return hensachi.Optional[int64]{V: int64(v.V), Valid: v.Valid}
}

// Nulls returns how many municipalities have no value for a field.
func (r *Report) Nulls(key string) int {
	n := 0
	for _, codes := range r.nulls[key] {
		n += len(codes)
	}
	return n
}

// Fields returns the keys of the fields recorded, in order.
func (r *Report) Fields() []string { return slices.Clone(r.fields) }

// maxNamed is how many municipalities the report names per reason.
const maxNamed = 5

// WriteTo writes the report as text: one line per field, then one indented line per reason.
func (r *Report) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "null values per field (of %d municipalities)\n", len(r.cl.Entries))
	for _, key := range r.fields {
		fmt.Fprintf(&b, "  %-36s %4d null\n", key, r.Nulls(key))
		for _, why := range slices.Sorted(maps.Keys(r.nulls[key])) {
			codes := r.nulls[key][why]
			fmt.Fprintf(&b, "      %4d  %s (%s)\n", len(codes), why, r.named(codes))
		}
	}
	r.writeIndicators(&b)
	r.writeEditions(&b)
	r.writeFinance(&b)
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

// named lists at most maxNamed municipalities by code and name, and how many more there are.
func (r *Report) named(codes []string) string {
	var named []string
	for _, c := range codes[:min(len(codes), maxNamed)] {
		e, _ := r.cl.Entry(c)
		named = append(named, c+" "+e.Name)
	}
	more := ""
	if len(codes) > maxNamed {
		more = fmt.Sprintf(", … %d more", len(codes)-maxNamed)
	}
	return strings.Join(named, ", ") + more
}

func (r *Report) writeIndicators(b *strings.Builder) {
	fmt.Fprintf(b, "null values per indicator (municipality-years of %d municipalities; the years of each reason in [])\n", len(r.cl.Entries))
	for _, n := range r.indicators {
		fmt.Fprintf(b, "  %-36s %5d null of %d\n", n.key, n.nulls, n.total)
		for _, why := range slices.Sorted(maps.Keys(n.reasons)) {
			g := n.reasons[why]
			fmt.Fprintf(b, "      %5d  %s %s (%s)\n", g.count, why, yearSpans(g.years), r.named(g.codes))
		}
		if len(n.dropped) > 0 {
			fmt.Fprintf(b, "      left out %s: no municipality has a value\n", yearSpans(n.dropped))
		}
	}
}

func (r *Report) writeEditions(b *strings.Builder) {
	fmt.Fprintf(b, "SSDSE-A editions: item-years two editions give different figures for (the newer edition's are kept): %d\n", len(r.disagreements))
	for _, d := range r.disagreements {
		fmt.Fprintf(b, "  %s %d: %d municipalities differ between %s and %s (%s)\n", d.item, d.year, d.codes, d.older, d.newer, strings.Join(d.examples, "; "))
	}
	fmt.Fprintf(b, "SSDSE-A items renamed without a change of definition (sources.json ssdse_renamed_items): %d\n", len(r.renamed))
	for _, rn := range r.renamed {
		fmt.Fprintf(b, "  %s %s: %s\n", rn.Item, strings.Join(rn.Names, " = "), rn.Reason)
	}
	items := slices.Sorted(maps.Keys(r.breaks))
	fmt.Fprintf(b, "SSDSE-A items whose name changes, a change of definition unless declared above: %d\n", len(items))
	for _, it := range items {
		for _, br := range r.breaks[it] {
			fmt.Fprintf(b, "  %s from %d: 「%s」 (to %d) → 「%s」\n", it, br.year, br.from, br.previous, br.to)
		}
	}
}

// yearSpans writes ascending years as spans: [2015, 2018–2020].
func yearSpans(years []int) string {
	var parts []string
	for i := 0; i < len(years); {
		j := i
		for j+1 < len(years) && years[j+1] == years[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(years[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d–%d", years[i], years[j]))
		}
		i = j + 1
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// writeFinance writes, per list of FY2005–FY2015, how its rows were matched to the code list: the
// municipalities matched, those null because their territory changed after the year (each with
// its mergers), those the list does not have, the rows of municipalities merged since, and the
// rows matched under an earlier name or whose name differs from the code list's.
func (r *Report) writeFinance(b *strings.Builder) {
	fmt.Fprintf(b, "finance lists of FY2005–FY2015 matched to the %d municipalities (mergers and renames: ingest/changes.go)\n", len(r.cl.Entries))
	for _, f := range r.finance {
		m := f.match
		by := "code"
		if m.ByName {
			by = "prefecture and name"
		}
		fmt.Fprintf(b, "  FY%d %s (by %s): %d rows, %d municipalities matched, %d of them null (territory changed since), %d not in the list, %d rows of municipalities merged since\n",
			m.Year, f.file, by, m.Rows, m.Matched, len(m.Changed), len(m.Absent), len(m.Absorbed))
		for _, code := range slices.Sorted(maps.Keys(m.Changed)) {
			fmt.Fprintf(b, "      null     %s: %s\n", r.cl.label(code), m.Changed[code])
		}
		for _, code := range slices.Sorted(maps.Keys(m.Absent)) {
			fmt.Fprintf(b, "      absent   %s: %s\n", r.cl.label(code), m.Absent[code])
		}
		if len(m.Renamed) > 0 {
			fmt.Fprintf(b, "      renamed  %s\n", strings.Join(m.Renamed, ", "))
		}
		if len(m.NameDiffers) > 0 {
			fmt.Fprintf(b, "      disagree %s\n", strings.Join(m.NameDiffers, ", "))
		}
		if len(m.Absorbed) > 0 {
			fmt.Fprintf(b, "      merged since: %s\n", strings.Join(m.Absorbed, ", "))
		}
	}
}
