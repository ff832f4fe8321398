package serve_test

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/app"
	"github.com/hensachi/hensachi/dataset"
	"github.com/hensachi/hensachi/internal/testrig/realdata"
)

// TestExportGeoJSONCall: format=geojson is a FeatureCollection of the prefecture's municipalities
// with the GeoJSON headers, whose properties are the cells of the same call's CSV; gzipped when
// accepted under its own tag; 304 for the version and encoding the client holds; one unit a call, none for a 304.
func TestExportGeoJSONCall(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	key := ts.freeKey
	catalog, err := ts.Catalogs.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	const path = "/town/v1/export?format=geojson&pref=13"
	plain := ts.do(t, "GET", path, "X-API-Key", key, "Accept-Encoding", "identity")
	if plain.status != 200 || plain.header.Get("Content-Type") != "application/geo+json" || plain.header.Get("Content-Encoding") != "" ||
		plain.header.Get("Content-Disposition") != `attachment; filename="hensachi-municipalities-13-`+catalog.Meta.DataUpdated+`.geojson"` ||
		!strings.Contains(plain.header.Get("Vary"), "Accept-Encoding") {
		t.Fatalf("geojson: %d %v %.80q", plain.status, plain.header, plain.body)
	}
	d := json.NewDecoder(bytes.NewReader(plain.body))
	d.UseNumber()
	var g struct {
		Type     string
		Features []struct {
			ID         string
			Geometry   *struct{ Type string }
			Properties map[string]any
		}
	}
	if err := d.Decode(&g); err != nil || g.Type != "FeatureCollection" || len(g.Features) != 62 {
		t.Fatalf("%v: %s of %d features, want Tokyo's 62", err, g.Type, len(g.Features))
	}
	table := ts.do(t, "GET", "/town/v1/export?format=csv&pref=13", "X-API-Key", key, "Accept-Encoding", "identity")
	records, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(table.body, []byte("\uFEFF")))).ReadAll()
	if err != nil || len(records) != 63 {
		t.Fatalf("csv: %v, %d records", err, len(records))
	}
	for r, f := range g.Features {
		if f.ID != records[r+1][0] || f.Geometry == nil || len(f.Properties) != len(records[0]) {
			t.Fatalf("feature %d: id %s, geometry %v, %d properties; the CSV's row is %s of %d columns", r, f.ID, f.Geometry, len(f.Properties), records[r+1][0], len(records[0]))
		}
		for k, name := range records[0] {
			got := ""
			switch v := f.Properties[name].(type) {
			case string:
				got = v
			case json.Number:
				got = v.String()
			}
			if got != records[r+1][k] {
				t.Errorf("%s %s: GeoJSON %v, CSV %q", f.ID, name, f.Properties[name], records[r+1][k])
			}
		}
	}

	zipped := ts.do(t, "GET", path, "X-API-Key", key, "Accept-Encoding", "gzip")
	if zipped.header.Get("Content-Encoding") != "gzip" || zipped.header.Get("ETag") != strings.TrimSuffix(plain.header.Get("ETag"), `"`)+`.gz"` || !bytes.Equal(gunzip(t, zipped.body), plain.body) {
		t.Errorf("gzipped geojson: %v", zipped.header)
	}
	for _, r := range []response{plain, zipped} {
		etag, accept := r.header.Get("ETag"), r.header.Get("Content-Encoding")
		if r := ts.do(t, "GET", path, "X-API-Key", key, "Accept-Encoding", cmp.Or(accept, "identity"), "If-None-Match", etag); r.status != http.StatusNotModified || len(r.body) != 0 {
			t.Errorf("If-None-Match %s: %d", etag, r.status)
		}
	}
	if used := ts.Quota.Used(ts.freeID, hensachi.ServiceTown); used != 3 {
		t.Errorf("used %d after two GeoJSON exports, a CSV and two 304s, want 3", used)
	}
}

// TestExportGeoJSONWithoutBoundaries: on a dataset built without boundaries, format=geojson is a
// 503 unavailable saying why, without Retry-After (waiting changes nothing) and counting nothing,
// a problem of the documented schema; the other formats are served as ever.
func TestExportGeoJSONWithoutBoundaries(t *testing.T) {
	t.Parallel()
	built := realdata.Built(t)
	path := filepath.Join(t.TempDir(), "no-boundaries.arrow")
	if _, err := dataset.Write(path, built.Municipalities, built.Meta, dataset.WithIndicators(built.Indicators, built.IndicatorValues)); err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, func(cfg *app.Config) { cfg.DatasetPath = path })
	r := ts.get(t, "/town/v1/export?format=geojson&pref=13")
	p := decode[problem](t, r.body)
	if r.status != 503 || r.header.Get("Content-Type") != "application/problem+json" || r.header.Get("Retry-After") != "" ||
		p.Code != hensachi.EUnavailable || !strings.Contains(p.Detail, "built without boundary files") {
		t.Fatalf("%d %v %+v", r.status, r.header, p)
	}
	if err := validateSchema(t, "#/components/schemas/Problem", r.body); err != nil {
		t.Error(err)
	}
	if csv := ts.get(t, "/town/v1/export?format=csv&pref=13"); csv.status != 200 {
		t.Errorf("csv without boundaries: %d", csv.status)
	}
	if used := ts.Quota.Used(ts.freeID, hensachi.ServiceTown); used != 1 {
		t.Errorf("used %d after a refused GeoJSON and a CSV, want 1", used)
	}
}
