package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/storetest"
	"github.com/hensachi/hensachi/sqlite"
)

func TestStore(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) hensachi.Store {
		s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "test.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// TestReopen: migrations run once, and data survives closing and reopening the file.
func TestReopen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "test.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	_, stored := hensachi.NewAPIKey()
	if _, _, err := s.CreateAccount(ctx, hensachi.Account{Email: "r@example.com", Plan: hensachi.PlanFree}, stored); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = sqlite.Open(ctx, path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	if _, err := s.AccountByEmail(ctx, "r@example.com"); err != nil {
		t.Errorf("after reopening: %v", err)
	}
}

func createAccount(t *testing.T, s *sqlite.Store, email string) {
	t.Helper()
	_, stored := hensachi.NewAPIKey()
	if _, _, err := s.CreateAccount(context.Background(), hensachi.Account{Email: email, Plan: hensachi.PlanFree}, stored); err != nil {
		t.Fatal(err)
	}
}

// TestStartChecks: a store is refused at start when its database file is gone while its
// write-ahead log is there (an empty store would drop every account), or when the file fails the
// integrity check.
func TestStartChecks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	orphan := filepath.Join(dir, "orphan.db")
	if err := os.WriteFile(orphan+"-wal", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := sqlite.Open(ctx, orphan); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("a log without its database: %v", err)
		if s != nil {
			s.Close()
		}
	}

	damaged := filepath.Join(dir, "damaged.db")
	s, err := sqlite.Open(ctx, damaged)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		createAccount(t, s, fmt.Sprintf("a%d@example.com", i))
	}
	s.Close()
	b, err := os.ReadFile(damaged)
	if err != nil {
		t.Fatal(err)
	}
	for i := 4096 + 100; i < len(b); i += 97 { // every page but the header's, here and there
		b[i] ^= 0x5a
	}
	if err := os.WriteFile(damaged, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := sqlite.Open(ctx, damaged); err == nil {
		t.Error("a damaged database was opened")
		s.Close()
	} else {
		t.Logf("refused: %v", err)
	}
}

// TestLostFilesReported: deleting the database's write-ahead log or the database itself under a
// running store makes Ping (which /readyz calls) fail, naming the file, and it stays failed.
func TestLostFilesReported(t *testing.T) {
	t.Parallel()
	for _, suffix := range []string{"-wal", ""} {
		t.Run("db"+suffix, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "test.db")
			s, err := sqlite.Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var clock fakeClock
			s.SetClock(clock.Now)
			createAccount(t, s, "before@example.com")
			if err := s.Ping(ctx); err != nil {
				t.Fatalf("with its files: %v", err)
			}
			if err := os.Remove(path + suffix); err != nil {
				t.Fatal(err)
			}
			if err := s.Ping(ctx); err != nil {
				t.Fatalf("Ping listed the open files again within a second: %v", err)
			}
			clock.Advance(time.Second) // Ping lists the open files once a second at most
			err = s.Ping(ctx)
			if err == nil || !strings.Contains(err.Error(), "test.db"+suffix+" was deleted") {
				t.Fatalf("after deleting test.db%s: %v", suffix, err)
			}
			createAccount(t, s, "after@example.com") // SQLite goes on, into the lost file
			clock.Advance(time.Second)
			if err := s.Ping(ctx); err == nil {
				t.Error("the loss is forgotten")
			}
		})
	}
}

// fakeClock stands still until Advance moves it, so that a test skips a wait instead of sleeping
// through it.
type fakeClock struct{ ahead atomic.Int64 }

var clockStart = time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)

func (c *fakeClock) Now() time.Time          { return clockStart.Add(time.Duration(c.ahead.Load())) }
func (c *fakeClock) Advance(d time.Duration) { c.ahead.Add(int64(d)) }
