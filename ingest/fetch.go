package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// maxSourceSize bounds a download; the largest source is a few megabytes.
const maxSourceSize = 256 << 20

// Fetch downloads every source that has a download address into rawDir and checks its hash.
// A file already present with the expected hash is left alone. Sources without an address, and
// downloads that fail, are listed in the returned error together with where to get them.
func Fetch(ctx context.Context, rawDir string, client *http.Client) error {
	if client == nil {
		client = &http.Client{Timeout: 2 * time.Minute}
	}
	man, err := LoadManifest()
	if err != nil {
		return err
	}
	var problems []error
	for _, s := range man.Sources {
		dest := filepath.Join(rawDir, s.Path)
		if got, err := FileSHA256(dest); err == nil && got == s.SHA256 {
			slog.Info("source present", "file", dest)
			continue
		}
		if s.URL == "" {
			problems = append(problems, fmt.Errorf("%s: no download address; obtain it from %s", s.Path, s.Origin))
			continue
		}
		got, err := download(ctx, client, s.URL, dest)
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: %w", s.Path, err))
			continue
		}
		if got != s.SHA256 {
			slog.Warn("downloaded file differs from the manifest; check the figures before publishing",
				"file", dest, "sha256", got, "expected", s.SHA256)
		} else {
			slog.Info("downloaded", "file", dest)
		}
	}
	return errors.Join(problems...)
}

func download(ctx context.Context, client *http.Client, url, dest string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		var dnsErr *net.DNSError
		var opErr *net.OpError
		if errors.As(err, &dnsErr) || errors.As(err, &opErr) {
			return "", fmt.Errorf("cannot reach %s (offline?): %w; copy the file into the raw directory by hand", req.URL.Host, err)
		}
		return "", fmt.Errorf("download %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("download %s: %s", url, resp.Status)
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest), "."+filepath.Base(dest)+".*.part")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(resp.Body, maxSourceSize+1))
	if err == nil && n > maxSourceSize {
		err = fmt.Errorf("larger than %d bytes", maxSourceSize)
	}
	if err != nil {
		tmp.Close()
		return "", fmt.Errorf("download %s: %w", url, err)
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), dest); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
