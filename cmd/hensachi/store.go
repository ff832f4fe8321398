package main

import (
	"context"
	"flag"
	"os"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/cmd/internal/cli"
	"github.com/hensachi/hensachi/postgres"
	"github.com/hensachi/hensachi/sqlite"
)

// storeFlags select the store: PostgreSQL when a database URL is given (several server processes
// may share it), else the embedded SQLite file (one process).
type storeFlags struct {
	path, url *string
	leaseTTL  *time.Duration
}

func dbFlag(fs *flag.FlagSet) *storeFlags {
	return &storeFlags{
		path: fs.String("db", cli.EnvOr("HENSACHI_DB", "data/hensachi.db"), "embedded store file (env HENSACHI_DB); not used with -database-url"),
		url: fs.String("database-url", os.Getenv("HENSACHI_DATABASE_URL"),
			"PostgreSQL store shared by replicas, e.g. postgres://user:password@host:5432/hensachi (env HENSACHI_DATABASE_URL; empty: the embedded store at -db)"),
		leaseTTL: fs.Duration("quota-lease-ttl", hensachi.DefaultQuotaLeaseTTL,
			"with -database-url: how long a replica's leased quota outlives its last sync, e.g. after kill -9 (every replica must use the same)"),
	}
}

// open opens the selected store and applies its pending migrations.
func (f *storeFlags) open(ctx context.Context) (hensachi.Store, error) {
	if *f.url != "" {
		s, err := postgres.Open(ctx, *f.url)
		if err != nil {
			return nil, err
		}
		s.SetQuotaLeaseTTL(*f.leaseTTL)
		return s, nil
	}
	return sqlite.Open(ctx, *f.path)
}

// String names the store for the log, without credentials.
func (f *storeFlags) String() string {
	if *f.url != "" {
		return "postgres (-database-url)"
	}
	return "sqlite " + *f.path
}
