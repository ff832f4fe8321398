package geojsonfile_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/geo"
	"github.com/hensachi/hensachi/geojsonfile"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// square is a closed ring around (x, y) of side d, clockwise when cw.
func square(x, y, d float64, cw bool) geo.Ring {
	r := geo.Ring{{x, y}, {x + d, y}, {x + d, y + d}, {x, y + d}, {x, y}}
	if cw {
		for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
			r[i], r[j] = r[j], r[i]
		}
	}
	return r
}

// shapes gives the shapes of a list by row.
func shapes(s []geo.Shape) func(int) geo.Shape { return func(r int) geo.Shape { return s[r] } }

// sample is three municipalities: a clockwise island with a counter-clockwise hole, two islands
// (one given open, one collapsing to nothing at Decimals) and no shape at all.
func sample() geojsonfile.Collection {
	return geojsonfile.Collection{
		Columns: []hensachi.Column{
			{Name: "code", Strings: []string{"01100", "13101", "47356"}},
			{Name: "name", Strings: []string{"札幌市", "千代田区 \"東京\"", "渡名喜村"}},
			{Name: "rank", Ints: []hensachi.Optional[int64]{hensachi.Some(int64(3)), {}, hensachi.Some(int64(1741))}},
			{Name: "value", Floats: []hensachi.Optional[float64]{{}, hensachi.Some(1234567.5), hensachi.Some(-0.125)}},
		},
		ID: "code",
		Shape: shapes([]geo.Shape{
			{{square(141.2, 43, 0.2, true), square(141.25, 43.05, 0.05, false)}},
			{
				{square(139.7512345678, 35.6712345678, 0.01, false)[:4]}, // open: closed on writing
				{square(139.8, 35.7, 1e-7, false)},                       // smaller than the precision
				{square(139.9, 35.8, 0.001, true)},
			},
			nil,
		}),
		Attribution: []string{"出典：国土交通省国土数値情報（行政区域データ）を加工して作成", "統計：example"},
	}
}

// TestWriteGolden compares the file with testdata/sample.geojson (go test -update rewrites it).
func TestWriteGolden(t *testing.T) {
	var b bytes.Buffer
	if err := geojsonfile.Write(&b, sample()); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "sample.geojson")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("got\n%s\nwant\n%s", b.Bytes(), want)
	}
}

// collection is a FeatureCollection as a GeoJSON reader sees it.
type collection struct {
	Type        string
	Attribution []string
	Features    []struct {
		Type     string
		ID       string
		Geometry *struct {
			Type        string
			Coordinates json.RawMessage
		}
		Properties map[string]any
	}
}

// polygons are a MultiPolygon's polygons; any other type is an error: a GIS layer has one type.
func polygons(t *testing.T, typ string, coords json.RawMessage) [][][]geo.Point {
	t.Helper()
	if typ != "MultiPolygon" {
		t.Fatalf("geometry %s, want MultiPolygon", typ)
	}
	var ps [][][]geo.Point
	if err := json.Unmarshal(coords, &ps); err != nil {
		t.Fatal(err)
	}
	return ps
}

// TestWriteRules reads the file back: ids, closed rings of four positions or more, outer rings
// counter-clockwise and holes clockwise, the collapsed island left out, properties typed and null.
func TestWriteRules(t *testing.T) {
	var b bytes.Buffer
	if err := geojsonfile.Write(&b, sample()); err != nil {
		t.Fatal(err)
	}
	var c collection
	if err := json.Unmarshal(b.Bytes(), &c); err != nil {
		t.Fatal(err)
	}
	if c.Type != "FeatureCollection" || len(c.Features) != 3 || len(c.Attribution) != 2 {
		t.Fatalf("%s of %d features, attribution %v", c.Type, len(c.Features), c.Attribution)
	}
	for k, want := range []struct {
		id       string
		geometry string
		parts    int
	}{{"01100", "MultiPolygon", 1}, {"13101", "MultiPolygon", 2}, {"47356", "", 0}} {
		f := c.Features[k]
		if f.Type != "Feature" || f.ID != want.id || f.Properties["code"] != want.id {
			t.Errorf("feature %d: %s id %q code %v", k, f.Type, f.ID, f.Properties["code"])
		}
		if f.Geometry == nil {
			if want.geometry != "" {
				t.Errorf("%s: no geometry", f.ID)
			}
			continue
		}
		if f.Geometry.Type != want.geometry {
			t.Errorf("%s: %s, want %s", f.ID, f.Geometry.Type, want.geometry)
		}
		ps := polygons(t, f.Geometry.Type, f.Geometry.Coordinates)
		if len(ps) != want.parts {
			t.Errorf("%s: %d parts, want %d", f.ID, len(ps), want.parts)
		}
		for _, p := range ps {
			for r, ring := range p {
				if len(ring) < 4 || ring[0] != ring[len(ring)-1] {
					t.Errorf("%s: ring %d not closed or too short: %v", f.ID, r, ring)
				}
				if a := geojsonfile.SignedArea(ring); (r == 0) != (a > 0) {
					t.Errorf("%s: ring %d has signed area %g: outer rings turn counter-clockwise, holes clockwise", f.ID, r, a)
				}
			}
		}
	}
	p := c.Features[0].Properties
	if p["rank"] != 3.0 || p["value"] != nil || c.Features[1].Properties["value"] != 1234567.5 || c.Features[1].Properties["rank"] != nil {
		t.Errorf("properties %v, %v", p, c.Features[1].Properties)
	}
}

func TestWriteRefuses(t *testing.T) {
	for name, c := range map[string]func(*geojsonfile.Collection){
		"no id column":       func(c *geojsonfile.Collection) { c.ID = "rank" },
		"a column too short": func(c *geojsonfile.Collection) { c.Columns[2].Ints = c.Columns[2].Ints[1:] },
	} {
		s := sample()
		c(&s)
		if err := geojsonfile.Write(&bytes.Buffer{}, s); err == nil || !strings.HasPrefix(err.Error(), "geojson: ") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
