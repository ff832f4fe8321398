// Package uploads keeps the images sent to the face service on disk, as the operator's terms allow,
// and deletes them after a retention period.
package uploads

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"
)

// Store keeps uploaded images content-addressed by SHA-256, so that the same photo is stored once,
// and deletes each after the retention period.
type Store struct {
	Dir       string
	Retention time.Duration
}

// Save stores an image unless it is already there and returns its content address; ext is the
// file name extension of its format (jpeg, png).
func (u *Store) Save(data []byte, ext string) (string, error) {
	sum := sha256.Sum256(data)
	name := hex.EncodeToString(sum[:])
	dir := filepath.Join(u.Dir, name[:2])
	path := filepath.Join(dir, name+"."+ext)
	if _, err := os.Stat(path); err == nil {
		now := time.Now() // a new upload of the same photo restarts its retention
		return name, os.Chtimes(path, now, now)
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, ".upload-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	return name, os.Rename(tmp.Name(), path)
}

// Check reports whether the store can keep a file now: it writes and removes a small one, as
// Save would, so a directory that is missing and cannot be made, read-only or on a full disk is
// known at start rather than at the first upload.
func (u *Store) Check() error {
	if err := os.MkdirAll(u.Dir, 0o750); err != nil {
		return err
	}
	probe, err := os.CreateTemp(u.Dir, ".check-*")
	if err != nil {
		return err
	}
	defer os.Remove(probe.Name())
	_, err = probe.Write(make([]byte, 4096))
	if cerr := probe.Close(); err == nil {
		err = cerr
	}
	return err
}

// Sweep deletes the files older than the retention period and returns how many it deleted.
func (u *Store) Sweep(now time.Time) (int, error) {
	n := 0
	err := filepath.WalkDir(u.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil // removed meanwhile
		}
		if now.Sub(info.ModTime()) > u.Retention {
			if err := os.Remove(path); err == nil {
				n++
			}
		}
		return nil
	})
	return n, err
}

// RunSweeper sweeps every interval until ctx ends.
func (u *Store) RunSweeper(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			if n, err := u.Sweep(now); err != nil {
				slog.Error("sweep uploads", "err", err)
			} else if n > 0 {
				slog.Info("deleted expired uploads", "count", n)
			}
		}
	}
}
