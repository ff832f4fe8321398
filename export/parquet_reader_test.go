package export_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hensachi/hensachi/export"
	"github.com/hensachi/hensachi/internal/testrig/realdata"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
	"github.com/hensachi/hensachi/internal/testrig/towntest"
)

// hyparquetVersion is the JavaScript Parquet reader the second-reader test installs from npm.
const hyparquetVersion = "1.31.5"

// TestParquetSecondReader reads the national Parquet export with hyparquet, a reader that shares
// no code with arrow-go, and finds every cell equal to the CSV export's (null for an empty cell).
func TestParquetSecondReader(t *testing.T) {
	testenv.Slow(t, "installs hyparquet from npm and runs node")
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s missing under CI", tool)
			}
			t.Skipf("%s missing: %v", tool, err)
		}
	}
	dir := filepath.Join(testenv.Root(t), "build", "hyparquet-"+hyparquetVersion)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "hyparquet")); err != nil {
		if out, err := exec.Command("npm", "install", "--prefix", dir, "--no-audit", "--no-fund", "hyparquet@"+hyparquetVersion).CombinedOutput(); err != nil {
			t.Fatalf("npm install hyparquet: %v\n%s", err, out)
		}
	}
	c := realdata.Catalog(t, towntest.PublicURL)
	pq, _ := export.Of(c, export.Parquet, "")
	csv, _ := export.Of(c, export.CSV, "")
	file := filepath.Join(t.TempDir(), "export.parquet")
	if err := os.WriteFile(file, pq.Body, 0o644); err != nil {
		t.Fatal(err)
	}
	out := runNode(t, dir, "testdata/read-parquet.mjs", file)
	var rows [][]*string
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("%v: %.300s", err, out)
	}
	records := readCSV(t, csv.Body)
	if len(rows) != len(records) || len(rows[0]) != len(records[0]) {
		t.Fatalf("hyparquet read %d rows of %d columns, the CSV has %d of %d", len(rows), len(rows[0]), len(records), len(records[0]))
	}
	nulls := 0
	for r, row := range rows {
		for k, v := range row {
			got := ""
			if v != nil {
				got = *v
			} else {
				nulls++
			}
			if want := records[r][k]; got != want || r == 0 && v == nil {
				t.Errorf("row %d column %s: hyparquet %q, CSV %q", r, records[0][k], got, want)
			}
		}
	}
	if nulls == 0 {
		t.Error("no nulls read: 双葉町's missing values should be null")
	}
}

// runNode runs a script of testdata under node with the modules installed in dir and returns what
// it prints. node resolves the imports from the script's directory upwards, so the script runs as a
// copy beside the installed modules.
func runNode(t *testing.T, dir, script string, args ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	runner := filepath.Join(dir, filepath.Base(script))
	if err := os.WriteFile(runner, b, 0o644); err != nil {
		t.Fatalf("copy the script: %v", err)
	}
	out, err := exec.Command("node", append([]string{runner}, args...)...).Output()
	if err != nil {
		t.Fatalf("node %s: %v", script, err)
	}
	return out
}
