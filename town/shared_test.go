package town_test

import (
	"path/filepath"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/dataset"
	"github.com/hensachi/hensachi/internal/testrig/towntest"
	"github.com/hensachi/hensachi/town"
)

// TestCatalogsOfOneVersionShareIndicators: two files with the same content have one catalog, and
// one at another base URL shares its ranked indicators; a file with one value changed is ranked on
// its own.
func TestCatalogsOfOneVersionShareIndicators(t *testing.T) {
	towns := towntest.Municipalities()
	cat, values := towntest.Indicators()
	write := func(values hensachi.IndicatorValues) string {
		path := filepath.Join(t.TempDir(), "dataset.arrow")
		if _, err := dataset.Write(path, towns, towntest.Meta(), dataset.WithIndicators(cat, values)); err != nil {
			t.Fatal(err)
		}
		return path
	}
	openAt := func(path, baseURL string) *town.Catalog {
		h, err := town.Open(path, baseURL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(h.Close)
		c, err := h.Catalog()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	open := func(path string) *town.Catalog { return openAt(path, towntest.PublicURL) }
	first, again := open(write(values)), open(write(values))
	if first.Version != again.Version || first != again {
		t.Errorf("versions %s and %s: two catalogs", first.Version, again.Version)
	}
	elsewhere := openAt(write(values), "https://elsewhere.example")
	if elsewhere == first || elsewhere.Indicator(0) != first.Indicator(0) {
		t.Errorf("a catalog at another base URL: the same catalog, or indicators not shared")
	}

	changed := make(hensachi.IndicatorValues, len(values))
	for i := range values {
		changed[i] = make([][]hensachi.Optional[float64], len(values[i]))
		for k := range values[i] {
			changed[i][k] = append([]hensachi.Optional[float64](nil), values[i][k]...)
		}
	}
	changed[0][0][0] = hensachi.Some(1.0) // 札幌市 from first to last in births_per_1000, 2020
	other := open(write(changed))
	if other.Version == first.Version || other.Indicator(0) == first.Indicator(0) {
		t.Fatalf("a changed file shares the indicators of version %s", first.Version)
	}
	if got, want := other.IndicatorPoint(0, 0, 0).Rank, 4; got != want {
		t.Errorf("札幌市's rank in the changed file: %d, want %d", got, want)
	}
	if got := first.IndicatorPoint(0, 0, 0).Rank; got != 2 {
		t.Errorf("札幌市's rank in the first file: %d, want 2", got)
	}
}

// TestItemNamesFromDataset: a catalog names its formulas' items as its dataset does; an item the
// dataset does not name has no name.
func TestItemNamesFromDataset(t *testing.T) {
	cat, values := towntest.Indicators()
	path := filepath.Join(t.TempDir(), "dataset.arrow")
	if _, err := dataset.Write(path, towntest.Municipalities(), towntest.Meta(), dataset.WithIndicators(cat, values), dataset.WithItemNames(towntest.ItemNames)); err != nil {
		t.Fatal(err)
	}
	h, err := town.Open(path, towntest.PublicURL)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	c, err := h.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	for item, want := range map[string]string{"A4101": "出生数", "finance.財政力指数": "財政力指数", "A9999": ""} {
		if got := c.ItemName(item); got != want {
			t.Errorf("ItemName(%s) = %q, want %q", item, got, want)
		}
	}
}
