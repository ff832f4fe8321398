package serve_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/hensachi/hensachi/app"
	"github.com/hensachi/hensachi/export"
)

// faultyServers numbers the servers of the failing disk's tests.
var faultyServers atomic.Int64

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
// kept: the next call builds it again, and once the disk takes it, succeeds, counted as the day's
// first. Not parallel: the scratch files are the package's.
func TestSeriesExportOnAFailingDisk(t *testing.T) {
	type fault struct {
		name   string
		after  int
		err    error
		status int
		code   string
	}
	full := fault{"full", 1 << 20, &fs.PathError{Op: "write", Path: "/tmp/hensachi-series", Err: syscall.ENOSPC}, http.StatusServiceUnavailable, "unavailable"}
	for _, tc := range []struct {
		format string
		faults []fault // in turn, on one server
	}{
		{"csv", []fault{full, {"broken", 100, syscall.EIO, http.StatusInternalServerError, "internal_error"}}},
		{"parquet", []fault{full, {"broken", 0, syscall.EIO, http.StatusInternalServerError, "internal_error"}}},
	} {
		t.Run(tc.format, func(t *testing.T) {
			// A public URL of its own gives this server long tables of its own: the catalogs of
			// one version and URL are one, and another server's healthy table would be served.
			ts := newTestServer(t, func(c *app.Config) { c.Server.PublicURL = fmt.Sprintf("https://disk-%d.example", faultyServers.Add(1)) })
			healthy := export.NewScratch
			t.Cleanup(func() { export.NewScratch = healthy })
			path := "/town/v1/export/series?format=" + tc.format + "&indicators=population,fiscal_strength"
			for _, f := range tc.faults {
				export.NewScratch = func() (export.Scratch, error) {
					disk, err := os.CreateTemp(t.TempDir(), "series")
					return &failingDisk{f: disk, n: f.after, err: f.err}, err
				}
				r := ts.get(t, path)
				p := decode[problem](t, r.body)
				if r.status != f.status || r.header.Get("Content-Type") != "application/problem+json" || p.Code != f.code ||
					p.Status != f.status || p.RequestID == "" || p.Success {
					t.Fatalf("disk %s: %d %s %s", f.name, r.status, r.header.Get("Content-Type"), r.body)
				}
				if retry := r.header.Get("Retry-After"); (f.status == http.StatusServiceUnavailable) != (retry != "") {
					t.Errorf("disk %s: Retry-After %q on a %d", f.name, retry, r.status)
				}
				if bytes.Contains(r.body, []byte("/tmp")) {
					t.Errorf("disk %s: the problem shows the file: %s", f.name, r.body)
				}
			}

			export.NewScratch = healthy
			r := ts.get(t, path)
			if r.status != http.StatusOK || len(r.body) < 100 {
				t.Fatalf("once the disk is back: %d %.200s", r.status, r.body)
			}
			if used := ts.get(t, "/town/v1/meta"); decode[envelope](t, used.body).Usage.UsedToday != 2 {
				t.Errorf("used today after failed calls, a long table and the meta: %s", used.body[len(used.body)-80:])
			}
		})
	}
}
