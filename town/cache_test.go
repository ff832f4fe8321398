package town_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hensachi/hensachi/internal/testrig/towntest"
	"github.com/hensachi/hensachi/town"
)

// TestCache: values are kept within the budget, the least recently used going first; one larger
// than the budget is built for its call and not kept; concurrent first requests share one build;
// another catalog's key is another value; a collected catalog's values are dropped.
func TestCache(t *testing.T) {
	c, other := towntest.Catalog(), towntest.Catalog()
	cache := town.NewCache[string, []byte](10, func(b []byte) int64 { return int64(len(b)) })
	builds := map[string]int{}
	get := func(c *town.Catalog, key string, size int) []byte {
		v, _ := cache.Get(context.Background(), c, key, func() ([]byte, error) { builds[key]++; return make([]byte, size), nil })
		return v
	}
	get(c, "a", 4)
	get(c, "b", 4)
	get(c, "a", 4) // a is now the most recently used
	get(c, "c", 4) // over the budget: b goes
	if cache.Used() != 8 {
		t.Errorf("%d bytes kept, want 8", cache.Used())
	}
	get(c, "a", 4)
	get(c, "b", 4)
	if builds["a"] != 1 || builds["b"] != 2 || builds["c"] != 1 {
		t.Errorf("builds %v, want a once, b twice, c once", builds)
	}
	get(c, "huge", 11)
	get(c, "huge", 11)
	if builds["huge"] != 2 || cache.Used() > 10 {
		t.Errorf("a value over the budget: %d builds, %d bytes kept", builds["huge"], cache.Used())
	}
	get(other, "a", 4)
	if builds["a"] != 2 {
		t.Errorf("another catalog's a was not built: %v", builds)
	}

	func() {
		replaced := towntest.Catalog()
		cache.Get(context.Background(), replaced, "old", func() ([]byte, error) { return make([]byte, 3), nil })
	}()
	used := cache.Used()
	runtime.GC()
	get(c, "d", 1)
	if cache.Used() != used-3+1 {
		t.Errorf("%d bytes kept once a replaced catalog is collected, want %d", cache.Used(), used-3+1)
	}
	runtime.KeepAlive(other)

	var n atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			cache.Get(context.Background(), c, "shared", func() ([]byte, error) { n.Add(1); return make([]byte, 1), nil })
		})
	}
	wg.Wait()
	if n.Load() != 1 {
		t.Errorf("%d builds of one key requested at once", n.Load())
	}
}

// TestCacheFailure: a build that fails is the error of the calls that waited for it and is kept
// by no one: the next call builds again, and its success is kept. A call that waits for another's
// build gives up when its context ends. (TestCache shows that callers share one build.)
func TestCacheFailure(t *testing.T) {
	c := towntest.Catalog()
	cache := town.NewCache[string, []byte](10, func(b []byte) int64 { return int64(len(b)) })
	failed := errors.New("disk full")
	release := make(chan struct{})
	var builds atomic.Int32
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			_, err := cache.Get(context.Background(), c, "k", func() ([]byte, error) {
				builds.Add(1)
				<-release
				return nil, failed
			})
			errs <- err
		})
	}
	for builds.Load() == 0 {
		runtime.Gosched()
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := cache.Get(ctx, c, "k", nil); !errors.Is(err, context.Canceled) {
		t.Errorf("a waiter whose context ended: %v", err)
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, failed) {
			t.Errorf("a caller of the failed build got %v", err)
		}
	}
	if cache.Used() != 0 {
		t.Errorf("%d bytes kept after a failure", cache.Used())
	}
	failedBuilds := builds.Load()
	for range 2 {
		v, err := cache.Get(context.Background(), c, "k", func() ([]byte, error) { builds.Add(1); return []byte("ok"), nil })
		if err != nil || string(v) != "ok" {
			t.Fatalf("after the failure: %q %v", v, err)
		}
	}
	if builds.Load() != failedBuilds+1 || cache.Used() != 2 {
		t.Errorf("%d builds, %d bytes kept once the build succeeds", builds.Load(), cache.Used())
	}
}
