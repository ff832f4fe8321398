package export_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hensachi/hensachi/export"
	"github.com/hensachi/hensachi/internal/testrig/realdata"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
	"github.com/hensachi/hensachi/internal/testrig/towntest"
)

// TestGeoJSONGDAL converts the national GeoJSON export as a GIS user first does, with GDAL's
// ogr2ogr into a GeoPackage (no option: no -nlt to promote Polygons, no -makevalid), and reads the
// GeoPackage back with ogrinfo: one layer of MultiPolygons, a feature per municipality, every
// geometry valid by GEOS (ST_IsValid in the SQLite dialect), and the counts and ranks integer
// fields.
func TestGeoJSONGDAL(t *testing.T) {
	ogr2ogr := testenv.GDAL(t)
	ogrinfo := filepath.Join(filepath.Dir(ogr2ogr), "ogrinfo")
	c := realdata.Catalog(t, towntest.PublicURL)
	f, _ := export.Of(c, export.GeoJSON, "")
	dir := t.TempDir()
	in, gpkg := filepath.Join(dir, "municipalities.geojson"), filepath.Join(dir, "municipalities.gpkg")
	if err := os.WriteFile(in, f.Body, 0o644); err != nil {
		t.Fatal(err)
	}
	gdal := func(name string, args ...string) string {
		t.Helper()
		out, err := exec.Command(name, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	gdal(ogr2ogr, "-f", "GPKG", "-nln", "municipalities", gpkg, in)

	summary := gdal(ogrinfo, "-ro", "-so", gpkg, "municipalities")
	for _, want := range []string{"Geometry: Multi Polygon", "Feature Count: 1741", "code: String", "young_value: Real",
		"pop: Integer", "nursery: Integer", "library: Integer", "hospital: Integer", "young_rank: Integer"} {
		if !regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(want) + `(64)?( |$)`).MatchString(summary) {
			t.Errorf("ogrinfo finds no %q in the GeoPackage:\n%s", want, summary)
		}
	}
	counted := gdal(ogrinfo, "-ro", "-dialect", "SQLite", "-sql",
		"SELECT count(*) AS features, sum(ST_IsValid(geom)) AS valid, sum(ST_GeometryType(geom) = 'MULTIPOLYGON') AS multipolygons FROM municipalities", gpkg)
	for _, want := range []string{"features", "valid", "multipolygons"} {
		m := regexp.MustCompile(`(?m)^\s*` + want + ` \(Integer[0-9]*\) = (\d+)$`).FindStringSubmatch(counted)
		if m == nil || m[1] != "1741" {
			t.Errorf("%s: %v of 1741\n%s", want, m, counted)
		}
	}
}
