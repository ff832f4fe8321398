// Package realdata builds the dataset from the real source files (../shared/data/raw) and the
// boundary files (../shared/data/boundaries) for the tests that read it through the server or the
// pages: the build and its encoding run once per test binary, and each test gets its own copy of
// the file. Without the shared inputs a test is skipped, or fails under CI=true (testenv.Shared).
package realdata

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/hensachi/hensachi/compute"
	"github.com/hensachi/hensachi/dataset"
	"github.com/hensachi/hensachi/ingest"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
	"github.com/hensachi/hensachi/town"
)

var (
	buildOnce sync.Once
	built     *ingest.Result
	buildErr  error
)

// Built returns the dataset built from the real sources, with the boundaries and ranked
// (ingest.Build, AddBoundaries, compute.Apply, compute.ApplyIndicators), for
// a test that writes variants of it; the build runs once per test binary, and the result is
// shared: change copies of its values, never the result.
func Built(t testing.TB) *ingest.Result {
	t.Helper()
	raw := testenv.Shared(t, "data/raw")
	boundaries := testenv.Shared(t, "data/boundaries")
	buildOnce.Do(func() {
		quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
		built, buildErr = ingest.Build(raw, quiet)
		if buildErr == nil {
			built.AddBoundaries(boundaries, quiet)
			compute.Apply(built.Municipalities, &built.Meta)
			compute.ApplyIndicators(&built.Indicators, built.IndicatorValues)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return built
}

var (
	encodeOnce sync.Once
	encoded    []byte
	encodeErr  error
)

// Write writes the dataset built from the real sources to dir and returns its path. The build and
// its encoding run once per test binary (encoding the indicators takes seconds under the race
// detector); each call writes the same bytes to a file of its own, which the test may replace.
func Write(t testing.TB, dir string) string {
	t.Helper()
	built := Built(t)
	encodeOnce.Do(func() {
		scratch, err := os.MkdirTemp("", "realdata")
		if err != nil {
			encodeErr = err
			return
		}
		defer os.RemoveAll(scratch)
		path := filepath.Join(scratch, "dataset.arrow")
		if _, encodeErr = dataset.Write(path, built.Municipalities, built.Meta, dataset.WithIndicators(built.Indicators, built.IndicatorValues),
			dataset.WithItemNames(built.ItemNames), dataset.WithBoundaries(built.Boundaries, built.Meta.Boundaries.Unavailable)); encodeErr == nil {
			encoded, encodeErr = os.ReadFile(path)
		}
	})
	if encodeErr != nil {
		t.Fatal(encodeErr)
	}
	path := filepath.Join(dir, "dataset.arrow")
	if err := os.WriteFile(path, encoded, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Catalogs opens a copy of the real dataset as the read model the pages and the API serve, its
// links under publicURL; it is closed when the test ends.
func Catalogs(t testing.TB, publicURL string) *town.Catalogs {
	t.Helper()
	h, err := town.Open(Write(t, t.TempDir()), publicURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h
}

// Catalog is the current catalog of Catalogs: the read model of the real dataset.
func Catalog(t testing.TB, publicURL string) *town.Catalog {
	t.Helper()
	c, err := Catalogs(t, publicURL).Catalog()
	if err != nil {
		t.Fatal(err)
	}
	return c
}
