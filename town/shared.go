package town

import (
	"runtime"
	"sync"
	"weak"
)

// shared keeps one value per key for as long as some catalog holds it, weakly, so that the
// catalogs of one dataset version (the file opened again, or rewritten with the same content,
// which the watcher swaps in by its modification time) share what is derived from it rather than
// deriving it again and holding it twice.
type shared[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]weak.Pointer[V]
}

// get returns the value of key, making it when no catalog holds one any more.
func (s *shared[K, V]) get(key K, make func() *V) *V {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v := s.m[key].Value(); v != nil {
		return v
	}
	v := make()
	if s.m == nil {
		s.m = map[K]weak.Pointer[V]{}
	}
	s.m[key] = weak.Make(v)
	runtime.AddCleanup(v, func(key K) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.m[key].Value() == nil {
			delete(s.m, key)
		}
	}, key)
	return v
}
