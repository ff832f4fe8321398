package serve_test

import (
	"bytes"
	"io/fs"
	"net/http"
	"os"
	"syscall"
	"testing"

	"github.com/hensachi/hensachi/export"
)

// failingDisk is the long table's scratch file on a disk that fails once it has taken n bytes,
// with err.
type failingDisk struct {
	f   *os.File
	n   int
	err error
}

func (d *failingDisk) Write(p []byte) (int, error) {
	if len(p) > d.n {
		k, _ := d.f.Write(p[:d.n])
		d.n = 0
		return k, d.err
	}
	d.n -= len(p)
	return d.f.Write(p)
}

func (d *failingDisk) ReadAt(p []byte, off int64) (int, error) { return d.f.ReadAt(p, off) }

// TestSeriesExportOnAFailingDisk: a long table the disk fails to take answers a problem (503 with
// Retry-After when the disk is full, else 500 with the request id), charges no unit, and is not
// kept: once the disk takes it, the next call builds it and succeeds, counted as the day's first.
// Not parallel: the scratch files are the package's.
func TestSeriesExportOnAFailingDisk(t *testing.T) {
	for _, tc := range []struct {
		name, format string
		after        int
		err          error
		status       int
		code         string
	}{
		{"full csv", "csv", 1 << 20, &fs.PathError{Op: "write", Path: "/tmp/hensachi-series", Err: syscall.ENOSPC}, http.StatusServiceUnavailable, "unavailable"},
		{"full parquet", "parquet", 1 << 20, &fs.PathError{Op: "write", Path: "/tmp/hensachi-series", Err: syscall.ENOSPC}, http.StatusServiceUnavailable, "unavailable"},
		{"broken csv", "csv", 100, syscall.EIO, http.StatusInternalServerError, "internal_error"},
		{"broken parquet", "parquet", 0, syscall.EIO, http.StatusInternalServerError, "internal_error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTestServer(t)
			healthy := export.NewScratch
			t.Cleanup(func() { export.NewScratch = healthy })
			export.NewScratch = func() (export.Scratch, error) {
				f, err := os.CreateTemp(t.TempDir(), "series")
				return &failingDisk{f: f, n: tc.after, err: tc.err}, err
			}
			path := "/town/v1/export/series?format=" + tc.format + "&indicators=population,fiscal_strength"
			r := ts.get(t, path)
			p := decode[problem](t, r.body)
			if r.status != tc.status || r.header.Get("Content-Type") != "application/problem+json" || p.Code != tc.code ||
				p.Status != tc.status || p.RequestID == "" || p.Success {
				t.Fatalf("%d %s %s", r.status, r.header.Get("Content-Type"), r.body)
			}
			if retry := r.header.Get("Retry-After"); (tc.status == http.StatusServiceUnavailable) != (retry != "") {
				t.Errorf("Retry-After %q on a %d", retry, r.status)
			}
			if bytes.Contains(r.body, []byte("/tmp")) {
				t.Errorf("the problem shows the file: %s", r.body)
			}

			export.NewScratch = healthy
			r = ts.get(t, path)
			if r.status != http.StatusOK || len(r.body) < 100 {
				t.Fatalf("once the disk is back: %d %.200s", r.status, r.body)
			}
			if used := ts.get(t, "/town/v1/meta"); decode[envelope](t, used.body).Usage.UsedToday != 2 {
				t.Errorf("used today after a failed call, a long table and the meta: %s", used.body[len(used.body)-80:])
			}
		})
	}
}
