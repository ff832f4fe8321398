package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/serve"
	"github.com/hensachi/hensachi/uploads"
)

func runServe(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", os.Getenv("HENSACHI_ADDR"), "listen address (env HENSACHI_ADDR; default :8080, or localhost:8080 with -dev-login)")
	dataset := fs.String("dataset", envOr("HENSACHI_DATASET", "data/dataset.arrow"), "dataset file built by 'hensachi ingest' (env HENSACHI_DATASET)")
	publicURL := fs.String("public-url", os.Getenv("HENSACHI_PUBLIC_URL"), "address clients use to reach this server, for page_url (env HENSACHI_PUBLIC_URL; default http://localhost<addr>)")
	db := dbFlag(fs)
	keyTTL := fs.Duration("key-cache-ttl", 5*time.Second, "how long a key lookup is cached; revocations take effect within it")
	accessLog := fs.Bool("access-log", envOr("HENSACHI_ACCESS_LOG", "true") == "true", "log one line per request (env HENSACHI_ACCESS_LOG)")
	services := fs.String("services", envOr("HENSACHI_SERVICES", "town,face"), "services this process runs: town, face or both (env HENSACHI_SERVICES)")
	uploadsDir := fs.String("uploads", envOr("HENSACHI_UPLOADS", "data/uploads"), "where uploaded images are kept; empty turns storage off (env HENSACHI_UPLOADS)")
	retention := fs.Duration("upload-retention", 30*24*time.Hour, "how long an uploaded image is kept")
	ff := addFaceFlags(fs)
	lf := addLoginFlags(fs)
	debugAddr := fs.String("debug-addr", os.Getenv("HENSACHI_DEBUG_ADDR"), "loopback address serving Go's profiles at /debug/pprof/, e.g. 127.0.0.1:6060; empty: off (env HENSACHI_DEBUG_ADDR)")
	limitSpec := fs.String("limits", os.Getenv("HENSACHI_LIMITS"), "override daily limits, e.g. town.pro=20000,face.free=10 (env HENSACHI_LIMITS)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if os.Getenv("GOGC") == "" {
		// The live heap is small (the dataset is mapped, not on the heap), so collecting less often
		// costs little memory and saves CPU on every request; GOGC in the environment still wins.
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// A soft ceiling, so that the lazier collection above still collects hard before an upload
		// flood takes the process past it (the face service's decoding budget is 512 MiB);
		// GOMEMLIMIT in the environment still wins.
		debug.SetMemoryLimit(768 << 20)
	}
	limits, err := hensachi.ParseLimits(*limitSpec, hensachi.DefaultLimits())
	if err != nil {
		return err
	}
	if *addr == "" {
		*addr = ":8080" // every interface
		if *lf.devLogin {
			*addr = "localhost:8080" // the development login is refused on any other
		}
	}
	cfg := serve.Config{Addr: *addr, PublicURL: *publicURL, KeyCacheTTL: *keyTTL, AccessLog: *accessLog, Limits: limits,
		DebugAddr: *debugAddr, DevLogin: *lf.devLogin}
	if cfg.Login, err = lf.config(); err != nil {
		return err
	}
	for _, svc := range strings.Split(*services, ",") {
		switch strings.TrimSpace(svc) {
		case "town":
			cfg.DatasetPath = *dataset
		case "face":
			a, err := ff.analyzer(true)
			if err != nil {
				return fmt.Errorf("face service: %w (or run with -services town)", err)
			}
			defer a.Close()
			cfg.Faces, cfg.FaceSlots = a, a.Capacity()
			if *uploadsDir != "" {
				store := &uploads.Store{Dir: *uploadsDir, Retention: *retention}
				go store.RunSweeper(ctx, time.Hour)
				cfg.Uploads = store
			}
		default:
			return fmt.Errorf("-services: unknown service %q (town, face)", svc)
		}
	}
	store, err := db.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	cfg.Store = store
	srv, err := serve.New(ctx, cfg)
	if err != nil {
		return err
	}
	slog.Info("store", "db", db)
	return srv.ListenAndServe(ctx)
}
