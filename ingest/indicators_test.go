package ingest_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/rawfiles"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

// indicatorManifest is ingest/indicators.json as a reader of the repository sees it, decoded here
// on its own so that the checks below do not lean on the loader they check.
type indicatorManifest struct {
	Indicators []hensachi.Indicator `json:"indicators"`
	// ExcludedItems are the SSDSE-A items the catalogue has no count of, each with its reason.
	ExcludedItems []excludedItem `json:"excluded_items"`
}

type excludedItem struct {
	Item string `json:"item"`
	// SameAs names the item of another source that carries the same figures, when that is the
	// reason; the test checks the claim against the files.
	SameAs string `json:"same_as,omitempty"`
	Reason string `json:"reason"`
}

func readIndicatorManifest(t *testing.T) indicatorManifest {
	t.Helper()
	b, err := os.ReadFile("indicators.json")
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields() // a field the domain type lacks would be dropped silently
	var m indicatorManifest
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("indicators.json: %v", err)
	}
	return m
}

// formulaItems returns every item a formula names, wherever it names it.
func formulaItems(f hensachi.Formula) []string {
	return slices.Concat(f.Items, f.Numerator, f.Minus, f.Denominator)
}

// ssdseCode is an SSDSE-A item code; the other sources' items are written source.item.
var ssdseCode = regexp.MustCompile(`^[A-J][0-9]{4,6}$`)

// otherSourceItems are the items of the sources other than SSDSE-A that ingest provides. The
// finance and portal names are checked against the files too (TestIndicatorManifestOtherSources);
// the hometown-tax items are series that ingest assembles from several files.
var otherSourceItems = map[string][]string{
	"finance":  {"財政力指数", "経常収支比率", "実質公債費比率", "将来負担比率", "ラスパイレス指数"},
	"portal":   {"C120110", "C120120"},
	"furusato": {"receipts_thousand_yen", "receipts_yen", "receipts_count"},
	"jumin":    {"population", "households", "births", "deaths", "moves_in", "moves_out"},
}

func isOtherSourceItem(item string) bool {
	src, name, ok := strings.Cut(item, ".")
	return ok && slices.Contains(otherSourceItems[src], name)
}

// TestIndicatorManifest checks each entry of the catalogue on its own: a stable key, a group the
// API lists, the texts a reader needs, and a formula that can be computed as written.
func TestIndicatorManifest(t *testing.T) {
	m := readIndicatorManifest(t)
	if len(m.Indicators) < 150 {
		t.Errorf("%d indicators, the catalogue promises at least 150", len(m.Indicators))
	}
	key := regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	seen := map[string]bool{}
	groups := map[string]int{}
	for _, ind := range m.Indicators {
		t.Run(ind.Key, func(t *testing.T) {
			if !key.MatchString(ind.Key) {
				t.Errorf("key %q is not snake_case ASCII", ind.Key)
			}
			if seen[ind.Key] {
				t.Errorf("key %q given twice", ind.Key)
			}
			seen[ind.Key] = true
			if !slices.Contains(hensachi.IndicatorGroups, ind.Group) {
				t.Errorf("group %q is not one of %v", ind.Group, hensachi.IndicatorGroups)
			}
			groups[ind.Group]++
			for name, s := range map[string]string{"label": ind.Label, "description": ind.Description, "source": ind.Source} {
				if strings.TrimSpace(s) == "" {
					t.Errorf("no %s", name)
				}
			}
			if ind.Decimals < 0 || ind.Decimals > 3 {
				t.Errorf("decimals %d, expected 0 to 3", ind.Decimals)
			}
			if len(ind.Years) > 0 {
				t.Error("the manifest declares years; ingest adds them from the files")
			}
			checkFormula(t, ind)
		})
	}
	for _, g := range hensachi.IndicatorGroups {
		if groups[g] == 0 {
			t.Errorf("group %s has no indicator", g)
		}
	}
}

func checkFormula(t *testing.T, ind hensachi.Indicator) {
	t.Helper()
	f := ind.Formula
	switch {
	case len(f.Items) > 0:
		if len(f.Numerator) > 0 || len(f.Denominator) > 0 || f.Scale < 0 {
			t.Errorf("formula %+v: items stand alone, without numerator or denominator, scaled (when at all) by a positive number", f)
		}
	case len(f.Numerator) > 0:
		if len(f.Denominator) == 0 || f.Scale <= 0 {
			t.Errorf("formula %+v: a ratio needs a denominator and a positive scale", f)
		}
	default:
		t.Errorf("formula %+v names neither items nor a numerator", f)
	}
	for _, item := range formulaItems(f) {
		if !ssdseCode.MatchString(item) && !isOtherSourceItem(item) {
			t.Errorf("item %q is neither an SSDSE-A code nor one of %v", item, otherSourceItems)
		}
	}
	// The areas are published in hectares: in km² they are ×0.01, per km² ×100 and per 100 km²
	// ×10,000, and the description has to say so, or the figure is off by a factor nobody sees.
	areas := []string{"B1101", "B1103"}
	if len(f.Items) > 0 && allIn(f.Items, areas) && ind.Unit == "km²" && (f.Scale != 0.01 || !strings.Contains(ind.Description, "ヘクタール")) {
		t.Errorf("an area in km² with scale %g, want 0.01 and a description that names the hectares", f.Scale)
	}
	for _, area := range areas {
		if !slices.Contains(f.Denominator, area) || allIn(f.Numerator, areas) { // an area over an area has no unit
			continue
		}
		want := 100.0
		if strings.Contains(ind.Label, "100km²") {
			want = 10000
		}
		if f.Scale != want || !strings.Contains(ind.Description, "ヘクタール") {
			t.Errorf("divides by %s (hectares) with scale %g, want %g and a description that names the hectares", area, f.Scale, want)
		}
	}
}

