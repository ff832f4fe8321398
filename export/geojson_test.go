package export_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/peterstace/simplefeatures/geom"

	"github.com/hensachi/hensachi/export"
	"github.com/hensachi/hensachi/internal/testrig/realdata"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
	"github.com/hensachi/hensachi/internal/testrig/towntest"
)

// geoJSON is a FeatureCollection as a reader sees it, numbers kept as written.
type geoJSON struct {
	Type        string
	Attribution []string
	Features    []struct {
		Type     string
		ID       *string
		Geometry *struct {
			Type        string
			Coordinates json.RawMessage
		}
		Properties map[string]any
	}
}

func readGeoJSON(t *testing.T, body []byte) geoJSON {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	var g geoJSON
	if err := d.Decode(&g); err != nil {
		t.Fatal(err)
	}
	return g
}

// rings are a MultiPolygon's rings, by polygon: every geometry is one, as a GIS layer has one type.
func rings(t *testing.T, typ string, coords json.RawMessage) [][][][2]float64 {
	t.Helper()
	if typ != "MultiPolygon" {
		t.Fatalf("geometry %s, want MultiPolygon", typ)
	}
	var ps [][][][2]float64
	if err := json.Unmarshal(coords, &ps); err != nil {
		t.Fatal(err)
	}
	return ps
}

// shoelace is twice a ring's signed area: positive when it turns counter-clockwise (east, north).
func shoelace(r [][2]float64) float64 {
	var a float64
	for k := 1; k < len(r); k++ {
		a += r[k-1][0]*r[k][1] - r[k][0]*r[k-1][1]
	}
	return a
}

// TestExportGeoJSON: the national GeoJSON has every municipality once, in code order, its id the
// code; every geometry a valid MultiPolygon (simplefeatures, as GIS checks one); every ring
// closed, outer rings counter-clockwise and holes clockwise, inside Japan; its properties are the
// CSV's cells, the same text for a number and null for an empty cell; it carries both credits; it
// is built once and gzipped; Tokyo's file has Tokyo's 62.
func TestExportGeoJSON(t *testing.T) {
	c := realdata.Catalog(t, towntest.PublicURL)
	if err := export.GeoJSON.Available(c); err != nil {
		t.Fatal(err)
	}
	f, err := export.Of(c, export.GeoJSON, "")
	if err != nil || f.Format.ContentType != "application/geo+json" || !strings.HasSuffix(f.Filename, ".geojson") {
		t.Fatalf("export %v %+v", err, f)
	}
	g := readGeoJSON(t, f.Body)
	csv, _ := export.Of(c, export.CSV, "")
	records := readCSV(t, csv.Body)
	if g.Type != "FeatureCollection" || len(g.Features) != c.Len() || len(records)-1 != c.Len() {
		t.Fatalf("%s of %d features for %d municipalities", g.Type, len(g.Features), c.Len())
	}
	if len(g.Attribution) != 2 || g.Attribution[0] != "出典：国土交通省国土数値情報（行政区域データ）を加工して作成" ||
		!strings.Contains(g.Attribution[1], c.Meta.Source.Name) {
		t.Errorf("attribution %q", g.Attribution)
	}
	header := records[0]
	polygons, holes := 0, 0
	for r, feat := range g.Features {
		code := c.Row(r).Code
		if feat.Type != "Feature" || feat.ID == nil || *feat.ID != code {
			t.Fatalf("feature %d: %s id %v, want %s in code order", r, feat.Type, feat.ID, code)
		}
		if len(feat.Properties) != len(header) {
			t.Errorf("%s: %d properties, %d columns", code, len(feat.Properties), len(header))
		}
		for k, name := range header {
			v, ok := feat.Properties[name]
			got := ""
			switch v := v.(type) {
			case nil:
			case string:
				got = v
			case json.Number:
				got = v.String()
			default:
				t.Fatalf("%s %s: %T", code, name, v)
			}
			if !ok || got != records[r+1][k] {
				t.Errorf("%s %s: GeoJSON %v, CSV %q", code, name, v, records[r+1][k])
			}
		}
		if feat.Geometry == nil {
			t.Errorf("%s has no geometry", code)
			continue
		}
		geometry, _ := json.Marshal(feat.Geometry)
		if _, err := geom.UnmarshalGeoJSON(geometry); err != nil { // it checks OGC validity, as ST_IsValid does
			t.Errorf("%s: %v", code, err)
		}
		for _, p := range rings(t, feat.Geometry.Type, feat.Geometry.Coordinates) {
			polygons++
			for k, ring := range p {
				if len(ring) < 4 || ring[0] != ring[len(ring)-1] {
					t.Errorf("%s: ring %d open or shorter than four positions", code, k)
				}
				if a := shoelace(ring); (k == 0) != (a > 0) {
					t.Errorf("%s: ring %d turns the wrong way (twice its signed area %g)", code, k, a)
				}
				if k > 0 {
					holes++
				}
				for _, p := range ring {
					if p[0] < 122 || p[0] > 154 || p[1] < 20 || p[1] > 46 {
						t.Fatalf("%s: %v is outside Japan", code, p)
					}
				}
			}
		}
	}
	if polygons <= c.Len() || holes == 0 {
		t.Errorf("%d polygons, %d holes: islands and enclaves are missing", polygons, holes)
	}
	if !bytes.Equal(gunzip(t, f.Gzipped()), f.Body) {
		t.Error("the gzipped file is not the file")
	}
	if again, _ := export.Of(c, export.GeoJSON, ""); again != f {
		t.Error("the export is built twice")
	}
	tokyo, _ := export.Of(c, export.GeoJSON, "13")
	if g := readGeoJSON(t, tokyo.Body); len(g.Features) != 62 || *g.Features[0].ID != "13101" {
		t.Errorf("Tokyo: %d features", len(g.Features))
	}
}

