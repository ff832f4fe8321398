// Package serve is the HTTP server of both services: routing, API keys, daily limits, the
// statistics handlers over the dataset's read model (package town), the face API over the face
// calls (package facecall), health, metrics and the OpenAPI document. It routes the web front's
// pages too, but builds none of the parts it serves: cmd/hensachi wires them.
package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/facecall"
	"github.com/hensachi/hensachi/internal/negotiate"
	"github.com/hensachi/hensachi/internal/param"
	"github.com/hensachi/hensachi/town"
)

// Config configures a Server. The server builds none of its parts: the caller (cmd/hensachi's
// Main) makes the store, the key cache, the quota, the dataset's read model, the face calls and
// the web front, and closes them after the server has stopped. The zero value of each optional
// field picks a safe default.
type Config struct {
	Addr      string // listen address, e.g. ":8080"
	PublicURL string // how clients reach this server, for the log
	// Store is the account store, which /readyz checks.
	Store hensachi.Store
	Keys  *KeyCache
	Quota *Quota
	// Catalogs is the statistics service's read model of the dataset being served; nil means this
	// process does not run that service (e.g. a machine dedicated to face inference). The server
	// watches its file for replacement.
	Catalogs *town.Catalogs
	// Faces runs face calls; nil means this process does not run the face service.
	Faces *facecall.Service
	// Pages are the web front, routed and instrumented as the API is.
	Pages []Pages
	// WatchInterval is how often the dataset file is checked for replacement, and the store's
	// health (its database and files) for the log and /metrics.
	WatchInterval time.Duration
	AccessLog     bool
	Limits        hensachi.Limits // the quota's, for the RateLimit fields; default: hensachi.DefaultLimits()
	Now           func() time.Time
	// DebugAddr, when set, serves Go's profiles (net/http/pprof) on this loopback address.
	DebugAddr string
	// MaxConns caps the connections ListenAndServe holds open at once; past it new ones wait in
	// the listen backlog. Default DefaultMaxConns (4096).
	MaxConns int
	// UploadPace is how fast a face call's upload must arrive; zero: DefaultUploadPace.
	UploadPace UploadPace
	// ExportRate is the bytes per second all export bodies share (pace.go); zero:
	// DefaultExportRate, negative: not paced.
	ExportRate int64
}

// Pages serves a part of the web front through the server's instrumented handle: site.Site (the
// public pages) and account.Pages (login, account and demo) are the two.
type Pages interface {
	Routes(handle func(method, path string, h httprouter.Handle))
}

// Server serves the APIs.
type Server struct {
	cfg      Config
	now      func() time.Time
	keys     *KeyCache
	quota    *Quota
	catalogs *town.Catalogs    // nil: no statistics service
	faces    *facecall.Service // nil: no face service
	metrics  *metrics
	exports  *pacer // the export bodies' budget; nil: not paced
	router   *httprouter.Router
	handler  http.Handler
	policies sync.Map // daily limit → its RateLimit-Policy header value
	// storeDown: the store's last check failed (a database away, a file of it lost)
	storeDown atomic.Bool
	// registered lists the routes in the order they were registered, HEAD left out (every GET
	// answers it) and OPTIONS too (the router answers it for every path), for the document's tests
	registered []route
}

type route struct{ method, path string }

// New builds the routes over the parts in cfg.
func New(cfg Config) (*Server, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.WatchInterval == 0 {
		cfg.WatchInterval = 2 * time.Second
	}
	if cfg.Limits == nil {
		cfg.Limits = hensachi.DefaultLimits()
	}
	if cfg.UploadPace == (UploadPace{}) {
		cfg.UploadPace = DefaultUploadPace
	}
	if cfg.ExportRate == 0 {
		cfg.ExportRate = DefaultExportRate
	}
	switch {
	case cfg.Catalogs == nil && cfg.Faces == nil:
		return nil, errors.New("no service to run: give a dataset, face calls or both")
	case cfg.Store == nil || cfg.Keys == nil || cfg.Quota == nil:
		return nil, errors.New("a server needs a store, a key cache and a quota")
	}
	s := &Server{cfg: cfg, now: cfg.Now, keys: cfg.Keys, quota: cfg.Quota, catalogs: cfg.Catalogs, faces: cfg.Faces}
	s.metrics = newMetrics(s)
	s.exports = newPacer(cfg.ExportRate)
	s.routes()
	return s, nil
}