func allIn(items, set []string) bool {
	for _, it := range items {
		if !slices.Contains(set, it) {
			return false
		}
	}
	return true
}

// ssdseItem is what all SSDSE-A editions say of each item code: its survey year in each edition
// that has it, and its names.
type ssdseItem struct {
	editions map[int]int // edition → survey year
	names    []string
}

func readSSDSEItems(t *testing.T) ([]rawfiles.SSDSEEdition, map[string]*ssdseItem) {
	t.Helper()
	eds, err := rawfiles.ReadSSDSE(testenv.Shared(t, "data/raw/ssdse"))
	if err != nil {
		t.Fatal(err)
	}
	items := map[string]*ssdseItem{}
	for _, e := range eds {
		for _, c := range e.Columns {
			it := items[c.Code]
			if it == nil {
				it = &ssdseItem{editions: map[int]int{}}
				items[c.Code] = it
			}
			it.editions[e.Edition] = c.Year
			if !slices.Contains(it.names, c.Name) {
				it.names = append(it.names, c.Name)
			}
		}
	}
	return eds, items
}

// surveyYears returns the sorted survey years an item has over all editions.
func (it *ssdseItem) surveyYears() []int {
	var ys []int
	for _, y := range it.editions {
		if !slices.Contains(ys, y) {
			ys = append(ys, y)
		}
	}
	slices.Sort(ys)
	return ys
}

// TestIndicatorManifestCoversSSDSE holds the catalogue against every SSDSE-A edition: each item
// code a formula names exists in one of them, each item of each edition is an indicator of its
// own (a count or its published value) or is excluded with a reason, and the items a formula adds
// or subtracts share their survey years, so that the sum is of one year.
func TestIndicatorManifestCoversSSDSE(t *testing.T) {
	m := readIndicatorManifest(t)
	eds, items := readSSDSEItems(t)
	if len(eds) < 9 {
		t.Errorf("%d SSDSE-A editions, expected the nine of 2018–2026", len(eds))
	}

	counted := map[string]string{}                 // item → key of an indicator that is its count
	countedIn := map[string][]hensachi.Indicator{} // item → the indicators that are its count
	for _, ind := range m.Indicators {
		f := ind.Formula
		for _, item := range formulaItems(f) {
			if ssdseCode.MatchString(item) && items[item] == nil {
				t.Errorf("%s: item %s is in no SSDSE-A edition", ind.Key, item)
			}
		}
		if len(f.Items) == 1 && len(f.Minus) == 0 && ssdseCode.MatchString(f.Items[0]) { // its count, or the count in another unit
			// an item counted twice is split by its years, a change of definition under one code
			for _, other := range countedIn[f.Items[0]] {
				if yearsOverlap(other, ind) {
					t.Errorf("%s and %s are both the count of %s in the same years", other.Key, ind.Key, f.Items[0])
				}
			}
			countedIn[f.Items[0]] = append(countedIn[f.Items[0]], ind)
			counted[f.Items[0]] = ind.Key
		}
		for _, terms := range [][]string{slices.Concat(f.Items, f.Numerator, f.Minus), f.Denominator} {
			var first string
			for _, item := range terms {
				if items[item] == nil {
					continue
				}
				if first == "" {
					first = item
					continue
				}
				if a, b := items[first].surveyYears(), items[item].surveyYears(); !slices.Equal(a, b) {
					t.Errorf("%s: %s (years %v) and %s (years %v) are summed but not of the same years", ind.Key, first, a, item, b)
				}
			}
		}
	}

	excluded := map[string]excludedItem{}
	for _, x := range m.ExcludedItems {
		switch {
		case items[x.Item] == nil:
			t.Errorf("excluded item %s is in no SSDSE-A edition", x.Item)
		case strings.TrimSpace(x.Reason) == "":
			t.Errorf("excluded item %s gives no reason", x.Item)
		case counted[x.Item] != "":
			t.Errorf("excluded item %s is the count of %s all the same", x.Item, counted[x.Item])
		}
		excluded[x.Item] = x
	}
	for _, e := range eds {
		for _, c := range e.Columns {
			if counted[c.Code] == "" && excluded[c.Code].Item == "" {
				t.Errorf("%s: item %s (%s, %d) is neither an indicator nor excluded", e.File, c.Code, c.Name, c.Year)
			}
		}
	}
	if n := len(items); n < 169 {
		t.Errorf("%d distinct item codes over the editions, expected the 169 SOURCES.md counts", n)
	}
}

