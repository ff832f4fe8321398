// Package testenv finds what tests read from outside the repository: the shared inputs
// (../shared beside the checkout), the ONNX Runtime library, the model bundle, PostgreSQL, the
// GeoJSON readers from npm and GDAL.
package testenv

import (
	"cmp"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Shared returns the path of rel inside the shared input directory, ../shared next to the module
// root.
func Shared(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(root(t), "..", "shared", rel)
	require(t, p, p, "shared input")
	return p
}

// ONNXRuntime returns the path of ONNX Runtime's shared library: $ONNXRUNTIME_LIB when set, else
// build/onnxruntime/libonnxruntime.so.1 under the module root, which `make runtime` writes.
func ONNXRuntime(t testing.TB) string {
	t.Helper()
	p := os.Getenv("ONNXRUNTIME_LIB")
	if p == "" {
		p = filepath.Join(root(t), "build", "onnxruntime", "libonnxruntime.so.1")
	}
	require(t, p, p, "ONNX Runtime library (make runtime)")
	return p
}

// Models returns the model bundle directory: $HENSACHI_MODELS when set, else models/ under the
// module root, which `make models` fills.
func Models(t testing.TB) string {
	t.Helper()
	p := os.Getenv("HENSACHI_MODELS")
	if p == "" {
		p = filepath.Join(root(t), "models")
	}
	require(t, filepath.Join(p, "attractiveness.json"), p, "model bundle (make models)")
	return p
}

// NoFacePhotos returns the directory of the photos without people of face/testdata/noface.txt:
// $NOFACE_DIR when set, else build/noface under the module root, which scripts/fetch-noface.sh
// fills.
func NoFacePhotos(t testing.TB) string {
	t.Helper()
	p := os.Getenv("NOFACE_DIR")
	if p == "" {
		p = filepath.Join(root(t), "build", "noface")
	}
	require(t, filepath.Join(p, "chelsea.png"), p, "photos without people (scripts/fetch-noface.sh)")
	return p
}

// GeoJSONTools returns the directory of the GeoJSON export's second readers (check-geojson,
// boolean-clockwise, Leaflet) that `make geojson-tools` installs from npm: $GEOJSON_TOOLS when set,
// else build/geojson under the module root; its node_modules are there. They are of the slow tier,
// run under node or in Chromium; without them or node the test is skipped, or fails under CI=true.
func GeoJSONTools(t testing.TB) string {
	t.Helper()
	Slow(t, "the GeoJSON readers from npm, under node or in Chromium")
	p := os.Getenv("GEOJSON_TOOLS")
	if p == "" {
		p = filepath.Join(root(t), "build", "geojson")
	}
	require(t, filepath.Join(p, "installed"), p, "GeoJSON readers (make geojson-tools)")
	if _, err := exec.LookPath("node"); err != nil {
		absent(t, "node (apt-get install nodejs)", err.Error(), err)
	}
	return p
}

// GDAL returns the path of GDAL's ogr2ogr, with ogrinfo beside it: Debian's gdal-bin, which .ci/run
// installs, the GIS user's own converter and a reader that shares no code with package
// geojsonfile. It is of the slow tier; without it the test is skipped, or fails under CI=true.
func GDAL(t testing.TB) string {
	t.Helper()
	Slow(t, "GDAL's ogr2ogr and ogrinfo")
	p, err := exec.LookPath("ogr2ogr")
	if err != nil {
		absent(t, "GDAL (apt-get install gdal-bin)", err.Error(), err)
	}
	return p
}

// PostgresURL returns the URL of a PostgreSQL database that tests may use as they like:
// $HENSACHI_TEST_DATABASE_URL, which .ci/run and scripts/test-postgres.sh point at a throwaway
// cluster.
func PostgresURL(t testing.TB) string {
	t.Helper()
	Slow(t, "a PostgreSQL database")
	u := os.Getenv("HENSACHI_TEST_DATABASE_URL")
	if u == "" {
		err := errors.New("HENSACHI_TEST_DATABASE_URL is not set")
		absent(t, "PostgreSQL database (scripts/test-postgres.sh sets HENSACHI_TEST_DATABASE_URL)", err.Error(), err)
	}
	return u
}

// PostgresBin returns the directory of PostgreSQL's server programs (initdb, pg_ctl), for tests
// that start, stop and restart a server of their own: $PG_BIN when set, else the newest
// /usr/lib/postgresql/*/bin, where Debian's postgresql package puts them.
func PostgresBin(t testing.TB) string {
	t.Helper()
	Slow(t, "PostgreSQL clusters of its own")
	dir := os.Getenv("PG_BIN")
	if dir == "" {
		dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
		slices.SortFunc(dirs, func(a, b string) int { return cmp.Or(len(a)-len(b), strings.Compare(a, b)) }) // 9 < 15 < 16
		if len(dirs) > 0 {
			dir = dirs[len(dirs)-1]
		}
	}
	require(t, filepath.Join(dir, "pg_ctl"), dir, "PostgreSQL server programs (apt-get install postgresql)")
	return dir
}

// require skips the test when probe is missing, except under CI=true, where it fails: CI always
// provides these inputs, so a missing one there is a broken setup, not a reason to pass.
func require(t testing.TB, probe, path, what string) {
	t.Helper()
	if _, err := os.Stat(probe); err != nil {
		absent(t, what, path+": "+err.Error(), err)
	}
}

// absent skips the test, or fails it under CI=true; detail is for the failure, err for the skip.
func absent(t testing.TB, what, detail string, err error) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s missing under CI: %s", what, detail)
	}
	t.Skipf("%s missing (%v); CI=true makes this a failure", what, err)
}

// Root returns the module root, the directory of go.mod above the test's directory.
func Root(t testing.TB) string {
	t.Helper()
	return root(t)
}

func root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// Soak returns how many times longer the reliability tests run: $HENSACHI_SOAK, a positive
// integer that `make soak` sets, else 1 (the short run of `make test-all`).
func Soak() int {
	n, err := strconv.Atoi(os.Getenv("HENSACHI_SOAK"))
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// SlowTierEnv is the variable `make test-all` sets to run the slow tier.
const SlowTierEnv = "HENSACHI_TEST_ALL"

// Slow marks a test of the slow tier: browsers and Lighthouse, PostgreSQL clusters, floods and
// soaks, full model evaluations, the reproduction of trained models, fuzz seeds. `make test` skips
// it, so that the README's command answers in minutes; `make test-all` (and CI, through .ci/run)
// sets HENSACHI_TEST_ALL=1 and runs it. what says what the test needs the time for.
func Slow(t testing.TB, what string) {
	t.Helper()
	if os.Getenv(SlowTierEnv) == "" {
		t.Skipf("slow tier (%s): make test-all runs it (%s=1)", what, SlowTierEnv)
	}
}

// Evaluation marks a test that measures a model on thousands of images, a test of the slow tier:
// such a test checks figures, not concurrency, and takes many times longer under the race
// detector, so it is skipped there too. `make test-all` runs these tests in a pass without it.
func Evaluation(t testing.TB) {
	t.Helper()
	if raceDetector {
		t.Skip("a model evaluation: run without -race (make test-all does, in a pass of its own)")
	}
	Slow(t, "a model evaluation over thousands of images")
}