func (s *Server) routes() {
	r := httprouter.New()
	r.RedirectTrailingSlash = false // an API answers the path it is given
	r.RedirectFixedPath = false
	r.HandleMethodNotAllowed = true
	handle := func(method, path string, h httprouter.Handle) {
		s.registered = append(s.registered, route{method, path})
		h = s.instrument(path, h)
		r.Handle(method, path, h)
		if method == http.MethodGet { // RFC 9110 §9.3.2: HEAD is GET without the body, which net/http drops
			r.Handle(http.MethodHead, path, h)
		}
	}
	if s.catalogs != nil {
		stats := func(path string, h apiHandler) {
			handle(http.MethodGet, "/town/v1"+path, cors(s.keyed(hensachi.ServiceTown, h)))
		}
		stats("/municipalities/:code", s.getMunicipality)
		stats("/municipalities/:code/similar", s.getSimilar)
		stats("/compare", s.getCompare)
		stats("/export", s.getExport)
		stats("/municipalities", s.listMunicipalities)
		stats("/rankings/:axis", s.getRanking)
		stats("/meta", s.getMeta)
		stats("/peer-groups", s.listPeerGroups)
		stats("/indicators", s.listIndicators)
		stats("/indicators/:key", s.getIndicatorRanking)
		stats("/municipalities/:code/indicators", s.getMunicipalityIndicators)
		stats("/export/series", s.getSeriesExport)
	}
	if s.faces != nil {
		handle(http.MethodPost, "/face/v1/predict", cors(s.keyed(hensachi.ServiceFace, s.predict)))
	}

	for _, p := range s.cfg.Pages {
		p.Routes(handle)
	}

	plain := func(path string, h http.HandlerFunc) {
		handle(http.MethodGet, path, func(w http.ResponseWriter, req *http.Request, _ httprouter.Params) { h(w, req) })
	}
	plain("/healthz", s.healthz)
	plain("/readyz", s.readyz)
	handle(http.MethodGet, "/openapi.json", cors(func(w http.ResponseWriter, req *http.Request, _ httprouter.Params) { serveOpenAPI(w, req) }))
	plain("/metrics", s.metrics.ServeHTTP)
	handle(http.MethodGet, "/problems/:code", func(w http.ResponseWriter, req *http.Request, ps httprouter.Params) {
		serveProblemDoc(w, req, ps.ByName("code"))
	})

	r.GlobalOPTIONS = unrouted(s.instrument("(options)", func(w http.ResponseWriter, req *http.Request, _ httprouter.Params) {
		preflight(w, req)
	}))
	// a page's script sees why its call failed, a route missing or a method refused; a browser
	// that follows a wrong link outside the API gets the web front's page instead
	notFoundPage := s.notFoundPage()
	r.NotFound = unrouted(s.instrument("(none)", corsRefusal(func(w http.ResponseWriter, req *http.Request, _ httprouter.Params) {
		if notFoundPage != nil && !isAPIPath(req.URL.Path) && negotiate.WantsPage(req) {
			notFoundPage(w, req)
			return
		}
		writeError(w, req, hensachi.Errorf(hensachi.ENotFound, "no route %s %s", req.Method, param.Truncate(req.URL.Path)))
	})))
	r.MethodNotAllowed = unrouted(s.instrument("(method not allowed)", corsRefusal(func(w http.ResponseWriter, req *http.Request, _ httprouter.Params) {
		writeError(w, req, hensachi.Errorf(hensachi.EMethodNotAllowed, "%s is not allowed here; allowed: %s", req.Method, w.Header().Get("Allow")))
	})))
	r.PanicHandler = func(w http.ResponseWriter, req *http.Request, p any) {
		// only reached for panics outside instrument, which recovers its own
		slog.Error("panic outside a route", "panic", p)
		writeError(w, req, hensachi.Errorf(hensachi.EInternal, "panic"))
	}
	s.router = r
	s.handler = r
}

// notFoundPage is the not-found page of the first of the Pages that has one.
func (s *Server) notFoundPage() http.HandlerFunc {
	for _, p := range s.cfg.Pages {
		if nf, ok := p.(interface {
			NotFound(http.ResponseWriter, *http.Request)
		}); ok {
			return nf.NotFound
		}
	}
	return nil
}

// isAPIPath reports whether a path is the APIs' or their documents', which answer problem+json
// whoever asks.
func isAPIPath(path string) bool {
	for _, prefix := range []string{"/town/v1/", "/face/v1/", "/problems/"} {
		if strings.HasPrefix(path, prefix) {
			return true
		}
	}
	return false
}

// unrouted adapts a route handler to the router's fallbacks, which have no parameters.
func unrouted(h httprouter.Handle) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h(w, r, nil) })
}

// Handler returns the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte("ok\n"))
}

