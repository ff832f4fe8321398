package serve

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hensachi/hensachi"
)

// keyFromRequest returns the API key of a request: X-API-Key, or Authorization: Bearer. A request
// that carries two different keys (two X-API-Key fields, or X-API-Key and a Bearer token) is
// refused: which one counts would otherwise depend on the order of its fields. The same key sent
// twice is one key.
func keyFromRequest(r *http.Request) (string, error) {
	var key string
	for _, v := range r.Header["X-Api-Key"] {
		if k := strings.TrimSpace(v); k != "" {
			if key != "" && k != key {
				return "", ambiguousKey
			}
			key = k
		}
	}
	auths := r.Header["Authorization"]
	for _, auth := range auths {
		if auth == "" {
			continue
		}
		scheme, token, ok := strings.Cut(auth, " ")
		token = strings.TrimSpace(token)
		if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
			if key != "" || len(auths) > 1 {
				continue // another scheme beside the key: not a key, so not ambiguous
			}
			return "", hensachi.Errorf(hensachi.EInvalidAPIKey, "the Authorization header must read 'Bearer <API key>'")
		}
		if key != "" && token != key {
			return "", ambiguousKey
		}
		key = token
	}
	if key == "" {
		return "", hensachi.Errorf(hensachi.EMissingAPIKey, "send your API key in the X-API-Key header (or Authorization: Bearer)")
	}
	return key, nil
}

// ambiguousKey refuses a request with two different API keys.
var ambiguousKey = hensachi.Errorf(hensachi.EInvalidParameter,
	"the request carries more than one API key (X-API-Key fields or Authorization: Bearer); send exactly one")

// KeyCache remembers key lookups for a short time, so a request costs no database read; a
// revocation or plan change made elsewhere takes effect within the TTL. The web front tells it of
// the keys it revokes (Forget), so those take effect at once.
type KeyCache struct {
	store hensachi.Store
	ttl   time.Duration

	// entries maps a key's hash to its *keyEntry. Every call reads it, and a sync.Map read writes
	// to no memory that the other cores share, as a lock would; n counts the entries for the bound.
	entries sync.Map
	n       atomic.Int64
}

type keyEntry struct {
	key     hensachi.APIKey
	account hensachi.Account
	err     error // a cached "no such key"
	expires time.Time
}

// maxCachedKeys bounds the cache (give or take the lookups racing the count); a flood of random
// well-formed keys cannot grow it without end.
const maxCachedKeys = 100_000

// NewKeyCache looks keys up in store and remembers each answer for ttl (default 5 s).
func NewKeyCache(store hensachi.Store, ttl time.Duration) *KeyCache {
	if ttl == 0 {
		ttl = 5 * time.Second
	}
	return &KeyCache{store: store, ttl: ttl}
}

// authenticate returns the account of a request's key, with the cache as it stands at now.
func (c *KeyCache) authenticate(ctx context.Context, r *http.Request, now time.Time) (hensachi.Account, error) {
	raw, err := keyFromRequest(r)
	if err != nil {
		return hensachi.Account{}, err
	}
	hash := hensachi.HashAPIKey(raw)
	e, ok := c.cached(hash, now)
	if !ok {
		// only keys that passed the check are cached, so a hit needs no check
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
func (c *KeyCache) cached(hash [32]byte, now time.Time) (*keyEntry, bool) {
	v, ok := c.entries.Load(hash)
	if !ok {
		return nil, false
	}
	e := v.(*keyEntry)
	return e, now.Before(e.expires)
}

// fetch looks a key's hash up in the store and remembers the answer, "no such key" included.
func (c *KeyCache) fetch(ctx context.Context, hash [32]byte, now time.Time) (*keyEntry, error) {
	e := &keyEntry{expires: now.Add(c.ttl)}
	k, a, err := c.store.KeyByHash(ctx, hash)
	switch code := hensachi.ErrorCode(err); {
	case code == hensachi.ENotFound:
		e.err = hensachi.Errorf(hensachi.EInvalidAPIKey, "unknown API key")
	case err != nil:
		slog.ErrorContext(ctx, "look up API key", "err", err)
		return nil, hensachi.Errorf(hensachi.EUnavailable, "the account store is unavailable; try again shortly").RetryIn(5 * time.Second)
	default:
		e.key, e.account = k, a
	}
	if c.n.Load() >= maxCachedKeys {
		c.entries.Clear()
		c.n.Store(0)
	}
	if _, replaced := c.entries.Swap(hash, e); !replaced {
		c.n.Add(1)
	}
	return e, nil
}

// Forget drops cached lookups of keys, so a revocation made here takes effect at once.
func (c *KeyCache) Forget(keys []hensachi.APIKey) {
	for _, k := range keys {
		if _, ok := c.entries.LoadAndDelete(k.Hash); ok {
			c.n.Add(-1)
		}
	}
}
