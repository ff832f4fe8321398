package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/logtest"
	"github.com/hensachi/hensachi/uploads"
)

// metricLine returns the line of /metrics that starts with name and a space.
func metricLine(t *testing.T, ts *testServer, name string) string {
	t.Helper()
	for line := range strings.Lines(string(ts.get(t, "/metrics").body)) {
		if strings.HasPrefix(line, name+" ") {
			return strings.TrimSpace(line)
		}
	}
	t.Fatalf("no %s in /metrics", name)
	return ""
}

// TestUploadsNotKeptAreVisible: while uploads cannot be stored (here a file stands where the
// directory should be, as a full disk would refuse them), face calls are answered and counted,
// each lost upload is counted in /metrics, and /readyz answers 200 "degraded" naming the cause,
// from the start-up check on; once an upload is kept again, /readyz is "ready".
func TestUploadsNotKeptAreVisible(t *testing.T) {
	blocked := filepath.Join(t.TempDir(), "blocked")
	if err := os.WriteFile(blocked, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, func(c *wiring) {
		c.Faces, c.Uploads = &scriptedAnalyzer{}, &uploads.Store{Dir: filepath.Join(blocked, "uploads"), Retention: time.Hour}
	})
	if r := ts.do(t, "GET", "/readyz"); r.status != 200 || !strings.HasPrefix(string(r.body), "degraded\nuploads: ") {
		t.Errorf("/readyz after a failed start-up check: %d %q", r.status, r.body)
	}
	for range 2 {
		ct, body := multipartBody(t, [2]string{"file", string(encodePNGImage(t, 64, 64))})
		if r := ts.post(t, ts.freeKey, ct, body); r.status != 200 {
			t.Fatalf("a call whose upload cannot be kept: %d %s", r.status, r.body)
		}
	}
	if used := ts.quota.Used(ts.freeID, hensachi.ServiceFace); used != 2 {
		t.Errorf("%d calls counted, want 2", used)
	}
	if got := metricLine(t, ts, "hensachi_face_uploads_not_kept_total"); got != "hensachi_face_uploads_not_kept_total 2" {
		t.Errorf("metric: %q", got)
	}
	r := ts.do(t, "GET", "/readyz")
	if r.status != 200 || !strings.HasPrefix(string(r.body), "degraded\nuploads: not kept (2 since the start)") {
		t.Errorf("/readyz with uploads not kept: %d %q", r.status, r.body)
	}
	if err := os.Remove(blocked); err != nil { // the disk has room again
		t.Fatal(err)
	}
	ct, body := multipartBody(t, [2]string{"file", string(encodePNGImage(t, 64, 64))})
	ts.post(t, ts.freeKey, ct, body)
	if r := ts.do(t, "GET", "/readyz"); r.status != 200 || string(r.body) != "ready\n" {
		t.Errorf("/readyz once an upload is kept again: %d %q", r.status, r.body)
	}
}

// TestStoreFileLostNotReady: deleting the embedded store's write-ahead log under the running
// server (which loses keys written since the last checkpoint) makes /readyz answer 503 naming the
// file, hensachi_store_up 0, and one ERROR line however often it is asked.
func TestStoreFileLostNotReady(t *testing.T) {
	logs := logtest.Capture(t)
	ts := newTestServer(t)
	if r := ts.do(t, "GET", "/readyz"); r.status != 200 || metricLine(t, ts, "hensachi_store_up") != "hensachi_store_up 1" {
		t.Fatalf("before: %d %q", r.status, r.body)
	}
	if err := os.Remove(filepath.Join(ts.dir, "hensachi.db-wal")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // the store lists its open files once a second at most
	r := ts.do(t, "GET", "/readyz")
	if r.status != 503 || !strings.Contains(string(r.body), "hensachi.db-wal was deleted or replaced") {
		t.Errorf("/readyz after the log was deleted: %d %q", r.status, r.body)
	}
	if got := metricLine(t, ts, "hensachi_store_up"); got != "hensachi_store_up 0" {
		t.Errorf("metric: %q", got)
	}
	ts.do(t, "GET", "/readyz")
	if n := strings.Count(logs.String(), "level=ERROR msg=\"the store fails its check"); n != 1 || !strings.Contains(logs.String(), "hensachi.db-wal was deleted") {
		t.Errorf("%d ERROR lines for the lost file:\n%s", n, logs.String())
	}
}
