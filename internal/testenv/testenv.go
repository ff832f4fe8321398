// Package testenv finds what tests read from outside the repository: the shared inputs
// (../shared beside the checkout), the ONNX Runtime library and the model bundle.
package testenv

import (
	"os"
	"path/filepath"
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

// require skips the test when probe is missing, except under CI=true, where it fails: CI always
// provides these inputs, so a missing one there is a broken setup, not a reason to pass.
func require(t testing.TB, probe, path, what string) {
	t.Helper()
	if _, err := os.Stat(probe); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s missing under CI: %s: %v", what, path, err)
		}
		t.Skipf("%s missing (%v); CI=true makes this a failure", what, err)
	}
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
