package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/app"
	"github.com/hensachi/hensachi/internal/testrig/realdata"
	"github.com/hensachi/hensachi/internal/testrig/storetest"
	"github.com/hensachi/hensachi/serve"
	"github.com/hensachi/hensachi/sqlite"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func TestMain(m *testing.M) {
	slog.SetDefault(quiet)
	os.Exit(m.Run())
}

// problem is the problem document the API answers a failure with.
type problem = serve.Problem

// testServer is a server on the real dataset with a fresh store, and one account per plan, built
// by app.Build as cmd/hensachi builds the real one.
type testServer struct {
	*app.App
	config    app.Config // what Build was given
	http      *httptest.Server
	store     *sqlite.Store
	clock     *aheadClock // the store's
	dir       string
	freeKey   string
	proKey    string
	freeID    int64
	cancelRun context.CancelFunc
	runDone   chan struct{}
}

// serverOption changes what the test server is built from.
type serverOption func(*app.Config)

// aheadClock is the real time moved on by Advance, so that a test skips a wait instead of
// sleeping through it.
type aheadClock struct{ ahead atomic.Int64 }

func (c *aheadClock) Now() time.Time          { return time.Now().Add(time.Duration(c.ahead.Load())) }
func (c *aheadClock) Advance(d time.Duration) { c.ahead.Add(int64(d)) }

func newTestServer(t testing.TB, opts ...serverOption) *testServer {
	t.Helper()
	dir := t.TempDir()
	dataset := realdata.Write(t, dir)
	store, err := sqlite.Open(context.Background(), filepath.Join(dir, "hensachi.db"))
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{store: store, clock: &aheadClock{}, dir: dir}
	store.SetClock(ts.clock.Now)
	var a hensachi.Account
	ts.freeKey, a = storetest.CreateAccount(t, store, "free@example.com", hensachi.PlanFree)
	ts.freeID = a.ID
	ts.proKey, _ = storetest.CreateAccount(t, store, "pro@example.com", hensachi.PlanPro)
	ts.start(t, dataset, opts...)
	t.Cleanup(func() { ts.stop(); store.Close() })
	return ts
}

func (ts *testServer) start(t testing.TB, dataset string, opts ...serverOption) {
	t.Helper()
	cfg := app.Config{Server: serve.Config{PublicURL: "https://hensachi.example", Store: ts.store, WatchInterval: time.Hour},
		DatasetPath: dataset, KeyCacheTTL: time.Nanosecond}
	for _, o := range opts {
		o(&cfg)
	}
	a, err := app.Build(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts.App, ts.config = a, cfg
	ts.http = httptest.NewServer(a.Handler())
	ts.http.Client().Transport = patient{ts.http.Client().Transport}
	ctx, cancel := context.WithCancel(context.Background())
	ts.cancelRun, ts.runDone = cancel, make(chan struct{})
	go func() { a.Run(ctx); close(ts.runDone) }()
}

// patient retries a GET the server refused while it built a national long table (a 503 whose
// Retry-After says when to come back), as a client should: the tests share one build slot with
// every other test server in the binary, and under the race detector a build outlasts the 20 s a
// call waits for its turn. Builds queue for minutes when the model pass shares the CPU.
type patient struct{ next http.RoundTripper }

func (p patient) RoundTrip(req *http.Request) (*http.Response, error) {
	deadline := time.Now().Add(10 * time.Minute)
	for {
		resp, err := p.next.RoundTrip(req)
		if err != nil || req.Method != http.MethodGet || resp.StatusCode != http.StatusServiceUnavailable || time.Now().After(deadline) {
			return resp, err
		}
		wait, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		if wait <= 0 || !bytes.Contains(body, []byte("is being built")) { // export's two words for a build in progress
			resp.Body = io.NopCloser(bytes.NewReader(body))
			return resp, nil
		}
		select {
		case <-time.After(time.Duration(wait) * time.Second):
		case <-req.Context().Done():
			return nil, req.Context().Err()
		}
	}
}

// stop shuts the server down as ListenAndServe and Main would: stop serving, flush counts, close
// the parts.
func (ts *testServer) stop() {
	if ts.http == nil {
		return
	}
	ts.http.Close()
	ts.cancelRun()
	<-ts.runDone
	ts.App.Close()
	ts.http = nil
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (ts *testServer) do(t testing.TB, method, path string, header ...string) response {
	t.Helper()
	req, err := http.NewRequest(method, ts.http.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := ts.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: body}
}

func (ts *testServer) get(t testing.TB, path string) response {
	t.Helper()
	return ts.do(t, http.MethodGet, path, "X-API-Key", ts.freeKey)
}

// envelope is the shape of a successful statistics response.
type envelope struct {
	Success bool            `json:"success"`
	Data    json.RawMessage `json:"data"`
	Usage   struct {
		Plan       string `json:"plan"`
		UsedToday  int64  `json:"used_today"`
		LimitToday int64  `json:"limit_today"`
	} `json:"usage"`
}

func decode[T any](t testing.TB, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %s: %v", strings.TrimSpace(string(b[:min(len(b), 300)])), err)
	}
	return v
}
