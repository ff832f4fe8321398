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
	"testing"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/facecall"
	"github.com/hensachi/hensachi/internal/testrig/realdata"
	"github.com/hensachi/hensachi/internal/testrig/storetest"
	"github.com/hensachi/hensachi/quota"
	"github.com/hensachi/hensachi/sqlite"
	"github.com/hensachi/hensachi/town"
	"github.com/hensachi/hensachi/web/account"
	"github.com/hensachi/hensachi/web/site"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func TestMain(m *testing.M) {
	slog.SetDefault(quiet)
	os.Exit(m.Run())
}

// wiring is what the tests vary in a server and in the parts around it, which newWired builds as
// cmd/hensachi's Main does for the real server.
type wiring struct {
	Config // the server's own settings; newWired adds the parts
	// DatasetPath is the dataset the statistics service serves; empty: no statistics service.
	DatasetPath string
	KeyCacheTTL time.Duration
	// Faces, Uploads, AgeRanges, FaceSlots, FaceSlotsPerAccount, FaceBodies and FaceMemory make the face
	// calls (facecall.Config); a nil Faces runs no face service.
	Faces               facecall.Analyzer
	Uploads             facecall.UploadStore
	AgeRanges           facecall.AgeRanges
	FaceSlots           int
	FaceSlotsPerAccount int
	FaceBodies          int64
	FaceMemory          int64
	Login               account.Config
}

// wired is a server with the parts newWired built for it, which Close closes.
type wired struct {
	*Server
	wiring  wiring
	closers []func()
}

// newWired builds the parts of w and a server over them, in the order Main builds them.
func newWired(w wiring) (_ *wired, err error) {
	s := &wired{wiring: w}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	cfg := w.Config
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Limits == nil {
		cfg.Limits = hensachi.DefaultLimits()
	}
	if w.DatasetPath != "" {
		if cfg.Catalogs, err = town.Open(w.DatasetPath, cfg.PublicURL); err != nil {
			return nil, err
		}
		s.closers = append(s.closers, cfg.Catalogs.Close)
	}
	enforcer, err := quota.New(context.Background(), cfg.Store, cfg.Limits, cfg.Now)
	if err != nil {
		return nil, err
	}
	cfg.Quota, cfg.Keys = NewQuota(enforcer), NewKeyCache(cfg.Store, w.KeyCacheTTL)
	siteDeps := site.Deps{PublicURL: cfg.PublicURL, OpenAPI: OpenAPI()}
	if cfg.Catalogs != nil {
		siteDeps.Catalogs = cfg.Catalogs
	}
	public, err := site.New(siteDeps)
	if err != nil {
		return nil, err
	}
	accountDeps := account.Deps{PublicURL: cfg.PublicURL, Accounts: hensachi.Accounts{Store: cfg.Store, Now: cfg.Now},
		Usage: cfg.Quota, Limits: cfg.Limits, ForgetKeys: cfg.Keys.Forget, Credit: public.Credit, Now: cfg.Now}
	if w.Faces != nil {
		cfg.Faces = facecall.New(facecall.Config{Analyzer: w.Faces, Quota: cfg.Quota, Uploads: w.Uploads, AgeRanges: w.AgeRanges,
			Slots: w.FaceSlots, SlotsPerAccount: w.FaceSlotsPerAccount, Bodies: w.FaceBodies, Memory: w.FaceMemory})
		accountDeps.Faces = account.FaceCalls{Calls: cfg.Faces, Limits: cfg.Limits}
	}
	accounts, err := account.New(w.Login, accountDeps)
	if err != nil {
		return nil, err
	}
	s.closers = append(s.closers, accounts.Close)
	cfg.Pages = []Pages{public, accounts}
	s.Server, err = New(cfg)
	return s, err
}

// Close closes the parts, the last built first.
func (s *wired) Close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}

// testServer is a server on the real dataset with a fresh store, and one account per plan.
type testServer struct {
	*wired
	http      *httptest.Server
	store     *sqlite.Store
	dir       string
	freeKey   string
	proKey    string
	freeID    int64
	cancelRun context.CancelFunc
	runDone   chan struct{}
}

type serverOption func(*wiring)

func newTestServer(t testing.TB, opts ...serverOption) *testServer {
	t.Helper()
	dir := t.TempDir()
	dataset := realdata.Write(t, dir)
	store, err := sqlite.Open(context.Background(), filepath.Join(dir, "hensachi.db"))
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{store: store, dir: dir}
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
	w := wiring{Config: Config{PublicURL: "https://hensachi.example", Store: ts.store, WatchInterval: time.Hour},
		DatasetPath: dataset, KeyCacheTTL: time.Nanosecond}
	for _, o := range opts {
		o(&w)
	}
	s, err := newWired(w)
	if err != nil {
		t.Fatal(err)
	}
	ts.wired = s
	ts.http = httptest.NewServer(s.Handler())
	ctx, cancel := context.WithCancel(context.Background())
	ts.cancelRun, ts.runDone = cancel, make(chan struct{})
	go func() { s.Run(ctx); close(ts.runDone) }()
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
	ts.wired.Close()
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
