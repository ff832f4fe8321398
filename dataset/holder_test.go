package dataset

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/hensachi/hensachi"
)

// writeSmall writes a one-municipality dataset whose meta carries the given date.
func writeSmall(t *testing.T, path, updated string) {
	t.Helper()
	m := hensachi.Municipality{
		Code: "13101", Name: "千代田区", Prefecture: hensachi.Prefecture{Code: "13", Name: "東京都"},
		Scores: make([]hensachi.Score, len(hensachi.Axes)),
		Stats:  make([]hensachi.Optional[float64], len(hensachi.Stats)),
	}
	meta := hensachi.Meta{
		DataUpdated: updated,
		Axes:        make([]hensachi.AxisMeta, len(hensachi.Axes)),
		Stats:       make([]hensachi.StatMeta, len(hensachi.Stats)),
	}
	if _, err := Write(path, []hensachi.Municipality{m}, meta); err != nil {
		t.Fatal(err)
	}
}

// TestHolderReferences: a snapshot stays mapped while a reader holds it across a swap, and is
// released (unmapped) once the last reader lets go, also under concurrent readers.
func TestHolderReferences(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "dataset.arrow")
	writeSmall(t, path, "2000-01-01")
	h, err := NewHolder(path, func(ds *Dataset) string { return ds.Meta.DataUpdated })
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()

	stop := make(chan struct{})
	var readers sync.WaitGroup
	for range 4 {
		readers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				s := h.Acquire()
				if s.Derived != s.Dataset.Meta.DataUpdated {
					t.Errorf("snapshot derived %q from a dataset dated %q", s.Derived, s.Dataset.Meta.DataUpdated)
				}
				s.Release()
			}
		})
	}

	inFlight := h.Acquire()
	next := filepath.Join(dir, "next.arrow")
	writeSmall(t, next, "2099-01-01")
	if err := os.Rename(next, path); err != nil {
		t.Fatal(err)
	}
	if swapped, err := h.Reload(); err != nil || !swapped {
		t.Fatalf("reload: swapped %v, %v", swapped, err)
	}
	if got := h.Acquire(); got.Derived != "2099-01-01" {
		t.Errorf("current snapshot is dated %q after the swap", got.Derived)
	} else {
		got.Release()
	}
	if m := inFlight.Dataset.Municipality(inFlight.Dataset.Index("13101")); m.Name != "千代田区" {
		t.Errorf("old snapshot after the swap reads %q", m.Name)
	}
	if n := inFlight.refs.Load(); n < 1 {
		t.Errorf("old snapshot has %d references while in use", n)
	}
	close(stop)
	readers.Wait()
	inFlight.Release()
	if n := inFlight.refs.Load(); n != 0 {
		t.Errorf("old snapshot still has %d references after its readers finished (not unmapped)", n)
	}
	if inFlight.acquire() {
		t.Error("a retired snapshot could be acquired again")
	}
}

// TestHolderSwapped: the channel Swapped returns is closed by the reload that swaps, not by one
// that finds the file unchanged or refuses it.
func TestHolderSwapped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dataset.arrow")
	writeSmall(t, path, "2000-01-01")
	h, err := NewHolder(path, func(ds *Dataset) string { return ds.Meta.DataUpdated })
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	swapped := h.Swapped()
	closed := func() bool {
		select {
		case <-swapped:
			return true
		default:
			return false
		}
	}
	if _, err := h.Reload(); err != nil || closed() {
		t.Fatalf("closed by a reload of the same file (%v)", err)
	}
	if err := os.WriteFile(path+".tmp", []byte("not arrow"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Reload(); err == nil || closed() {
		t.Fatalf("closed by a refused file (%v)", err)
	}
	writeSmall(t, path, "2000-02-02")
	if ok, err := h.Reload(); !ok || err != nil || !closed() {
		t.Fatalf("a swap (%v, %v) left the channel open", ok, err)
	}
	if h.Swapped() == swapped {
		t.Error("the next swap is waited for on the closed channel")
	}
}
