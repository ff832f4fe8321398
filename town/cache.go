package town

import (
	"sync"
	"weak"
)

// Cache keeps what is built from a catalog for a key within a budget of bytes: the bulk files a
// call picks by its parameters (an export with indicator columns, the indicators' long table),
// whose combinations are too many to keep each the way a Memo keeps one value per catalog. The
// least recently used go first, and those of a catalog that was replaced once it is collected,
// when the next value is kept (the cache holds its catalogs weakly); a value larger
// than the whole budget is built for its call and not kept. Concurrent first requests for one key
// wait for one build.
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
	once     sync.Once
	value    V
	size     int64  // counted in used once built and kept
	lastUsed uint64 // the cache's tick at the last request
}

// NewCache returns a cache of at most budget bytes, size telling a value's; make it once, at
// package level.
func NewCache[K comparable, V any](budget int64, size func(V) int64) *Cache[K, V] {
	return &Cache[K, V]{budget: budget, size: size, byKey: map[cacheKey[K]]*cacheEntry[V]{}}
}

// Get returns the value of key for catalog c, building it when it is not kept.
func (ca *Cache[K, V]) Get(c *Catalog, key K, build func() V) V {
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
	e.once.Do(func() {
		e.value = build()
		size := ca.size(e.value)
		ca.mu.Lock()
		defer ca.mu.Unlock()
		if size > ca.budget {
			delete(ca.byKey, k)
			return
		}
		e.size = size
		ca.used += size
		ca.forgetReplaced()
		ca.evict(k)
	})
	return e.value
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
