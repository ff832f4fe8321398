package site

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/towntest"
	"github.com/hensachi/hensachi/town"
)

// TestCSVDownloadIfNoneMatch: the download reads If-None-Match as the API does
// (negotiate.NoneMatch): a list naming its tag, weak or not, is a 304 carrying the tag and the
// caching fields; a malformed field matches nothing, so the file is sent.
func TestCSVDownloadIfNoneMatch(t *testing.T) {
	router := siteRouter(t)
	for _, tc := range []struct {
		path, accept, ifNoneMatch string
		status                    int
	}{
		{"/town/municipalities.csv", "", `"v1"`, 304},
		{"/town/municipalities.csv", "", `W/"v1"`, 304},
		{"/town/municipalities.csv", "", `"v0", "v1"`, 304},
		{"/town/municipalities.csv", "gzip", `"v1.gz"`, 304},
		{"/town/municipalities.csv", "", `"v1"garbage`, 200},
		{"/town/municipalities.csv", "", `"v0" "v1"`, 200},
		{"/town/municipalities.csv", "", `"v1.gz"`, 200}, // the other representation's tag
		{"/town/municipalities.csv?pref=13", "", `"v1"garbage`, 200},
		{"/town/municipalities.csv?codes=13101,01100", "", `"v1"`, 304},
		{"/town/municipalities.csv?codes=13101,01100", "", `"v1"garbage`, 200},
	} {
		r := httptest.NewRequest("GET", tc.path, nil)
		r.Header.Set("Accept-Encoding", tc.accept)
		r.Header.Set("If-None-Match", tc.ifNoneMatch)
		w := httptest.NewRecorder()
		router.ServeHTTP(w, r)
		h := w.Result().Header
		if w.Code != tc.status || h.Get("ETag") == "" || h.Get("Cache-Control") != "public, max-age=300" || h.Get("Vary") == "" {
			t.Errorf("%s If-None-Match %s: %d, headers %v", tc.path, tc.ifNoneMatch, w.Code, h)
			continue
		}
		if tc.status == 304 && (w.Body.Len() != 0 || h.Get("Content-Type") != "" || h.Get("Content-Encoding") != "") {
			t.Errorf("%s If-None-Match %s: a 304 with %d bytes, headers %v", tc.path, tc.ifNoneMatch, w.Body.Len(), h)
		}
		if tc.status == 200 && (w.Body.Len() == 0 || h.Get("Content-Type") != "text/csv; charset=utf-8") {
			t.Errorf("%s If-None-Match %s: %d bytes, headers %v", tc.path, tc.ifNoneMatch, w.Body.Len(), h)
		}
	}
}

// TestComparedCSVGzipped: the comparison's download is gzipped for a client that accepts it, like
// the others, under the gzipped tag, and is the same file unzipped; plain for one that does not.
func TestComparedCSVGzipped(t *testing.T) {
	router := siteRouter(t)
	get := func(accept string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", "/town/municipalities.csv?codes=13101,01100", nil)
		r.Header.Set("Accept-Encoding", accept)
		w := httptest.NewRecorder()
		router.ServeHTTP(w, r)
		return w
	}
	plain, zipped := get("gzip;q=0"), get("br, gzip")
	if plain.Code != 200 || plain.Header().Get("Content-Encoding") != "" || plain.Header().Get("ETag") != `"v1"` {
		t.Fatalf("plain: %d %v", plain.Code, plain.Header())
	}
	if zipped.Code != 200 || zipped.Header().Get("Content-Encoding") != "gzip" || zipped.Header().Get("ETag") != `"v1.gz"` ||
		zipped.Header().Get("Vary") != "Accept-Encoding" {
		t.Fatalf("gzipped: %d %v", zipped.Code, zipped.Header())
	}
	z, err := gzip.NewReader(zipped.Body)
	if err != nil {
		t.Fatal(err)
	}
	if unzipped, err := io.ReadAll(z); err != nil || !bytes.Equal(unzipped, plain.Body.Bytes()) || !bytes.HasPrefix(unzipped, []byte("\uFEFFcode,")) {
		t.Errorf("unzipped: %v, %.40q", err, unzipped)
	}
}

