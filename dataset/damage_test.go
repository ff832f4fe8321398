package dataset_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hensachi/hensachi/dataset"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

// TestDamagedFileRefused changes 50 random bytes in the middle of the real dataset file, as a
// hostile test did, many times over: Open must never panic, and must refuse every file whose
// content differs from what was written (a change that only hits padding may pass, with the
// content intact).
func TestDamagedFileRefused(t *testing.T) {
	original, _, data := buildReal(t, t.TempDir())
	want := rows(original)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	refused := 0
	const trials = 200
	for trial := range trials {
		damaged := bytes.Clone(data)
		for range 50 {
			damaged[len(data)/4+rng.IntN(len(data)/2)] = byte(rng.Uint32())
		}
		path := filepath.Join(dir, "damaged.arrow")
		if err := os.WriteFile(path, damaged, 0o644); err != nil {
			t.Fatal(err)
		}
		ds, err := dataset.Open(path)
		if err != nil {
			if !errors.Is(err, dataset.ErrDataset) {
				t.Fatalf("trial %d: %v, want ErrDataset", trial, err)
			}
			refused++
			continue
		}
		if got := rows(ds); !slices.Equal(got, want) {
			t.Errorf("trial %d: a damaged file opened with different content", trial)
		}
		ds.Close()
	}
	t.Logf("%d of %d damaged files refused", refused, trials)
	if refused < trials*9/10 {
		t.Errorf("only %d of %d damaged files refused", refused, trials)
	}
}

// FuzzOpen feeds mutated dataset files to Open: it must return a dataset or an error, never
// panic, and a dataset it returns must decode every row.
func FuzzOpen(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	_, _, data := buildReal(f, f.TempDir())
	f.Add(data)
	f.Add(data[:len(data)/2])
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "fuzz.arrow")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		ds, err := dataset.Open(path)
		if err != nil {
			return
		}
		defer ds.Close()
		rows(ds)
	})
}

// rows decodes every municipality of ds into text, which outlives the mapping.
func rows(ds *dataset.Dataset) []string {
	out := make([]string, ds.Len())
	for i := range out {
		out[i] = fmt.Sprint(ds.Municipality(i))
	}
	return out
}
