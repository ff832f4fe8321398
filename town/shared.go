package town

import (
	"runtime"
	"sync"
	"weak"
)

// shared keeps one value per key, weakly, for as long as something else holds it, so that the
// dataset files of one version (the file opened again, or rewritten with the same content, which
// the watcher swaps in by its modification time) share what is derived from it rather than
// deriving it again and holding it twice.
type shared[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]weak.Pointer[V]
}

// get returns the value of key, deriving it when nothing holds one any more.
func (s *shared[K, V]) get(key K, derive func() *V) *V {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v := s.m[key].Value(); v != nil {
		return v
	}
	v := derive()
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
