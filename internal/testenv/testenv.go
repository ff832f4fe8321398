// Package testenv finds the shared inputs that tests read (../shared beside the checkout).
package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// Shared returns the path of rel inside the shared input directory, ../shared next to the module
// root. When it is missing the test is skipped, except under CI=true, where it fails: CI always
// has the inputs, so a missing one there is a broken setup, not a reason to pass.
func Shared(t testing.TB, rel string) string {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatalf("find module root: %v", err)
	}
	p := filepath.Join(root, "..", "shared", rel)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("shared input missing under CI: %v", err)
		}
		t.Skipf("shared input missing (%v); CI=true makes this a failure", err)
	}
	return p
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}
