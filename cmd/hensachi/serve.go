package main

import (
	"context"
	"flag"
	"log/slog"
	"os"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/serve"
)

func runServe(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", envOr("HENSACHI_ADDR", ":8080"), "listen address (env HENSACHI_ADDR)")
	dataset := fs.String("dataset", envOr("HENSACHI_DATASET", "data/dataset.arrow"), "dataset file built by 'hensachi ingest' (env HENSACHI_DATASET)")
	publicURL := fs.String("public-url", os.Getenv("HENSACHI_PUBLIC_URL"), "address clients use to reach this server, for page_url (env HENSACHI_PUBLIC_URL; default http://localhost<addr>)")
	db := dbFlag(fs)
	keyTTL := fs.Duration("key-cache-ttl", 5*time.Second, "how long a key lookup is cached; revocations take effect within it")
	accessLog := fs.Bool("access-log", envOr("HENSACHI_ACCESS_LOG", "true") == "true", "log one line per request (env HENSACHI_ACCESS_LOG)")
	limitSpec := fs.String("limits", os.Getenv("HENSACHI_LIMITS"), "override daily limits, e.g. town.pro=20000,face.free=10 (env HENSACHI_LIMITS)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	limits, err := hensachi.ParseLimits(*limitSpec, hensachi.DefaultLimits())
	if err != nil {
		return err
	}
	store, err := openStore(ctx, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	srv, err := serve.New(ctx, serve.Config{Addr: *addr, DatasetPath: *dataset, PublicURL: *publicURL, Store: store,
		KeyCacheTTL: *keyTTL, AccessLog: *accessLog, Limits: limits})
	if err != nil {
		return err
	}
	slog.Info("store", "db", *db)
	return srv.ListenAndServe(ctx)
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
