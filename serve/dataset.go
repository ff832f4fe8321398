package serve

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hensachi/hensachi/compute"
)

// snapshot is one mapped dataset with what the handlers derive from it. It is reference counted:
// the holder owns one reference while the snapshot is current, each request owns one while it
// runs, and the file is unmapped when the last reference goes.
type snapshot struct {
	*town
	refs atomic.Int64
}

func (s *snapshot) acquire() bool {
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

func (s *snapshot) release() {
	if s.refs.Add(-1) == 0 {
		if err := s.ds.Close(); err != nil {
			slog.Error("unmap dataset", "version", s.ds.Version, "err", err)
		}
		slog.Info("retired dataset", "version", s.ds.Version)
	}
}

// datasetHolder serves the current snapshot and swaps in a new one when the file is replaced.
type datasetHolder struct {
	path    string
	baseURL string
	current atomic.Pointer[snapshot]

	mu   sync.Mutex // serialises reloads
	stat fileID
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

func openHolder(path, baseURL string) (*datasetHolder, error) {
	h := &datasetHolder{path: path, baseURL: baseURL}
	if _, err := h.reload(); err != nil {
		return nil, err
	}
	return h, nil
}

// acquire returns the current snapshot with a reference the caller must release, or nil once the
// holder is closed.
func (h *datasetHolder) acquire() *snapshot {
	for {
		s := h.current.Load()
		if s == nil || s.acquire() {
			return s
		}
	}
}

// reload maps the file if it changed since the last load and makes it current. It reports
// whether it swapped. A file that fails to open leaves the current snapshot in place.
func (h *datasetHolder) reload() (bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	id, err := statFile(h.path)
	if err != nil {
		return false, fmt.Errorf("dataset %s: %w; build it with 'make ingest'", h.path, err)
	}
	if h.current.Load() != nil && id == h.stat {
		return false, nil
	}
	ds, err := compute.OpenDataset(h.path)
	if err != nil {
		return false, err
	}
	next := &snapshot{town: newTown(ds, h.baseURL)}
	next.refs.Store(1)
	prev := h.current.Swap(next)
	h.stat = id
	if prev != nil {
		prev.release()
	}
	slog.Info("serving dataset", "file", h.path, "version", ds.Version, "municipalities", ds.Len())
	return true, nil
}

// watch reloads on SIGHUP and when the file is replaced, until ctx ends.
func (h *datasetHolder) watch(ctx context.Context, hup <-chan os.Signal, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
		case <-t.C:
		}
		if _, err := h.reload(); err != nil {
			slog.Error("reload dataset; still serving the previous one", "err", err)
		}
	}
}

// close drops the holder's reference; the mapping goes once requests in flight finish.
func (h *datasetHolder) close() {
	if s := h.current.Swap(nil); s != nil {
		s.release()
	}
}