// TestGeoJSONDownload: the GeoJSON download is the export's file with its content type and name,
// its validator and gzip as the CSV's; a comparison's has the compared municipalities in their
// order; the landing page links to it.
func TestGeoJSONDownload(t *testing.T) {
	router := siteRouter(t)
	get := func(path, accept string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", path, nil)
		r.Header.Set("Accept-Encoding", accept)
		w := httptest.NewRecorder()
		router.ServeHTTP(w, r)
		return w
	}
	plain, zipped := get("/town/municipalities.geojson", ""), get("/town/municipalities.geojson", "gzip")
	h := plain.Header()
	if plain.Code != 200 || h.Get("Content-Type") != "application/geo+json" || h.Get("ETag") != `"v1"` ||
		h.Get("Content-Disposition") != `attachment; filename="hensachi-municipalities-2026-01-01.geojson"` {
		t.Fatalf("GeoJSON: %d %v", plain.Code, h)
	}
	var fc struct {
		Type     string
		Features []struct{ ID string }
	}
	if err := json.Unmarshal(plain.Body.Bytes(), &fc); err != nil || fc.Type != "FeatureCollection" || len(fc.Features) != 5 {
		t.Fatalf("%v: %s of %d features", err, fc.Type, len(fc.Features))
	}
	if zipped.Header().Get("Content-Encoding") != "gzip" || zipped.Header().Get("ETag") != `"v1.gz"` {
		t.Errorf("gzipped: %v", zipped.Header())
	} else if z, err := gzip.NewReader(zipped.Body); err != nil {
		t.Error(err)
	} else if unzipped, err := io.ReadAll(z); err != nil || !bytes.Equal(unzipped, plain.Body.Bytes()) {
		t.Errorf("unzipped: %v, %d bytes of %d", err, len(unzipped), plain.Body.Len())
	}
	if r := get("/town/municipalities.geojson?pref=13", ""); r.Code != 200 || bytes.Count(r.Body.Bytes(), []byte(`{"type":"Feature"`)) != 2 {
		t.Errorf("Tokyo's GeoJSON: %d %.200s", r.Code, r.Body.Bytes())
	}
	compared := get("/town/municipalities.geojson?codes=13101,01100", "")
	if err := json.Unmarshal(compared.Body.Bytes(), &fc); err != nil || len(fc.Features) != 2 || fc.Features[0].ID != "13101" || fc.Features[1].ID != "01100" {
		t.Errorf("compared GeoJSON: %v %+v", err, fc.Features)
	}
	if _, home := getPage(t, router, "/"); !strings.Contains(home, `href="/town/municipalities.geojson"`) {
		t.Error("the landing page does not link to the GeoJSON")
	}
}

// TestGeoJSONDownloadWithoutBoundaries: a dataset built without boundaries has no GeoJSON: the
// download is the 503 unavailable page with the reason, and the landing page links to none.
func TestGeoJSONDownloadWithoutBoundaries(t *testing.T) {
	c := towntest.Catalog()
	var towns []hensachi.Municipality
	for r := range c.Len() {
		towns = append(towns, *c.Row(r))
	}
	meta := c.Meta
	meta.Boundaries = &hensachi.BoundaryMeta{Unavailable: "no municipality boundaries: the dataset was built without boundary files"}
	s, err := New(Deps{Catalogs: staticCatalogs{town.New(towns, meta, "v1", towntest.PublicURL)}, PublicURL: towntest.PublicURL})
	if err != nil {
		t.Fatal(err)
	}
	router := httprouter.New()
	s.Routes(router.Handle)
	status, body := getPage(t, router, "/town/municipalities.geojson")
	if status != 503 || !strings.Contains(body, "利用できません") || !strings.Contains(body, "built without boundary files") {
		t.Errorf("GeoJSON without boundaries: %d %.300s", status, body)
	}
	if _, home := getPage(t, router, "/"); !strings.Contains(home, "/town/municipalities.csv") || strings.Contains(home, "municipalities.geojson") {
		t.Error("the landing page offers a GeoJSON it cannot serve, or no CSV")
	}
}
