package serve

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/hensachi/hensachi"
)

// keyFromRequest returns the API key of a request: X-API-Key, or Authorization: Bearer.
func keyFromRequest(r *http.Request) (string, error) {
	if k := headerValue(r.Header, "X-Api-Key"); k != "" {
		return strings.TrimSpace(k), nil
	}
	if auth := headerValue(r.Header, "Authorization"); auth != "" {
		scheme, token, ok := strings.Cut(auth, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
			return "", hensachi.Errorf(hensachi.EInvalidAPIKey, "the Authorization header must read 'Bearer <API key>'")
		}
		return strings.TrimSpace(token), nil
	}
	return "", hensachi.Errorf(hensachi.EMissingAPIKey, "send your API key in the X-API-Key header (or Authorization: Bearer)")
}

// keyCache remembers key lookups for a short time, so a request costs no database read; a
// revocation or plan change made elsewhere takes effect within the TTL.
type keyCache struct {
	store hensachi.Store
	ttl   time.Duration

	mu      sync.Mutex
	entries map[[32]byte]keyEntry
}

type keyEntry struct {
	key     hensachi.APIKey
	account hensachi.Account
	err     error // a cached "no such key"
	expires time.Time
}

// maxCachedKeys bounds the cache; a flood of random well-formed keys cannot grow it without end.
const maxCachedKeys = 100_000

func newKeyCache(store hensachi.Store, ttl time.Duration) *keyCache {
	return &keyCache{store: store, ttl: ttl, entries: map[[32]byte]keyEntry{}}
}

// authenticate returns the account of a request's key, with the cache as it stands at now.
func (c *keyCache) authenticate(ctx context.Context, r *http.Request, now time.Time) (hensachi.Account, error) {
	raw, err := keyFromRequest(r)
	if err != nil {
		return hensachi.Account{}, err
	}
	hash := hensachi.HashAPIKey(raw)
	e, ok := c.cached(hash, now)
	if !ok {
		// only keys that passed the check are cached, so it runs on a miss, before the store is
		// asked: the checksum costs more than the hash
		if !hensachi.CheckAPIKey(raw) {
			return hensachi.Account{}, hensachi.Errorf(hensachi.EInvalidAPIKey, "this is not a valid API key")
		}
		if e, err = c.fetch(ctx, hash, now); err != nil {
			return hensachi.Account{}, err
		}
	}
	switch {
	case e.err != nil:
		return hensachi.Account{}, e.err
	case e.key.Revoked():
		return hensachi.Account{}, hensachi.Errorf(hensachi.ERevokedAPIKey, "this API key was revoked; use the account's current key")
	}
	return e.account, nil
}

// cached returns the lookup of a key's hash remembered and not expired at now.
func (c *keyCache) cached(hash [32]byte, now time.Time) (keyEntry, bool) {
	c.mu.Lock()
	e, ok := c.entries[hash]
	c.mu.Unlock()
	return e, ok && now.Before(e.expires)
}

// fetch looks a key's hash up in the store and remembers the answer, "no such key" included.
func (c *keyCache) fetch(ctx context.Context, hash [32]byte, now time.Time) (keyEntry, error) {
	var e keyEntry
	k, a, err := c.store.KeyByHash(ctx, hash)
	switch code := hensachi.ErrorCode(err); {
	case code == hensachi.ENotFound:
		e = keyEntry{err: hensachi.Errorf(hensachi.EInvalidAPIKey, "unknown API key")}
	case err != nil:
		slog.ErrorContext(ctx, "look up API key", "err", err)
		return keyEntry{}, hensachi.Errorf(hensachi.EUnavailable, "the account store is unavailable; try again shortly").RetryIn(5 * time.Second)
	default:
		e = keyEntry{key: k, account: a}
	}
	e.expires = now.Add(c.ttl)
	c.mu.Lock()
	if len(c.entries) >= maxCachedKeys {
		clear(c.entries)
	}
	c.entries[hash] = e
	c.mu.Unlock()
	return e, nil
}

// forget drops cached lookups of keys, so a revocation made here takes effect at once.
func (c *keyCache) forget(keys []hensachi.APIKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		delete(c.entries, k.Hash)
	}
}
