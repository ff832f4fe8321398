package ort

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

func TestInit(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "libonnxruntime.so.1")
	err := Init(missing)
	if err == nil || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "make runtime") {
		t.Fatalf("Init(missing) = %v, want an error naming the file and `make runtime`", err)
	}

	lib := testenv.ONNXRuntime(t)
	for range 2 {
		if err := Init(lib); err != nil {
			t.Fatal(err)
		}
	}
	if err := Init(lib + ".other"); err == nil || !strings.Contains(err.Error(), "already initialised") {
		t.Fatalf("Init(other path) = %v, want an error", err)
	}
}
