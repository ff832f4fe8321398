package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/app"
	"github.com/hensachi/hensachi/cmd/internal/cli"
	"github.com/hensachi/hensachi/facecall"
	"github.com/hensachi/hensachi/serve"
	"github.com/hensachi/hensachi/uploads"
	"github.com/hensachi/hensachi/web/account"
)

func runServe(ctx context.Context, args []string) error {
	m := NewMain()
	if err := m.ParseFlags(args); err != nil {
		return err
	}
	defer m.Close()
	return m.Run(ctx)
}

// Main is the serve command, after benbjohnson/wtf's cmd/wtfd: ParseFlags reads its settings, Run
// builds the parts only the command has — the face analyzer, the upload store, the store, the
// development login — and hands them to app.Build, which makes the rest (the dataset's read
// model, the quota, the key cache, the web front, the face calls, the server) as the tests do, and
// serves; Close closes the parts in the reverse of the order they were built in.
type Main struct {
	Addr, PublicURL, DebugAddr string
	DatasetPath                string // empty: no statistics service
	Faces                      bool   // run the face service
	UploadsDir                 string // empty: uploads are not kept
	UploadRetention            time.Duration
	KeyCacheTTL                time.Duration
	MaxConns                   int   // connections held open at once
	ExportRate                 int64 // bytes per second the export bodies share; negative: not paced
	AccessLog                  bool
	Limits                     hensachi.Limits
	Login                      account.Config
	DevLogin                   bool

	db      *storeFlags
	face    cli.FaceFlags
	closers []func()
}

// NewMain returns a Main with no part built yet.
func NewMain() *Main { return &Main{} }

