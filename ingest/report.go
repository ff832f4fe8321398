package ingest

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/hensachi/hensachi"
)

// Report counts, per field, the municipalities without a value and why.
type Report struct {
	cl     *CodeList
	fields []string                       // in the order first recorded
	nulls  map[string]map[string][]string // field → reason → codes
	total  map[string]int
}

func newReport(cl *CodeList) *Report {
	return &Report{cl: cl, nulls: map[string]map[string][]string{}, total: map[string]int{}}
}

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
		reasons := make([]string, 0, len(r.nulls[key]))
		for why := range r.nulls[key] {
			reasons = append(reasons, why)
		}
		slices.Sort(reasons)
		for _, why := range reasons {
			codes := r.nulls[key][why]
			var named []string
			for _, c := range codes[:min(len(codes), maxNamed)] {
				e, _ := r.cl.Entry(c)
				named = append(named, c+" "+e.Name)
			}
			more := ""
			if len(codes) > maxNamed {
				more = fmt.Sprintf(", … %d more", len(codes)-maxNamed)
			}
			fmt.Fprintf(&b, "      %4d  %s (%s%s)\n", len(codes), why, strings.Join(named, ", "), more)
		}
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}
