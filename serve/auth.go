package serve

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

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
				return "", ambiguousKey("X-API-Key")
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
			return "", ambiguousKey("Authorization")
		}
		key = token
	}
	if key == "" {
		return "", hensachi.Errorf(hensachi.EMissingAPIKey, "send your API key in the X-API-Key header (or Authorization: Bearer)")
	}
	return key, nil
}

// ambiguousKey refuses a request with two different API keys, naming in param the header field
// that brought the second.
func ambiguousKey(field string) error {
	return hensachi.ParamError(field, "the request carries more than one API key (X-API-Key fields or Authorization: Bearer); send exactly one")
}

// KeyCache remembers key lookups for a short time, so a request costs no database read; a
// revocation or plan change made elsewhere takes effect within the TTL. The web front tells it of
// the keys it revokes (Forget), so those take effect at once.
//
// Keys the store does not know (but that pass the checksum, so were made to look real) are
// remembered apart, for a shorter time and in a smaller, separately bounded set: a client that
// repeats unknown keys costs one lookup per key and unknownKeyTTL, and a flood of them can neither
// push the known keys out of the cache nor hold a key created meanwhile off for long. Lookups of
// one key that race share one store read.
type KeyCache struct {
	store      hensachi.Store
	ttl        time.Duration
	unknownTTL time.Duration

	// entries maps a key's hash to its *keyEntry. Every call reads it, and a sync.Map read writes
	// to no memory that the other cores share, as a lock would; n counts the entries for the bound.
	entries sync.Map
	n       atomic.Int64
	// unknown maps the hash of a key the store does not know to when that answer expires.
	unknown  sync.Map
	nUnknown atomic.Int64

	// lookups makes callers that race for one key share one store read.
	lookups singleflight.Group
}

type keyEntry struct {
	key     hensachi.APIKey
	account hensachi.Account
	err     error // a cached "no such key"
	expires time.Time
}

// maxCachedKeys bounds the cache of known keys (give or take the lookups racing the count);
// maxUnknownKeys bounds the unknown ones, which a flood of random well-formed keys fills. Either
// set is emptied when it reaches its bound, the other is kept.
const (
	maxCachedKeys  = 100_000
	maxUnknownKeys = 20_000
)

// unknownKeyTTL is how long a key the store did not know stays unknown: a key created meanwhile
// (in another process, or here before it was ever tried) works at the latest this long after it
// was first refused.
const unknownKeyTTL = 3 * time.Second

// errUnknownKey is the answer to a key the store does not know.
var errUnknownKey = hensachi.Errorf(hensachi.EInvalidAPIKey, "unknown API key")

// NewKeyCache looks keys up in store and remembers each answer for ttl (default 5 s); a key the
// store does not know is remembered as unknown for unknownKeyTTL (3 s), or ttl when shorter.
func NewKeyCache(store hensachi.Store, ttl time.Duration) *KeyCache {
	if ttl == 0 {
		ttl = 5 * time.Second
	}
	return &KeyCache{store: store, ttl: ttl, unknownTTL: min(ttl, unknownKeyTTL)}
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
	if v, ok := c.unknown.Load(hash); ok && now.Before(v.(time.Time)) {
		return &keyEntry{err: errUnknownKey}, true
	}
	v, ok := c.entries.Load(hash)
	if !ok {
		return nil, false
	}
	e := v.(*keyEntry)
	return e, now.Before(e.expires)
}

// fetch looks a key's hash up in the store and remembers the answer, "no such key" included. A
// caller that finds the same hash being looked up waits for that lookup instead of making its own;
// one whose miss came just before another's lookup ended finds that answer remembered when its own
// turn comes, so a key costs one lookup however its callers interleave.
func (c *KeyCache) fetch(ctx context.Context, hash [32]byte, now time.Time) (*keyEntry, error) {
	ch := c.lookups.DoChan(string(hash[:]), func() (any, error) {
		if e, ok := c.cached(hash, now); ok {
			return e, nil
		}
		return c.lookUp(ctx, hash, now)
	})
	select {
	case r := <-ch:
		e, _ := r.Val.(*keyEntry)
		return e, r.Err
	case <-ctx.Done():
		return nil, hensachi.Errorf(hensachi.EUnavailable, "the account store is unavailable; try again shortly").RetryIn(5 * time.Second)
	}
}

// lookUp reads a key's hash from the store and remembers the answer.
func (c *KeyCache) lookUp(ctx context.Context, hash [32]byte, now time.Time) (*keyEntry, error) {
	k, a, err := c.store.KeyByHash(ctx, hash)
	switch code := hensachi.ErrorCode(err); {
	case code == hensachi.ENotFound:
		if c.nUnknown.Load() >= maxUnknownKeys {
			c.unknown.Clear()
			c.nUnknown.Store(0)
		}
		if _, replaced := c.unknown.Swap(hash, now.Add(c.unknownTTL)); !replaced {
			c.nUnknown.Add(1)
		}
		return &keyEntry{err: errUnknownKey}, nil
	case err != nil:
		slog.ErrorContext(ctx, "look up API key", "err", err)
		return nil, hensachi.Errorf(hensachi.EUnavailable, "the account store is unavailable; try again shortly").RetryIn(5 * time.Second)
	}
	e := &keyEntry{key: k, account: a, expires: now.Add(c.ttl)}
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
