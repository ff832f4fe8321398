package serve

import (
	"context"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/storetest"
	"github.com/hensachi/hensachi/sqlite"
)

// countingStore counts the key lookups that reach the store. With knowsNone set it answers every
// lookup as the store answers an unknown key, without the query, for floods of twenty thousand
// keys that SQLite under the race detector would take a minute to refuse.
type countingStore struct {
	hensachi.Store
	lookups   atomic.Int64
	knowsNone atomic.Bool
}

func (s *countingStore) KeyByHash(ctx context.Context, hash [32]byte) (hensachi.APIKey, hensachi.Account, error) {
	s.lookups.Add(1)
	if s.knowsNone.Load() {
		return hensachi.APIKey{}, hensachi.Account{}, hensachi.Errorf(hensachi.ENotFound, "no such key")
	}
	return s.Store.KeyByHash(ctx, hash)
}

func keyedRequest(key string) *http.Request {
	r, _ := http.NewRequest("GET", "/town/v1/meta", nil)
	r.Header.Set("X-API-Key", key)
	return r
}

// TestUnknownKeysCachedNegatively floods a key cache with well-formed keys the store does not
// know and counts the lookups that reach the store: one per key and unknownKeyTTL, however many
// requests repeat it and however many race; a key created meanwhile works once unknownKeyTTL has
// passed; and a flood of distinct unknown keys does not push the known keys out of the cache.
func TestUnknownKeysCachedNegatively(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "hensachi.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	store := &countingStore{Store: db}
	c := NewKeyCache(store, 5*time.Second)
	now := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)

	knownKey, _ := storetest.CreateAccount(t, db, "known@example.com", hensachi.PlanFree)
	if _, err := c.authenticate(ctx, keyedRequest(knownKey), now); err != nil {
		t.Fatal(err)
	}
	store.lookups.Store(0)

	// 10 unknown keys, 2,000 requests from 20 goroutines: 10 lookups
	var unknown []string
	for range 10 {
		k, _ := hensachi.NewAPIKey()
		unknown = append(unknown, k)
	}
	var wg sync.WaitGroup
	var wrong atomic.Int64
	for g := range 20 {
		wg.Go(func() {
			for i := range 100 {
				_, err := c.authenticate(ctx, keyedRequest(unknown[(g+i)%len(unknown)]), now)
				if hensachi.ErrorCode(err) != hensachi.EInvalidAPIKey {
					wrong.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if n := store.lookups.Load(); n != int64(len(unknown)) || wrong.Load() != 0 {
		t.Errorf("2,000 requests with %d unknown keys: %d store lookups, %d not invalid_api_key", len(unknown), n, wrong.Load())
	}

	// a key refused as unknown, then created: refused within unknownKeyTTL, accepted after it
	newKey, stored := hensachi.NewAPIKey()
	if _, err := c.authenticate(ctx, keyedRequest(newKey), now); hensachi.ErrorCode(err) != hensachi.EInvalidAPIKey {
		t.Fatalf("new key before it exists: %v", err)
	}
	if _, _, err := db.CreateAccount(ctx, hensachi.Account{Email: "new@example.com", Plan: hensachi.PlanFree}, stored); err != nil {
		t.Fatal(err)
	}
	if _, err := c.authenticate(ctx, keyedRequest(newKey), now.Add(unknownKeyTTL/2)); hensachi.ErrorCode(err) != hensachi.EInvalidAPIKey {
		t.Errorf("new key within unknownKeyTTL: %v, want the cached invalid_api_key", err)
	}
	if a, err := c.authenticate(ctx, keyedRequest(newKey), now.Add(unknownKeyTTL)); err != nil || a.Email != "new@example.com" {
		t.Errorf("new key after unknownKeyTTL: %+v, %v", a, err)
	}

	// more distinct unknown keys than the bound: the known key is still cached
	store.knowsNone.Store(true)
	for range maxUnknownKeys + 100 {
		k, _ := hensachi.NewAPIKey()
		c.authenticate(ctx, keyedRequest(k), now)
	}
	before := store.lookups.Load()
	if _, err := c.authenticate(ctx, keyedRequest(knownKey), now.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if n := store.lookups.Load() - before; n != 0 {
		t.Errorf("known key after a flood of unknown ones: %d store lookups, want 0 (cached)", n)
	}
	if n := c.nUnknown.Load(); n > maxUnknownKeys {
		t.Errorf("%d unknown keys remembered, bound %d", n, maxUnknownKeys)
	}
}
