package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/storetest"
	"github.com/hensachi/hensachi/sqlite"
)

func TestStore(t *testing.T) {
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
