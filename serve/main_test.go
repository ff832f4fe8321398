package serve

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/compute"
	"github.com/hensachi/hensachi/dataset"
	"github.com/hensachi/hensachi/ingest"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
	"github.com/hensachi/hensachi/sqlite"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func TestMain(m *testing.M) {
	slog.SetDefault(quiet)
	code := m.Run()
	if builtDir != "" {
		os.RemoveAll(builtDir)
	}
	os.Exit(code)
}

var (
	buildOnce sync.Once
	builtDir  string
	built     *ingest.Result
	buildErr  error
)

// realDataset returns a copy of the dataset built from the real sources in dir; the build itself
// runs once per test binary.
func realDataset(t testing.TB, dir string) string {
	t.Helper()
	raw := testenv.Shared(t, "data/raw")
	buildOnce.Do(func() {
		built, buildErr = ingest.Build(raw, quiet)
		if buildErr == nil {
			compute.Apply(built.Municipalities, &built.Meta)
			builtDir, buildErr = os.MkdirTemp("", "hensachi-serve-test")
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	path := filepath.Join(dir, "dataset.arrow")
	if _, err := dataset.Write(path, built.Municipalities, built.Meta); err != nil {
		t.Fatal(err)
	}
	return path
}

// testServer is a server on the real dataset with a fresh store, and one account per plan.
type testServer struct {
	*Server
	http      *httptest.Server
	store     *sqlite.Store
	dir       string
	freeKey   string
	proKey    string
	freeID    int64
	cancelRun context.CancelFunc
	runDone   chan struct{}
}

type serverOption func(*Config)

func newTestServer(t testing.TB, opts ...serverOption) *testServer {
	t.Helper()
	dir := t.TempDir()
	dataset := realDataset(t, dir)
	store, err := sqlite.Open(context.Background(), filepath.Join(dir, "hensachi.db"))
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{store: store, dir: dir}
	var a hensachi.Account
	ts.freeKey, a = createAccount(t, store, "free@example.com", hensachi.PlanFree)
	ts.freeID = a.ID
	ts.proKey, _ = createAccount(t, store, "pro@example.com", hensachi.PlanPro)
	ts.start(t, dataset, opts...)
	t.Cleanup(func() { ts.stop(); store.Close() })
	return ts
}

func (ts *testServer) start(t testing.TB, dataset string, opts ...serverOption) {
	t.Helper()
	cfg := Config{DatasetPath: dataset, PublicURL: "https://hensachi.example", Store: ts.store, KeyCacheTTL: time.Nanosecond, WatchInterval: time.Hour}
	for _, o := range opts {
		o(&cfg)
	}
	s, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts.Server = s
	ts.http = httptest.NewServer(s.Handler())
	ctx, cancel := context.WithCancel(context.Background())
	ts.cancelRun, ts.runDone = cancel, make(chan struct{})
	go func() { s.Run(ctx); close(ts.runDone) }()
}

// stop shuts the server down as ListenAndServe would: stop serving, flush counts, unmap.
func (ts *testServer) stop() {
	if ts.http == nil {
		return
	}
	ts.http.Close()
	ts.cancelRun()
	<-ts.runDone
	ts.Server.Close()
	ts.http = nil
}

func createAccount(t testing.TB, store hensachi.Store, email string, plan hensachi.Plan) (string, hensachi.Account) {
	t.Helper()
	key, stored := hensachi.NewAPIKey()
	a, _, err := store.CreateAccount(context.Background(), hensachi.Account{Email: email, Plan: plan}, stored)
	if err != nil {
		t.Fatal(err)
	}
	return key, a
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