// yearsOverlap reports whether two entries' from_year–to_year ranges share a year.
func yearsOverlap(a, b hensachi.Indicator) bool {
	lo, hi := max(a.FromYear, b.FromYear), min(upTo(a.ToYear), upTo(b.ToYear))
	return lo <= hi
}

func upTo(y int) int {
	if y == 0 {
		return math.MaxInt
	}
	return y
}

// TestIndicatorManifestExclusionsHold checks what an exclusion claims: an SSDSE-A item left out
// because another source carries the same figures must equal that source, municipality by
// municipality, in every fiscal year both have.
func TestIndicatorManifestExclusionsHold(t *testing.T) {
	m := readIndicatorManifest(t)
	eds, _ := readSSDSEItems(t)
	years := readFinanceXLSX(t)
	for _, x := range m.ExcludedItems {
		name, ok := strings.CutPrefix(x.SameAs, "finance.")
		if !ok {
			if x.SameAs != "" {
				t.Errorf("%s: same_as %q, the test knows how to check finance items only", x.Item, x.SameAs)
			}
			continue
		}
		compared, differ := 0, 0
		for _, e := range eds {
			j := e.Column(x.Item)
			if j < 0 {
				continue
			}
			fy, ok := years[e.Columns[j].Year]
			if !ok {
				continue
			}
			for code, vals := range e.Rows {
				fin, ok := fy.Values[code]
				if !ok {
					continue
				}
				want, ok := fin[name]
				// The workbooks store some figures as the nearest binary fraction (-0.6000000000000001).
				if got := vals[j]; !ok || math.Abs(got-want) > 1e-9 {
					if differ++; differ <= 5 {
						t.Errorf("%s %s FY%d %s: %g, but %s has %s %g (present: %t)", e.File, x.Item, fy.Fiscal, code, got, fy.File, name, want, ok)
					}
				}
				compared++
			}
		}
		if differ > 0 {
			t.Errorf("%s: %d of %d figures differ from %s", x.Item, differ, compared, x.SameAs)
		}
		if compared < 1700*len(years) {
			t.Errorf("%s: compared %d figures with %s, expected every municipality in each of %d fiscal years", x.Item, compared, x.SameAs, len(years))
		}
	}
}

// readFinanceXLSX reads the lists of the financial indicators published as xlsx, by fiscal year.
func readFinanceXLSX(t *testing.T) map[int]rawfiles.FinanceYear {
	t.Helper()
	dir := testenv.Shared(t, "data/raw/finance")
	paths, _ := filepath.Glob(filepath.Join(dir, "shuyo_zaisei_shihyo_city", "*.xlsx"))
	paths = append(paths, filepath.Join(dir, "000917808.xlsx"))
	years := map[int]rawfiles.FinanceYear{}
	for _, p := range paths {
		fy, err := rawfiles.ReadFinanceXLSX(p)
		if err != nil {
			t.Fatal(err)
		}
		years[fy.Fiscal] = fy
	}
	return years
}

// TestIndicatorManifestOtherSources checks the items of the other sources against their files:
// each finance item is a column of the newest list of financial indicators, each portal item a
// series of the portal file.
func TestIndicatorManifestOtherSources(t *testing.T) {
	m := readIndicatorManifest(t)
	fy, err := rawfiles.ReadFinanceXLSX(testenv.Shared(t, "data/raw/finance/000917808.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	portal, err := rawfiles.ReadPortal(testenv.Shared(t, "data/raw/ssds/masakizhitian38_jichitai-data-portal_embedded.json"))
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, ind := range m.Indicators {
		for _, item := range formulaItems(ind.Formula) {
			named[item] = true
		}
	}
	for src, names := range otherSourceItems {
		for _, name := range names {
			item := src + "." + name
			if !named[item] {
				t.Errorf("no indicator names %s", item)
			}
			switch src {
			case "finance":
				if n := countWith(fy.Values, name); n < 800 {
					t.Errorf("%s: %s has %d municipalities with a figure for %s", item, fy.File, n, name)
				}
			case "portal":
				if len(portal.Years[name]) == 0 {
					t.Errorf("%s: the portal file has no series %s", item, name)
				}
			}
		}
	}
}

func countWith(values map[string]map[string]float64, name string) int {
	n := 0
	for _, v := range values {
		if _, ok := v[name]; ok {
			n++
		}
	}
	return n
}
