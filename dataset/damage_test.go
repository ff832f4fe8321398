package dataset_test

import (
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
	// Each trial damages a copy of the file in place and then undoes its changes: copying and
	// writing the whole file on every trial would cost more than opening it.
	path := filepath.Join(t.TempDir(), "damaged.arrow")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	patch := func(at int, b byte) {
		if _, err := f.WriteAt([]byte{b}, int64(at)); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	refused := 0
	const trials = 200
	for trial := range trials {
		damaged := make([]int, 50)
		for k := range damaged {
			damaged[k] = len(data)/4 + rng.IntN(len(data)/2)
			patch(damaged[k], byte(rng.Uint32()))
		}
		ds, err := dataset.Open(path)
		for _, at := range damaged {
			patch(at, data[at])
		}
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
