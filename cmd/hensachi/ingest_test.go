package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestIngestOutputs: the report goes beside -out unless -report says otherwise, and the
// directories are made before the build (ingest failed where data/ did not exist).
func TestIngestOutputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "a", "b", "dataset.arrow")
	report, err := ingestOutputs(out, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "a", "b", "ingest-report.txt"); report != want {
		t.Errorf("report %q, want %q beside the dataset", report, want)
	}
	if st, err := os.Stat(filepath.Dir(out)); err != nil || !st.IsDir() {
		t.Errorf("the dataset's directory was not made: %v", err)
	}
	explicit := filepath.Join(dir, "r", "report.txt")
	if report, err := ingestOutputs(out, explicit); err != nil || report != explicit {
		t.Errorf("-report %q: %q, %v", explicit, report, err)
	}
	if _, err := os.Stat(filepath.Dir(explicit)); err != nil {
		t.Errorf("the report's directory was not made: %v", err)
	}
	if report, err := ingestOutputs(out, "-"); err != nil || report != "" {
		t.Errorf("-report -: %q, %v; want standard output only", report, err)
	}
}