// ParseFlags reads the serve command's flags and the environment.
func (m *Main) ParseFlags(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", os.Getenv("HENSACHI_ADDR"), "listen address (env HENSACHI_ADDR; default :8080, or localhost:8080 with -dev-login)")
	dataset := fs.String("dataset", cli.EnvOr("HENSACHI_DATASET", "data/dataset.arrow"), "dataset file built by 'hensachi ingest' (env HENSACHI_DATASET)")
	fs.StringVar(&m.PublicURL, "public-url", os.Getenv("HENSACHI_PUBLIC_URL"), "address clients use to reach this server, for page_url (env HENSACHI_PUBLIC_URL; default http://localhost<addr>)")
	m.db = dbFlag(fs)
	fs.DurationVar(&m.KeyCacheTTL, "key-cache-ttl", 5*time.Second, "how long a key lookup is cached; revocations take effect within it (an unknown key is remembered as unknown for 3s, or this when shorter)")
	fs.BoolVar(&m.AccessLog, "access-log", cli.EnvOr("HENSACHI_ACCESS_LOG", "true") == "true", "log one line per request (env HENSACHI_ACCESS_LOG)")
	services := fs.String("services", cli.EnvOr("HENSACHI_SERVICES", "town,face"), "services this process runs: town, face or both (env HENSACHI_SERVICES)")
	fs.StringVar(&m.UploadsDir, "uploads", cli.EnvOr("HENSACHI_UPLOADS", "data/uploads"), "where uploaded images are kept; empty turns storage off (env HENSACHI_UPLOADS)")
	fs.DurationVar(&m.UploadRetention, "upload-retention", 30*24*time.Hour, "how long an uploaded image is kept")
	m.face = cli.AddFaceFlags(fs)
	lf := addLoginFlags(fs)
	fs.StringVar(&m.DebugAddr, "debug-addr", os.Getenv("HENSACHI_DEBUG_ADDR"), "loopback address serving Go's profiles at /debug/pprof/, e.g. 127.0.0.1:6060; empty: off (env HENSACHI_DEBUG_ADDR)")
	maxConns := fs.String("max-conns", cli.EnvOr("HENSACHI_MAX_CONNS", strconv.Itoa(serve.DefaultMaxConns)), "connections held open at once; past it new ones wait (env HENSACHI_MAX_CONNS)")
	exportRate := fs.String("export-rate", cli.EnvOr("HENSACHI_EXPORT_RATE", strconv.Itoa(serve.DefaultExportRate>>20)),
		"MiB per second all export bodies share, so that downloads cannot crowd out the other calls; 0: not paced (env HENSACHI_EXPORT_RATE)")
	limitSpec := fs.String("limits", os.Getenv("HENSACHI_LIMITS"), "override daily limits, e.g. town.pro=20000,face.free=10 (env HENSACHI_LIMITS)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var err error
	if m.MaxConns, err = strconv.Atoi(*maxConns); err != nil || m.MaxConns < 1 {
		return fmt.Errorf("-max-conns %q: want a positive number", *maxConns)
	}
	mib, err := strconv.ParseInt(*exportRate, 10, 64)
	if err != nil || mib < 0 || mib > 1<<20 {
		return fmt.Errorf("-export-rate %q: want MiB per second, 0 for no pacing", *exportRate)
	}
	m.ExportRate = mib << 20
	if mib == 0 {
		m.ExportRate = -1
	}
	if m.Limits, err = hensachi.ParseLimits(*limitSpec, hensachi.DefaultLimits()); err != nil {
		return err
	}
	m.DevLogin, m.Addr = *lf.devLogin, *addr
	if m.Addr == "" {
		m.Addr = ":8080" // every interface
		if m.DevLogin {
			m.Addr = "localhost:8080" // the development login is refused on any other
		}
	}
	if m.PublicURL == "" {
		m.PublicURL = defaultPublicURL(m.Addr)
	}
	if m.Login, err = lf.config(); err != nil {
		return err
	}
	for _, svc := range strings.Split(*services, ",") {
		switch strings.TrimSpace(svc) {
		case "town":
			m.DatasetPath = *dataset
		case "face":
			m.Faces = true
		default:
			return fmt.Errorf("-services: unknown service %q (town, face)", svc)
		}
	}
	return nil
}

// Run builds the parts and serves until ctx ends; Close closes the parts, also when Run fails.
func (m *Main) Run(ctx context.Context) error {
	// Go's default GOGC: the indicators' standings put some 60 MB of live heap beside the mapped
	// dataset, and GOGC=400, which suited the small heap before them, let it take 276 MiB where
	// the default takes 160 (docs/development.md, The dataset build and the server's memory).
	if os.Getenv("GOMEMLIMIT") == "" {
		// A soft ceiling, so that the collector collects hard before an upload flood takes the
		// process past it (the face service's decoding budget is 512 MiB); GOMEMLIMIT in the
		// environment still wins.
		debug.SetMemoryLimit(768 << 20)
	}
	var faces facecall.Config
	if m.Faces {
		a, err := m.face.Analyzer(true, false)
		if err != nil {
			return fmt.Errorf("face service: %w (or run with -services town)", err)
		}
		m.onClose(a.Close)
		faces.Analyzer, faces.Slots = a, a.Capacity()
		if faces.AgeRanges, err = m.face.AgeRanges(); err != nil {
			return fmt.Errorf("face service: %w (or run with -services town)", err)
		}
		if m.UploadsDir != "" {
			store := &uploads.Store{Dir: m.UploadsDir, Retention: m.UploadRetention}
			go store.RunSweeper(ctx, time.Hour)
			faces.Uploads = store
		}
	}
	store, err := m.db.open(ctx)
	if err != nil {
		return err
	}
	m.onClose(func() { store.Close() })
	if m.DevLogin {
		idp, err := startDevLogin(m.Addr, m.PublicURL, &m.Login)
		if err != nil {
			return err
		}
		m.onClose(func() { idp.Close() })
	}
	srv, err := app.Build(ctx, app.Config{
		Server: serve.Config{Addr: m.Addr, PublicURL: m.PublicURL, Store: store, AccessLog: m.AccessLog, Limits: m.Limits,
			DebugAddr: m.DebugAddr, MaxConns: m.MaxConns, ExportRate: m.ExportRate},
		DatasetPath: m.DatasetPath, KeyCacheTTL: m.KeyCacheTTL, Faces: faces, Login: m.Login})
	if err != nil {
		return err
	}
	m.onClose(srv.Close)
	slog.Info("store", "db", m.db)
	return srv.ListenAndServe(ctx)
}

// defaultPublicURL is where a browser on this machine reaches a server listening on addr.
func defaultPublicURL(addr string) string {
	if strings.HasPrefix(addr, ":") {
		addr = "localhost" + addr
	}
	return "http://" + addr
}

// onClose adds a part's Close to those Close calls.
func (m *Main) onClose(close func()) { m.closers = append(m.closers, close) }

// Close closes the parts Run built, the last built first.
func (m *Main) Close() {
	for i := len(m.closers) - 1; i >= 0; i-- {
		m.closers[i]()
	}
	m.closers = nil
}
