package site

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/towntest"
)

// TestUnitsKeptTogether: wherever a page prints a value with its unit, or a unit alone (in
// brackets, or as the whole of a text, as under a ranking's heading 値), as text a line may break (not an SVG label, a title or an attribute), it is one
// unbreakable piece (page.Nowrap's span, or another element of its class), so that no phone shows 3.2 店/1 at a line's end and 万人
// on the next.
func TestUnitsKeptTogether(t *testing.T) {
	router := siteRouter(t)
	units := []string{"円", "件", "人"}
	for _, f := range slices.Concat(hensachi.Axes, hensachi.Stats) {
		units = append(units, f.Unit)
	}
	for _, ind := range towntest.Catalog().Indicators("") {
		units = append(units, ind.Unit)
	}
	units = slices.DeleteFunc(units, func(u string) bool { return u == "" })
	slices.SortFunc(units, func(a, b string) int { return len(b) - len(a) }) // the longest first: 人/km² before 人
	var alternatives, long []string                                          // long: the units a line could break inside
	for _, u := range slices.Compact(units) {
		alternatives = append(alternatives, regexp.QuoteMeta(u))
		if utf8.RuneCountInString(u) > 1 {
			long = append(long, regexp.QuoteMeta(u))
		}
	}
	valueWithUnit := regexp.MustCompile(`[0-9][0-9,.]* (?:` + strings.Join(alternatives, "|") + `)|（(?:` + strings.Join(long, "|") + `)）|^\s*(?:` + strings.Join(long, "|") + `)\s*$`)
	// a value and its unit as withUnit, yen and count write them: prose (1人当たり, 1% ずつ) has no space
	for _, path := range []string{"/town/municipalities/13101", "/town/municipalities/01345", "/town/compare?codes=13101,01100,01345", "/town/compare?codes=13101,01100,01345&indicators=births_per_1000,fiscal_strength",
		"/town/prefectures", "/town/indicators", "/town/indicators/births_per_1000", "/town/scatter?x=shops&y=doctor&pref=13",
		"/town/rankings/shops?pref=13", "/town/municipalities/01100/indicators/births_per_1000",
		// no unit beside the values today, the heading has it
		"/", "/town/prefectures/13"} {
		status, body := getPage(t, router, path)
		if status != 200 {
			t.Fatalf("%s: %d", path, status)
		}
		doc, err := html.Parse(strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		found := 0
		var walk func(n *html.Node, kept bool)
		walk = func(n *html.Node, kept bool) {
			switch {
			case n.Type == html.ElementNode && (n.Namespace == "svg" || n.Data == "title" || n.Data == "style"):
				return // drawn, not wrapped
			case n.Type == html.ElementNode && slices.Contains(n.Attr, html.Attribute{Key: "class", Val: "nb"}):
				kept = true
			case n.Type == html.TextNode:
				for _, v := range valueWithUnit.FindAllString(n.Data, -1) {
					found++
					if !kept {
						t.Errorf("%s: %q can break inside, in %q", path, v, strings.TrimSpace(n.Data))
					}
				}
			}
			for c := range n.ChildNodes() {
				walk(c, kept)
			}
		}
		walk(doc, false)
		if found == 0 && !slices.Contains([]string{"/", "/town/prefectures/13"}, path) {
			t.Errorf("%s: no value with its unit found: the test looks at nothing", path)
		}
	}
}
