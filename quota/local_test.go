package quota

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/sqlite"
)

func TestLocalFlushRetriesAfterFailure(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "hensachi.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, key := hensachi.NewAPIKey()
	acct, _, err := db.CreateAccount(ctx, hensachi.Account{Email: "flush@example.com", Plan: hensachi.PlanFree}, key)
	if err != nil {
		t.Fatal(err)
	}
	day := hensachi.Day(time.Now())
	if err := db.AddUsage(ctx, []hensachi.Usage{{UsageKey: hensachi.UsageKey{Day: day, AccountID: acct.ID, Service: hensachi.ServiceTown}, Count: 1}}); err != nil {
		t.Fatal(err)
	}
	store := &failingStore{Store: db}
	m, err := NewLocal(ctx, store, hensachi.DefaultLimits(), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		res, err := m.Reserve(ctx, acct, hensachi.ServiceTown)
		if err != nil {
			t.Fatal(err)
		}
		res.Commit()
	}
	res, _ := m.Reserve(ctx, acct, hensachi.ServiceTown)
	res.Release() // a failed call: not counted
	store.fail.Store(true)
	if err := m.Flush(ctx); err == nil {
		t.Fatal("flush to a failing store succeeded")
	}
	store.fail.Store(false)
	if err := m.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	usage, _ := db.Usage(ctx, day, acct.ID)
	if len(usage) != 1 || usage[0].Count != 4 {
		t.Errorf("stored %+v, want 4 (1 before, 3 after a failed flush)", usage)
	}
}

type failingStore struct {
	hensachi.Store
	fail atomic.Bool
}

func (f *failingStore) AddUsage(ctx context.Context, d []hensachi.Usage) error {
	if f.fail.Load() {
		return hensachi.Errorf(hensachi.EUnavailable, "store down")
	}
	return f.Store.AddUsage(ctx, d)
}

// TestLocalBusyIsNotLimit: units held by calls in progress refuse with 503 and a short
// Retry-After; only successes that fill the limit give 429 with Retry-After to midnight.
func TestLocalBusyIsNotLimit(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "hensachi.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, hensachi.Tokyo)
	m, err := NewLocal(ctx, db, hensachi.Limits{hensachi.PlanFree: {hensachi.ServiceTown: 2}}, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	acct := hensachi.Account{ID: 1, Plan: hensachi.PlanFree}
	first, _ := m.Reserve(ctx, acct, hensachi.ServiceTown)
	second, _ := m.Reserve(ctx, acct, hensachi.ServiceTown)
	_, err = m.Reserve(ctx, acct, hensachi.ServiceTown)
	var e *hensachi.Error
	if !errors.As(err, &e) || e.Code != hensachi.EOverloaded || e.RetryAfter != time.Second {
		t.Fatalf("with both units in calls: %v, want overloaded, retry in 1s", err)
	}
	first.Release() // that call failed: its unit is free again
	if third, err := m.Reserve(ctx, acct, hensachi.ServiceTown); err != nil {
		t.Fatalf("after a failed call gave its unit back: %v", err)
	} else {
		third.Commit()
	}
	second.Commit()
	_, err = m.Reserve(ctx, acct, hensachi.ServiceTown)
	if !errors.As(err, &e) || e.Code != hensachi.EDailyLimitExceeded || e.RetryAfter != 12*time.Hour {
		t.Fatalf("with the limit used: %v, want daily limit, retry at midnight", err)
	}
}
