package town

import (
	"context"
	"errors"
	"sync"
	"weak"
)

// Cache keeps what is built from a catalog for a key within a budget of bytes: the bulk files a
// call picks by its parameters (an export with indicator columns), whose combinations are too
// many to keep each the way a Memo keeps one value per catalog. The least recently used go first,
// and those of a catalog that was replaced once it is collected, when the next value is kept (the
// cache holds its catalogs weakly); a value larger than the whole budget is built for its call and
// not kept. Concurrent first requests for one key wait for one build; a build that fails is kept
// by no one, so the next request builds again (a full disk must not poison a key for the rest of
// a dataset version).
type Cache[K comparable, V any] struct {
	budget int64
	size   func(V) int64
	mu     sync.Mutex
	used   int64 // bytes of the values kept
	tick   uint64
	byKey  map[cacheKey[K]]*cacheEntry[V]
}

// cacheKey names a value: a weak pointer to its catalog, so that the cache does not keep a
// replaced catalog (its municipalities and indicators) alive.
type cacheKey[K comparable] struct {
	catalog weak.Pointer[Catalog]
	key     K
}

type cacheEntry[V any] struct {
	once     Once[V]
	size     int64  // counted in used once built and kept
	lastUsed uint64 // the cache's tick at the last request
}

// NewCache returns a cache of at most budget bytes, size telling a value's; make it once, at
// package level.
func NewCache[K comparable, V any](budget int64, size func(V) int64) *Cache[K, V] {
	return &Cache[K, V]{budget: budget, size: size, byKey: map[cacheKey[K]]*cacheEntry[V]{}}
}

// Get returns the value of key for catalog c, building it when it is not kept. A call that finds
// the key being built waits for that build, or until ctx ends (ctx's error).
func (ca *Cache[K, V]) Get(ctx context.Context, c *Catalog, key K, build func() (V, error)) (V, error) {
	k := cacheKey[K]{weak.Make(c), key}
	ca.mu.Lock()
	e, ok := ca.byKey[k]
	if !ok {
		e = new(cacheEntry[V])
		ca.byKey[k] = e
	}
	ca.tick++
	e.lastUsed = ca.tick
	ca.mu.Unlock()
	return e.once.Get(ctx, func() (V, error) {
		v, err := build()
		ca.mu.Lock()
		defer ca.mu.Unlock()
		if err != nil {
			if ca.byKey[k] == e {
				delete(ca.byKey, k)
			}
			return v, err
		}
		if held, ok := ca.byKey[k]; ok && held != e {
			return v, nil // e failed once and was dropped, and another call's entry has the key now
		}
		size := ca.size(v)
		if size > ca.budget {
			delete(ca.byKey, k)
			return v, nil
		}
		ca.byKey[k] = e
		e.size = size
		ca.used += size
		ca.forgetReplaced()
		ca.evict(k)
		return v, nil
	})
}

// evict drops the least recently used values until those kept fit the budget, never keep's.
func (ca *Cache[K, V]) evict(keep cacheKey[K]) {
	for ca.used > ca.budget {
		var oldest cacheKey[K]
		var found *cacheEntry[V]
		for k, e := range ca.byKey {
			if k != keep && e.size > 0 && (found == nil || e.lastUsed < found.lastUsed) {
				oldest, found = k, e
			}
		}
		if found == nil {
			return
		}
		delete(ca.byKey, oldest)
		ca.used -= found.size
	}
}

// forgetReplaced drops the values of catalogs no call reads any more.
func (ca *Cache[K, V]) forgetReplaced() {
	for k, e := range ca.byKey {
		if k.catalog.Value() == nil {
			delete(ca.byKey, k)
			ca.used -= e.size
		}
	}
}

// Used returns the bytes the cache keeps.
func (ca *Cache[K, V]) Used() int64 {
	ca.mu.Lock()
	defer ca.mu.Unlock()
	return ca.used
}

// Once is a value built on its first successful call and kept: sync.Once for a build that can
// fail. Callers that arrive while it is being built wait for that build and share its outcome,
// a failure included; the first call after a failure builds again. The zero value is ready.
type Once[V any] struct {
	mu      sync.Mutex
	current *onceBuild[V] // the build in progress or the one that succeeded; nil before and after a failure
}

type onceBuild[V any] struct {
	done  chan struct{} // closed when value and err are set
	value V
	err   error
}

// Get returns the value, building it when no build has succeeded and none is in progress. A call
// that waits for another's build gives up when ctx ends, with ctx's error; the build goes on.
func (o *Once[V]) Get(ctx context.Context, build func() (V, error)) (V, error) {
	o.mu.Lock()
	b := o.current
	if b == nil {
		b = &onceBuild[V]{done: make(chan struct{})}
		o.current = b
		o.mu.Unlock()
		o.run(b, build)
		return b.value, b.err
	}
	o.mu.Unlock()
	select {
	case <-b.done:
		return b.value, b.err
	case <-ctx.Done():
		var zero V
		return zero, ctx.Err()
	}
}

// run builds b; the waiters are released however the build ends, a panic included (which goes on
// up the builder's stack, and counts as a failure for them).
func (o *Once[V]) run(b *onceBuild[V], build func() (V, error)) {
	b.err = errPanicked
	defer func() {
		if b.err != nil {
			o.mu.Lock()
			o.current = nil
			o.mu.Unlock()
		}
		close(b.done)
	}()
	b.value, b.err = build()
}

// errPanicked is what the waiters of a build that panicked get.
var errPanicked = errors.New("town: the build panicked")
