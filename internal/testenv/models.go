package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// Models returns the model bundle directory: $HENSACHI_MODELS when set, else models/ under the
// module root, which `make models` fills. Missing, it skips the test, except under CI=true.
func Models(t testing.TB) string {
	t.Helper()
	p := os.Getenv("HENSACHI_MODELS")
	if p == "" {
		root, err := moduleRoot()
		if err != nil {
			t.Fatalf("find module root: %v", err)
		}
		p = filepath.Join(root, "models")
	}
	if _, err := os.Stat(filepath.Join(p, "attractiveness.json")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("model bundle missing under CI (make models): %v", err)
		}
		t.Skipf("model bundle missing (%v): run `make models`; CI=true makes this a failure", err)
	}
	return p
}
