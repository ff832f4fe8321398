package postgres_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/pgtest"
	"github.com/hensachi/hensachi/internal/testrig/storetest"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
	"github.com/hensachi/hensachi/postgres"
)

func open(t testing.TB, dsn string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStore(t *testing.T) {
	base := testenv.PostgresURL(t)
	storetest.Run(t, func(t *testing.T) hensachi.Store { return open(t, pgtest.Schema(t, base)) })
}

// TestMigrations: both stores have the same migration versions, so a schema change made to one
// is made to the other; migrations run once, concurrent start-ups do not race, and data survives
// reopening.
func TestMigrations(t *testing.T) {
	versions := func(dir string) []string {
		names, err := filepath.Glob(filepath.Join(dir, "*.sql"))
		if err != nil || len(names) == 0 {
			t.Fatalf("migrations in %s: %v, %v", dir, names, err)
		}
		for i, n := range names {
			names[i] = filepath.Base(n)
		}
		slices.Sort(names)
		return names
	}
	if pg, lite := versions("migrations"), versions("../sqlite/migrations"); !slices.Equal(pg, lite) {
		t.Errorf("PostgreSQL migrations %v, embedded store's %v: every version needs both dialects", pg, lite)
	}

	dsn := pgtest.Schema(t, testenv.PostgresURL(t))
	ctx := context.Background()
	var wg sync.WaitGroup
	stores := make([]*postgres.Store, 4) // replicas starting at the same moment
	errs := make([]error, len(stores))
	for i := range stores {
		wg.Go(func() { stores[i], errs[i] = postgres.Open(ctx, dsn) })
	}
	wg.Wait()
	for i, s := range stores {
		if errs[i] != nil {
			t.Fatalf("concurrent open %d: %v", i, errs[i])
		}
		s.Close()
	}
	s := open(t, dsn)
	_, stored := hensachi.NewAPIKey()
	if _, _, err := s.CreateAccount(ctx, hensachi.Account{Email: "r@example.com", Plan: hensachi.PlanFree}, stored); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = open(t, dsn)
	if _, err := s.AccountByEmail(ctx, "r@example.com"); err != nil {
		t.Errorf("after reopening: %v", err)
	}
}

// TestDatabaseAway stops the server under an open store: calls fail quickly with EUnavailable (the
// HTTP layer's 503), a failed lease says whether it changed nothing, and the same store works
// again once the server is back, without being reopened.
func TestDatabaseAway(t *testing.T) {
	c := pgtest.NewCluster(t)
	ctx := context.Background()
	s := open(t, c.URL)
	key, stored := hensachi.NewAPIKey()
	a, _, err := s.CreateAccount(ctx, hensachi.Account{Email: "away@example.com", Plan: hensachi.PlanFree}, stored)
	if err != nil {
		t.Fatal(err)
	}
	counter := hensachi.UsageKey{AccountID: a.ID, Service: hensachi.ServiceTown, Day: "2026-11-22"}
	if _, err := s.SyncQuota(ctx, "test", []hensachi.QuotaSync{{UsageKey: counter, Want: 5, Limit: 100}}); err != nil {
		t.Fatal(err)
	}

	c.Stop(t)
	start := time.Now()
	for name, call := range map[string]func() error{
		"ping": func() error { return s.Ping(ctx) },
		"key":  func() error { _, _, err := s.KeyByHash(ctx, hensachi.HashAPIKey(key)); return err },
		"sync quota": func() error {
			_, err := s.SyncQuota(ctx, "test", []hensachi.QuotaSync{{UsageKey: counter, Used: 2}})
			return err
		},
	} {
		err := call()
		if hensachi.ErrorCode(err) != hensachi.EUnavailable {
			t.Errorf("%s with the server stopped: %v (code %q), want %s", name, err, hensachi.ErrorCode(err), hensachi.EUnavailable)
		}
		if name == "sync quota" && !errors.Is(err, hensachi.ErrQuotaUnchanged) {
			t.Errorf("a sync that could not connect does not say it changed nothing: %v", err)
		}
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("failing calls took %v", d)
	}

	c.Start(t)
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("ping after the server's return: %v", err)
	}
	if _, _, err := s.KeyByHash(ctx, hensachi.HashAPIKey(key)); err != nil {
		t.Errorf("the key after the server's return: %v", err)
	}
	st, err := s.SyncQuota(ctx, "test", []hensachi.QuotaSync{{UsageKey: counter, Used: 2, Returned: 3}})
	if err != nil || st[0] != (hensachi.QuotaState{Count: 2, Leased: 0}) {
		t.Errorf("sync after the server's return: %+v, %v; want count 2, nothing leased", st, err)
	}
}

// TestBadURL: a malformed URL is refused before any connection, and the error does not show the
// password.
func TestBadURL(t *testing.T) {
	_, err := postgres.Open(context.Background(), "postgres://user:s3cret@127.0.0.1:notaport/db")
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("Open(bad URL) = %v", err)
	}
}
