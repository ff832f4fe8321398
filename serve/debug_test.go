package serve_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hensachi/hensachi/serve"
)

// TestDebugListener: the profiles are served on loopback only, and not on the API's router.
func TestDebugListener(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{":0", "0.0.0.0:0", "192.0.2.1:6060", "localhost"} {
		if ln, err := serve.ListenDebug(addr); err == nil {
			ln.Close()
			t.Errorf("debug listener on %q", addr)
		}
	}
	ln, err := serve.ListenDebug("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	resp, err := http.Get("http://" + ln.Addr().String() + "/debug/pprof/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "goroutine") {
		t.Errorf("profile index: %d %.100s", resp.StatusCode, body)
	}
	ts := newTestServer(t)
	if r := ts.get(t, "/debug/pprof/"); r.status != http.StatusNotFound {
		t.Errorf("the API's router serves /debug/pprof/: %d", r.status)
	}
}