// TestGeoJSONSecondReader reads the national GeoJSON export under node with readers that share no
// code with geojsonfile (make geojson-tools): check-geojson finds no issue with RFC 7946's
// structure, boolean-clockwise finds every outer ring counter-clockwise and every hole clockwise,
// every code is there once, and the properties are the CSV's cells.
func TestGeoJSONSecondReader(t *testing.T) {
	tools := testenv.GeoJSONTools(t)
	c := realdata.Catalog(t, towntest.PublicURL)
	f, _ := export.Of(c, export.GeoJSON, "")
	file := filepath.Join(t.TempDir(), "municipalities.geojson")
	if err := os.WriteFile(file, f.Body, 0o644); err != nil {
		t.Fatal(err)
	}
	out := runNode(t, tools, "testdata/check-geojson.mjs", file)
	var read struct {
		Issues, Broken []string
		Rings          int
		Attribution    []string
		Rows           [][]*string
	}
	if err := json.Unmarshal(out, &read); err != nil {
		t.Fatalf("%v: %.300s", err, out)
	}
	if len(read.Issues) > 0 || len(read.Broken) > 0 || read.Rings < c.Len() {
		t.Errorf("%d rings; issues %.5q; broken %.5q", read.Rings, read.Issues, read.Broken)
	}
	csv, _ := export.Of(c, export.CSV, "")
	records := readCSV(t, csv.Body)
	if len(read.Rows) != len(records) || !slices.Equal(deref(read.Rows[0]), records[0]) {
		t.Fatalf("%d rows, the CSV %d; names %q", len(read.Rows), len(records), deref(read.Rows[0]))
	}
	for r, row := range read.Rows[1:] {
		if got := deref(row); !slices.Equal(got, records[r+1]) {
			t.Errorf("row %d: node read %q, the CSV has %q", r, got, records[r+1])
		}
	}
}

// deref is a row of the node reader with null as the CSV's empty cell.
func deref(row []*string) []string {
	out := make([]string, len(row))
	for k, v := range row {
		if v != nil {
			out[k] = *v
		}
	}
	return out
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	z, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
