package dataset

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Snapshot is one mapped dataset with what its user derives from it (indexes, encoded bodies). It
// is reference counted: the holder owns one reference while the snapshot is current, each request
// owns one while it runs, and the file is unmapped when the last reference goes.
type Snapshot[T any] struct {
	Dataset *Dataset
	Derived T
	refs    atomic.Int64
}

func (s *Snapshot[T]) acquire() bool {
	for {
		n := s.refs.Load()
		if n == 0 {
			return false // being retired; the caller loads the new current snapshot
		}
		if s.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// Release drops a reference taken by Holder.Acquire.
func (s *Snapshot[T]) Release() {
	if s.refs.Add(-1) == 0 {
		if err := s.Dataset.Close(); err != nil {
			slog.Error("unmap dataset", "version", s.Dataset.Version, "err", err)
		}
		slog.Info("retired dataset", "version", s.Dataset.Version)
	}
}

// Holder serves the current snapshot and swaps in a new one when the file is replaced.
type Holder[T any] struct {
	path    string
	derive  func(*Dataset) T
	current atomic.Pointer[Snapshot[T]]

	mu      sync.Mutex    // serialises reloads
	stat    fileID        // the file as last loaded
	refused fileID        // the file as last refused, not tried again until it changes
	swapped chan struct{} // closed when a snapshot is made current, then replaced
}

// fileID tells whether the file at a path was replaced: an atomic rename gives a new inode.
type fileID struct {
	dev, ino uint64
	size     int64
	mtime    time.Time
}

func statFile(path string) (fileID, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileID{}, err
	}
	id := fileID{size: fi.Size(), mtime: fi.ModTime()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.dev, id.ino = uint64(st.Dev), st.Ino
	}
	return id, nil
}

// NewHolder maps the dataset at path and derives T from it; derive runs again on every swap.
func NewHolder[T any](path string, derive func(*Dataset) T) (*Holder[T], error) {
	h := &Holder[T]{path: path, derive: derive, swapped: make(chan struct{})}
	if _, err := h.Reload(); err != nil {
		return nil, err
	}
	return h, nil
}

// Path is the file the holder watches.
func (h *Holder[T]) Path() string { return h.path }

// Acquire returns the current snapshot with a reference the caller must release, or nil once the
// holder is closed.
func (h *Holder[T]) Acquire() *Snapshot[T] {
	for {
		s := h.current.Load()
		if s == nil || s.acquire() {
			return s
		}
	}
}

// Reload maps the file if it changed since the last load and makes it current. It reports
// whether it swapped. A file that fails to open leaves the current snapshot in place.
func (h *Holder[T]) Reload() (bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	id, err := statFile(h.path)
	if err != nil {
		return false, fmt.Errorf("dataset %s: %w; build it with 'make ingest'", h.path, err)
	}
	if h.current.Load() != nil && (id == h.stat || id == h.refused) {
		return false, nil
	}
	ds, err := openPrivateCopy(h.path)
	if err != nil {
		h.refused = id
		return false, err
	}
	next := &Snapshot[T]{Dataset: ds, Derived: h.derive(ds)}
	next.refs.Store(1)
	prev := h.current.Swap(next)
	h.stat = id
	close(h.swapped)
	h.swapped = make(chan struct{})
	if prev != nil {
		prev.Release()
	}
	slog.Info("serving dataset", "file", h.path, "version", ds.Version, "municipalities", ds.Len())
	return true, nil
}

// Swapped returns a channel closed the next time a reload makes a new snapshot current, for a
// caller that waits for the watcher to pick up a file instead of asking again and again.
func (h *Holder[T]) Swapped() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.swapped
}

// Watch reloads on SIGHUP and when the file is replaced, until ctx ends.
func (h *Holder[T]) Watch(ctx context.Context, hup <-chan os.Signal, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
		case <-t.C:
		}
		if _, err := h.Reload(); err != nil {
			slog.Error("reload dataset; still serving the previous one", "err", err)
		}
	}
}

// Close drops the holder's reference; the mapping goes once requests in flight finish.
func (h *Holder[T]) Close() {
	if s := h.current.Swap(nil); s != nil {
		s.Release()
	}
}

// openPrivateCopy maps a copy of the file that only this process can reach. Operators overwrite
// the dataset in place (cp new.arrow data/dataset.arrow), and a mapped file truncated or rewritten
// under a reader kills the process with SIGBUS; the copy is unlinked as soon as it is mapped, so
// its pages stay exactly as validated. A copy taken while the file is being written fails the
// checksum and is refused; the next change of the file is tried again.
func openPrivateCopy(path string) (*Dataset, error) {
	src, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	tmp, err := os.CreateTemp("", "hensachi-dataset-*.arrow")
	if err != nil {
		return nil, fmt.Errorf("copy dataset %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if _, err := io.Copy(tmp, src); err != nil {
		return nil, fmt.Errorf("copy dataset %s: %w", path, err)
	}
	return openFile(tmp, path)
}
