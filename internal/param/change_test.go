package param

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/towntest"
	"github.com/hensachi/hensachi/town"
)

// TestIndicatorChangeParams: from and to of a change's ranking and map, and change=Y1-Y2 of the
// exports, give the two years' positions or a 400 naming the parameter at fault, with the reason.
func TestIndicatorChangeParams(t *testing.T) {
	// births_per_1000 (2020, 2023: a difference), fiscal_strength (2022: none), and a copy of births
	// with a third year and a break in 2023
	base := towntest.Catalog()
	cat, values := towntest.Indicators()
	broken := cat.Indicators[0]
	broken.Key, broken.Breaks, broken.Note = "broken", []int{2023}, "2023年から定義が変わる。"
	broken.Years = []hensachi.IndicatorYear{{Year: 2015}, {Year: 2020}, {Year: 2023}}
	cat.Indicators = append(cat.Indicators, broken)
	values = append(values, [][]hensachi.Optional[float64]{values[0][0], values[0][0], values[0][1]})
	c := town.New(towntest.Municipalities(), base.Meta, "param-change", towntest.PublicURL).WithIndicators(cat, values)

	read := func(raw string, f func(Query) (string, error)) (string, *hensachi.Error) {
		q, err := ParseAPI(raw, "from", "to", "year", "change", "indicators")
		if err == nil {
			var v string
			if v, err = f(q); err == nil {
				return v, nil
			}
		}
		e, ok := err.(*hensachi.Error)
		if !ok || e.Code != hensachi.EInvalidParameter {
			t.Fatalf("%s: %v", raw, err)
		}
		return "", e
	}
	ranking := func(key string) func(Query) (string, error) {
		return func(q Query) (string, error) {
			ch, ok, err := IndicatorChange(c, q, c.IndicatorIndex(key))
			return fmt.Sprint(ch, ok), err
		}
	}
	export := func(q Query) (string, error) {
		idx, err := IndicatorKeys(c, q, "indicators", true)
		if err != nil {
			return "", err
		}
		kept, years, err := ExportChange(c, q, idx, slices.Equal(q.List("indicators"), []string{"all"}))
		return fmt.Sprint(kept, years), err
	}
	for _, tc := range []struct {
		raw       string
		f         func(Query) (string, error)
		want, bad string
		says      string
	}{
		{"", ranking("births_per_1000"), "{0 0} false", "", ""},
		{"from=2020&to=2023", ranking("births_per_1000"), "{0 1} true", "", ""},
		{"from=2020", ranking("births_per_1000"), "", "to", "to is required"},
		{"year=2020&from=2020&to=2023", ranking("births_per_1000"), "", "year", "from and to alone"},
		{"to=2023", ranking("births_per_1000"), "", "from", "from is required"},
		{"from=2019&to=2023", ranking("births_per_1000"), "", "from", "no survey year 2019"},
		{"from=2020&to=2024", ranking("births_per_1000"), "", "to", "no survey year 2024"},
		{"from=02020&to=2023", ranking("births_per_1000"), "", "from", "four digits"},
		{"from=2023&to=2020", ranking("births_per_1000"), "", "to", "must be after from"},
		{"from=2020&to=2020", ranking("births_per_1000"), "", "to", "must be after from"},
		{"from=2022&to=2022", ranking("fiscal_strength"), "", "from", "no measure of change"},
		{"from=2015&to=2020", ranking("broken"), "{0 1} true", "", ""},
		{"from=2020&to=2023", ranking("broken"), "", "from", "changes its definition in 2023"},
		{"from=2015&to=2023", ranking("broken"), "", "from", "not comparable"},

		{"indicators=births_per_1000&change=2020-2023", export, "[0] [2020 2023]", "", ""},
		{"indicators=all&change=2020-2023", export, "[0] [2020 2023]", "", ""}, // broken crosses its break: left out
		{"indicators=all&change=2015-2020", export, "[2] [2015 2020]", "", ""},
		{"indicators=births_per_1000", export, "[0] [0 0]", "", ""},
		{"change=2020-2023", export, "", "change", "give indicators too"},
		{"indicators=births_per_1000&change=2020", export, "", "change", "joined by -"},
		{"indicators=births_per_1000&change=2020-23", export, "", "change", "four digits"},
		{"indicators=births_per_1000&change=2023-2020", export, "", "change", "must be before"},
		{"indicators=births_per_1000&change=2015-2020", export, "", "change", "no survey year 2015"},
		{"indicators=broken&change=2020-2023", export, "", "change", "changes its definition"},
		{"indicators=fiscal_strength,births_per_1000&change=2020-2023", export, "", "change", "no survey year 2020"},
		{"indicators=all&change=2016-2017", export, "", "change", "no indicator has a change"},
	} {
		got, err := read(tc.raw, tc.f)
		switch {
		case tc.bad == "" && (err != nil || got != tc.want):
			t.Errorf("%q: %q, %v; want %q", tc.raw, got, err, tc.want)
		case tc.bad != "" && (err == nil || err.Param != tc.bad || !strings.Contains(err.Message, tc.says) || err.Japanese == ""):
			t.Errorf("%q: %q, %v; want a 400 naming %s saying %q", tc.raw, got, err, tc.bad, tc.says)
		}
	}
}
