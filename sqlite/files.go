package sqlite

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// The store is three files: the database, its write-ahead log (-wal) and the log's index (-shm).
// SQLite keeps the first two open and goes on writing to them when they are deleted or replaced
// under it, so a lost file loses what is written from then on (or, for the log, what it holds and
// has not yet copied into the database), silently. Open checks the files before it trusts them, and
// Ping (which /readyz calls) checks that the files the process has open are still the ones at
// their paths.

// checkFilesAtStart refuses a database whose file is gone while its log or index is still there
// (starting empty would drop every account), and warns of a log index without its log, which is
// what a log deleted under a running server leaves.
func checkFilesAtStart(path string) error {
	_, dbErr := os.Stat(path)
	_, walErr := os.Stat(path + "-wal")
	_, shmErr := os.Stat(path + "-shm")
	switch {
	case errors.Is(dbErr, os.ErrNotExist) && (walErr == nil || shmErr == nil):
		return fmt.Errorf("the database file %s is missing but its write-ahead log or index (-wal, -shm) is there: restore the database file, or remove %[1]s-wal and %[1]s-shm to start with an empty store", path)
	case dbErr != nil && !errors.Is(dbErr, os.ErrNotExist):
		return dbErr
	case dbErr == nil && shmErr == nil && errors.Is(walErr, os.ErrNotExist):
		slog.Warn("the store's write-ahead log is missing beside its index: if it was deleted while a server ran, what it held is lost", "db", path)
	}
	return nil
}

// quickCheck runs SQLite's PRAGMA quick_check: the structure of every page and index, in one pass.
func (s *Store) quickCheck(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `PRAGMA quick_check`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("the database fails SQLite's integrity check (restore it from a backup): %s", strings.Join(problems, "; "))
	}
	return nil
}

// openFiles watches the files a Store has open.
type openFiles struct {
	paths []string // the database's and its log's, absolute, as /proc names them

	mu      sync.Mutex
	now     func() time.Time // the clock of the interval between checks
	checked time.Time
	lost    error // once a file is lost, it stays lost: what was written to it is gone
}

// minCheckInterval bounds how often the open files are listed, whatever asks (each /readyz does).
const minCheckInterval = time.Second

func newOpenFiles(path string) (*openFiles, error) {
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return nil, err
	}
	db := filepath.Join(dir, filepath.Base(path))
	return &openFiles{paths: []string{db, db + "-wal"}, now: time.Now}, nil
}

// check returns an error naming the store's files that this process has open but that are no
// longer at their path: deleted, or replaced by another file. It reads /proc/self/fd, so on a
// system without it nothing is checked.
func (f *openFiles) check() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.lost != nil || f.now().Sub(f.checked) < minCheckInterval {
		return f.lost
	}
	f.checked = f.now()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil
	}
	for _, fd := range fds {
		link := "/proc/self/fd/" + fd.Name()
		target, err := os.Readlink(link)
		if err != nil {
			continue // closed meanwhile
		}
		path, deleted := strings.CutSuffix(target, " (deleted)")
		if !f.watched(path) {
			continue
		}
		open, err := os.Stat(link) // the open file itself
		if again, _ := os.Readlink(link); err != nil || again != target {
			continue // closed, or the number reused, meanwhile
		}
		at, err := os.Stat(path)
		if deleted || err != nil || !os.SameFile(open, at) {
			f.lost = fmt.Errorf("the store's file %s was deleted or replaced while the server runs: what SQLite writes to it now is lost; stop the server, restore the file from a backup and start again", path)
			return f.lost
		}
	}
	return nil
}

func (f *openFiles) watched(path string) bool {
	for _, p := range f.paths {
		if p == path {
			return true
		}
	}
	return false
}