// readyz reports ready when the dataset is mapped and the store answers with its files in place
// (503 naming what is not); ready but degraded (200, "degraded" and why) while face calls are
// answered but their uploads cannot be kept, or while the dataset has no usable boundaries and the
// maps are off: taking the server out of rotation for either would turn a full disk or a damaged
// boundary file into an outage of everything else.
func (s *Server) readyz(w http.ResponseWriter, _ *http.Request) {
	var problems, degraded []string
	if s.catalogs != nil {
		c, err := s.catalogs.Catalog()
		if err != nil {
			problems = append(problems, "dataset: not loaded")
		} else if _, err := c.Boundaries(); err != nil {
			degraded = append(degraded, "maps: off: "+err.Error())
		}
	}
	if err := s.checkStore(); err != nil {
		problems = append(problems, "store: "+err.Error())
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if len(problems) > 0 {
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(strings.Join(problems, "\n") + "\n"))
		return
	}
	if s.faces != nil {
		if n, err := s.faces.UploadsNotKept(); err != nil {
			degraded = append(degraded, fmt.Sprintf("uploads: not kept (%d since the start): %v", n, err))
		}
	}
	if len(degraded) > 0 {
		w.Write([]byte("degraded\n" + strings.Join(degraded, "\n") + "\n"))
		return
	}
	w.Write([]byte("ready\n"))
}

// checkStore pings the store, which checks its files too, for /readyz and every WatchInterval: it
// sets hensachi_store_up and logs when the store starts failing (an error) and when it is back.
func (s *Server) checkStore() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.cfg.Store.Ping(ctx)
	switch {
	case err != nil && !s.storeDown.Swap(true):
		slog.Error("the store fails its check: /readyz answers 503 until it passes", "err", err)
	case err == nil && s.storeDown.Swap(false):
		slog.Info("the store passes its check again")
	}
	return err
}

// watchStore checks the store every interval until ctx ends, so that a lost file is reported even
// where nothing polls /readyz.
func (s *Server) watchStore(ctx context.Context, interval time.Duration) {
	for ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-time.After(interval):
			s.checkStore()
		}
	}
}

// Run starts the background work — flushing usage counts, watching the dataset file and SIGHUP,
// checking the store —
// and returns when ctx ends, after a final flush. It does not serve HTTP; see ListenAndServe.
func (s *Server) Run(ctx context.Context) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	done := make(chan struct{})
	go func() {
		if s.catalogs != nil {
			s.catalogs.Watch(ctx, hup, s.cfg.WatchInterval)
		}
		close(done)
	}()
	storeDone := make(chan struct{})
	go func() { s.watchStore(ctx, s.cfg.WatchInterval); close(storeDone) }()
	s.quota.Run(ctx)
	<-done
	<-storeDone
}

// httpServer is the HTTP server ListenAndServe runs, with its limits; it serves apiListener's
// connections.
func (s *Server) httpServer() *http.Server {
	return &http.Server{
		Addr:              s.cfg.Addr,
		Handler:           s.handler,
		ReadHeaderTimeout: 5 * time.Second,  // slow-loris clients cannot hold a connection
		ReadTimeout:       60 * time.Second, // a 10 MiB upload on a slow line (a face call's upload keeps its own pace)
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    32 << 10,
		ErrorLog:          slog.NewLogLogger(slog.Default().Handler(), slog.LevelWarn),
	}
}

// ListenAndServe serves until ctx ends, then shuts down gracefully: it stops accepting, lets
// requests in flight finish (up to 20 s) and writes the usage counts. The caller then closes the
// parts, the dataset among them.
func (s *Server) ListenAndServe(ctx context.Context) error {
	srv := s.httpServer()
	bg, stopBG := context.WithCancel(context.Background())
	runDone := make(chan struct{})
	go func() { s.Run(bg); close(runDone) }()

	ln, err := net.Listen("tcp", srv.Addr)
	if err == nil && s.cfg.DebugAddr != "" {
		var debug net.Listener
		if debug, err = listenDebug(s.cfg.DebugAddr); err == nil {
			defer debug.Close()
		} else {
			ln.Close()
		}
	}
	if err != nil {
		stopBG()
		<-runDone
		return err
	}
	errc := make(chan error, 1)
	go func() { errc <- serveAPI(srv, newCappedListener(ln, s.cfg.MaxConns)) }()
	slog.Info("listening", "addr", ln.Addr().String(), "public_url", s.cfg.PublicURL)
	select {
	case err = <-errc:
	case <-ctx.Done():
		slog.Info("shutting down")
		sctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		err = srv.Shutdown(sctx)
		cancel()
	}
	stopBG()
	<-runDone
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}
