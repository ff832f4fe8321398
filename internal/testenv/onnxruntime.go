package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// ONNXRuntime returns the path of ONNX Runtime's shared library: $ONNXRUNTIME_LIB when set, else
// build/onnxruntime/libonnxruntime.so.1 under the module root, which `make runtime` writes. When it
// is missing the test is skipped, except under CI=true, where it fails: CI runs `make runtime` first.
func ONNXRuntime(t testing.TB) string {
	t.Helper()
	p := os.Getenv("ONNXRUNTIME_LIB")
	if p == "" {
		root, err := moduleRoot()
		if err != nil {
			t.Fatalf("find module root: %v", err)
		}
		p = filepath.Join(root, "build", "onnxruntime", "libonnxruntime.so.1")
	}
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("ONNX Runtime library missing under CI (make runtime): %v", err)
		}
		t.Skipf("ONNX Runtime library missing (%v): run `make runtime`; CI=true makes this a failure", err)
	}
	return p
}
