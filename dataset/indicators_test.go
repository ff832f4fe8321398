package dataset

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hensachi/hensachi"
)

// smallIndicators is a catalogue of one indicator in two years over two municipalities.
func smallIndicators() (hensachi.IndicatorCatalogue, hensachi.IndicatorValues) {
	cat := hensachi.IndicatorCatalogue{Method: "方法", Indicators: []hensachi.Indicator{{
		Key: "births_per_1000", Label: "出生率", Group: "人口・世帯", Decimals: 2,
		Formula: hensachi.Formula{Numerator: []string{"A4101"}, Denominator: []string{"A1101"}, Scale: 1000},
		Years:   []hensachi.IndicatorYear{{Year: 2020, Count: 1, Median: 6.5}, {Year: 2023, Count: 2, Median: 5.8}},
	}}}
	values := hensachi.IndicatorValues{{
		{hensachi.Some(6.5), {}},
		{hensachi.Some(6.1), hensachi.Some(5.5)},
	}}
	return cat, values
}

func twoMunicipalities() ([]hensachi.Municipality, hensachi.Meta) {
	m := func(code, name string) hensachi.Municipality {
		return hensachi.Municipality{Code: code, Name: name, Prefecture: hensachi.Prefecture{Code: code[:2], Name: "東京都"},
			Scores: make([]hensachi.Score, len(hensachi.Axes)), Stats: make([]hensachi.Optional[float64], len(hensachi.Stats))}
	}
	meta := hensachi.Meta{Axes: make([]hensachi.AxisMeta, len(hensachi.Axes)), Stats: make([]hensachi.StatMeta, len(hensachi.Stats))}
	return []hensachi.Municipality{m("13101", "千代田区"), m("13102", "中央区")}, meta
}

func TestIndicatorsRoundTrip(t *testing.T) {
	ms, meta := twoMunicipalities()
	cat, values := smallIndicators()
	path := filepath.Join(t.TempDir(), "dataset.arrow")
	if _, err := Write(path, ms, meta, WithIndicators(cat, values)); err != nil {
		t.Fatal(err)
	}
	ds, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	got := ds.Indicators
	if got.Method != "方法" || len(got.Indicators) != 1 || got.Indicators[0].Key != "births_per_1000" ||
		got.Indicators[0].Years[1] != cat.Indicators[0].Years[1] || got.Indicators[0].Formula.Scale != 1000 {
		t.Errorf("catalogue %+v", got)
	}
	for k := range values[0] {
		for m := range ms {
			if v := ds.IndicatorValue(0, k, m); v != values[0][k][m] {
				t.Errorf("year %d row %d: %v, want %v", k, m, v, values[0][k][m])
			}
		}
	}
	if idx := ds.rec.Schema().FieldIndices(IndicatorColumn("births_per_1000", 2023)); len(idx) != 1 {
		t.Errorf("no column %s", IndicatorColumn("births_per_1000", 2023))
	}
}

// TestItemNames: the names of the formulas' items are read back as written, and count in the
// content checksum: a file whose names changed is refused.
func TestItemNames(t *testing.T) {
	ms, meta := twoMunicipalities()
	cat, values := smallIndicators()
	names := map[string]string{"A4101": "出生数", "A1101": "総人口"}
	path := filepath.Join(t.TempDir(), "dataset.arrow")
	if _, err := Write(path, ms, meta, WithIndicators(cat, values), WithItemNames(names)); err != nil {
		t.Fatal(err)
	}
	ds, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(ds.ItemNames, names) {
		t.Errorf("item names %v, want %v", ds.ItemNames, names)
	}
	ds.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("出生数")) {
		t.Fatal("the file does not hold 出生数")
	}
	// the schema, with its metadata, is in the file's head and footer
	if err := os.WriteFile(path, bytes.ReplaceAll(b, []byte("出生数"), []byte("死亡数")), 0o644); err != nil {
		t.Fatal(err)
	}
	if ds, err := Open(path); err == nil || !strings.Contains(err.Error(), "checksum") {
		if ds != nil {
			ds.Close()
		}
		t.Errorf("a file whose item names changed: %v, want refused by its checksum", err)
	}
}

func TestWithoutIndicators(t *testing.T) {
	ms, meta := twoMunicipalities()
	path := filepath.Join(t.TempDir(), "dataset.arrow")
	if _, err := Write(path, ms, meta); err != nil {
		t.Fatal(err)
	}
	ds, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	if len(ds.Indicators.Indicators) != 0 {
		t.Errorf("catalogue %+v, want none", ds.Indicators)
	}
}

// TestIndicatorsMisfit: values that do not fit the catalogue or the municipalities are refused.
func TestIndicatorsMisfit(t *testing.T) {
	ms, meta := twoMunicipalities()
	for _, tc := range []struct {
		name   string
		change func(*hensachi.IndicatorCatalogue, *hensachi.IndicatorValues)
		reason string
	}{
		{"an indicator without values", func(c *hensachi.IndicatorCatalogue, v *hensachi.IndicatorValues) { *v = nil }, "0 indicators have values"},
		{"a year without values", func(c *hensachi.IndicatorCatalogue, v *hensachi.IndicatorValues) { (*v)[0] = (*v)[0][:1] }, "values for 1 years"},
		{"a value short", func(c *hensachi.IndicatorCatalogue, v *hensachi.IndicatorValues) { (*v)[0][1] = (*v)[0][1][:1] }, "1 values in 2023 for 2 municipalities"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cat, values := smallIndicators()
			tc.change(&cat, &values)
			_, err := Write(filepath.Join(t.TempDir(), "dataset.arrow"), ms, meta, WithIndicators(cat, values))
			if err == nil || !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("error %v, want one saying %q", err, tc.reason)
			}
		})
	}
}
