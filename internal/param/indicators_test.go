package param

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/towntest"
	"github.com/hensachi/hensachi/town"
)

// TestIndicatorLists: the lists of indicator keys, the export's year and a similarity's measures
// give what they name in their order, or a 400 naming their parameter.
func TestIndicatorLists(t *testing.T) {
	c := towntest.Catalog() // births_per_1000 (2020, 2023), fiscal_strength (2022)
	read := func(raw string, f func(Query) (any, error)) (string, string) {
		q, err := ParseAPI(raw, "keys", "indicators", "year", "measures", "group")
		if err == nil {
			var v any
			if v, err = f(q); err == nil {
				return fmt.Sprint(v), ""
			}
		}
		e, ok := err.(*hensachi.Error)
		if !ok || e.Code != hensachi.EInvalidParameter {
			t.Fatalf("%s: %v", raw, err)
		}
		return "", e.Param
	}
	keys := func(q Query) (any, error) { return IndicatorKeys(c, q, "indicators", true) }
	year := func(q Query) (any, error) {
		idx, err := IndicatorKeys(c, q, "indicators", true)
		if err != nil {
			return nil, err
		}
		kept, y, err := IndicatorsYear(c, q, idx, slices.Equal(q.List("indicators"), []string{"all"}))
		return fmt.Sprint(kept, y), err
	}
	ofMunicipality := func(q Query) (any, error) { return IndicatorsOfMunicipality(c, q) }
	measures := func(q Query) (any, error) {
		dims, named, err := Dimensions(c, q)
		return fmt.Sprint(dims, named), err
	}
	compared := func(q Query) (any, error) {
		_, named, err := IndicatorDimensions(c, q, MaxChartedIndicators)
		return fmt.Sprint(named), err
	}
	for _, tc := range []struct {
		raw       string
		f         func(Query) (any, error)
		want, bad string
	}{
		{"indicators=fiscal_strength,births_per_1000", keys, "[1 0]", ""},
		{"indicators=fiscal_strength&indicators=births_per_1000", keys, "[1 0]", ""},
		{"indicators=all", keys, "[0 1]", ""},
		{"", keys, "[]", ""},
		{"indicators=nope", keys, "", "indicators"},
		{"indicators=all,fiscal_strength", keys, "", "indicators"},
		{"indicators=fiscal_strength,fiscal_strength", keys, "", "indicators"},
		{"indicators=,", keys, "", "indicators"},
		{"indicators=all&year=2020", year, "[0] 2020", ""},
		{"indicators=births_per_1000&year=2023", year, "[0] 2023", ""},
		{"indicators=births_per_1000,fiscal_strength&year=2022", year, "", "year"},
		{"indicators=all&year=1999", year, "", "year"},
		{"year=2020", year, "", "year"},
		{"indicators=all&year=20", year, "", "year"},
		{"keys=fiscal_strength", ofMunicipality, "[1]", ""},
		{"group=%E8%B2%A1%E6%94%BF", ofMunicipality, "[1]", ""},
		{"", ofMunicipality, "[0 1]", ""},
		{"keys=fiscal_strength&group=%E8%B2%A1%E6%94%BF", ofMunicipality, "", "group"},
		{"measures=income,births_per_1000@2020", measures, fmt.Sprint([]town.Dimension{{Axis: 3, Indicator: -1}, {Indicator: 0, Year: 0}}, []string{"income", "births_per_1000@2020"}), ""},
		{"measures=income", measures, "", "measures"},
		{"measures=income,pop", measures, "", "measures"},
		{"measures=fiscal_strength,fiscal_strength@2022", measures, "", "measures"},
		{"measures=income,births_per_1000@2021", measures, "", "measures"},
		{"indicators=births_per_1000", compared, "[births_per_1000@2023]", ""},
		{"indicators=young", compared, "", "indicators"},
		{"indicators=births_per_1000@2020,births_per_1000@2023,fiscal_strength", compared, "[births_per_1000@2020 births_per_1000@2023 fiscal_strength@2022]", ""},
		// five are one more than the compare page takes, whatever they name
		{"indicators=births_per_1000@2020,births_per_1000@2023,fiscal_strength,nope,nope", compared, "", "indicators"},
		{"indicators=births_per_1000,births_per_1000@2023", compared, "", "indicators"},
	} {
		got, bad := read(tc.raw, tc.f)
		if got != tc.want || bad != tc.bad {
			t.Errorf("%s: %q, param %q; want %q, param %q", tc.raw, got, bad, tc.want, tc.bad)
		}
	}
}
