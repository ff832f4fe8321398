package site

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hensachi/hensachi/internal/testrig/browsertest"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

// TestGeoJSONMap draws the national GeoJSON download with Leaflet in Chromium, on a page of the
// kind a user would write (testdata/geojson-map.html), Leaflet served from the disk and no tiles:
// every municipality is one drawn shape, the map's bounds are Japan's, and the map carries both
// credits from the file's attribution. Set SCREENSHOT_DIR to keep the map.
func TestGeoJSONMap(t *testing.T) {
	tools := testenv.GeoJSONTools(t)
	s := newRealSite(t, "")
	mux := http.NewServeMux()
	mux.Handle("/leaflet/", http.StripPrefix("/leaflet/", http.FileServer(http.Dir(filepath.Join(tools, "node_modules", "leaflet", "dist")))))
	mux.HandleFunc("/map.html", func(rw http.ResponseWriter, r *http.Request) { http.ServeFile(rw, r, "testdata/geojson-map.html") })
	mux.Handle("/town/", s.handler)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	c := browsertest.New(t, 90*time.Second)
	c.Do("the map", chromedp.Navigate(srv.URL+"/map.html"), chromedp.WaitVisible(chromedp.ID("status")), browsertest.Shot("geojson-map"))
	var drawn struct {
		Error       string
		Features    int
		IDs         []string
		Paths       int
		Bounds      [4]float64 // west, south, east, north
		Attribution string
	}
	text, err := chromedp.Run(c.Ctx, chromedp.Evaluate[string](`document.getElementById("drawn").textContent`))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(text), &drawn); err != nil || drawn.Error != "" {
		t.Fatalf("what the page drew: %v %s", err, drawn.Error)
	}
	catalog, err := s.catalogs.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for r := range catalog.Len() {
		codes = append(codes, catalog.Row(r).Code)
	}
	if drawn.Features != 1741 || drawn.Paths != 1741 || !slices.Equal(drawn.IDs, codes) {
		t.Errorf("%d features, %d shapes drawn, ids in code order %v; want the 1,741 municipalities", drawn.Features, drawn.Paths, slices.Equal(drawn.IDs, codes))
	}
	// from Yonaguni (122.9° E) and Okinotorishima (20.4° N) to Minamitorishima (153.9° E) and Wakkanai (45.5° N)
	if w, s, e, n := drawn.Bounds[0], drawn.Bounds[1], drawn.Bounds[2], drawn.Bounds[3]; w < 122 || w > 124 || s < 20 || s > 25 || e < 153 || e > 155 || n < 45 || n > 46 {
		t.Errorf("bounds %v are not Japan's", drawn.Bounds)
	}
	if !strings.Contains(drawn.Attribution, "国土交通省国土数値情報（行政区域データ）") || !strings.Contains(drawn.Attribution, catalog.Meta.Source.Name) {
		t.Errorf("the map's credits: %q", drawn.Attribution)
	}
}
