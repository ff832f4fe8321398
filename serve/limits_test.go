package serve_test

import (
	"context"
	"net/http"

	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/app"
)

// TestDailyLimitExactUnderConcurrency fires many more parallel calls than the remaining quota and
// expects exactly the quota to succeed.
func TestDailyLimitExactUnderConcurrency(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	// ten times as many parallel calls as the account has left
	const before, parallel = 37, 10 * (100 - 37)
	for range before {
		if r := ts.get(t, "/town/v1/meta"); r.status != 200 {
			t.Fatalf("warm-up call: %d", r.status)
		}
	}
	var ok, limited, busy, other atomic.Int64
	var maxUsed atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			path := []string{"/town/v1/meta", "/town/v1/municipalities/01100", "/town/v1/rankings/young?limit=100"}[i%3]
			r := ts.get(t, path)
			switch r.status {
			case 200:
				ok.Add(1)
				u := decode[envelope](t, r.body).Usage.UsedToday
				for m := maxUsed.Load(); u > m && !maxUsed.CompareAndSwap(m, u); m = maxUsed.Load() {
				}
			case 429:
				limited.Add(1)
				p := decode[problem](t, r.body)
				if p.Code != "daily_limit_exceeded" || r.header.Get("Retry-After") == "" {
					t.Errorf("429 problem %+v, Retry-After %q", p, r.header.Get("Retry-After"))
				}
			case 503: // the last units were held by calls in progress: try again, not a limit
				busy.Add(1)
				p := decode[problem](t, r.body)
				if p.Code != "overloaded" || r.header.Get("Retry-After") != "1" {
					t.Errorf("503 problem %+v, Retry-After %q", p, r.header.Get("Retry-After"))
				}
			default:
				other.Add(1)
			}
		}()
	}
	close(start)
	wg.Wait()
	if ok.Load() != 100-before || limited.Load()+busy.Load() != parallel-(100-before) || other.Load() != 0 {
		t.Fatalf("%d succeeded, %d limited, %d busy, %d other; want exactly %d successes", ok.Load(), limited.Load(), busy.Load(), other.Load(), 100-before)
	}
	if maxUsed.Load() != 100 {
		t.Errorf("highest used_today %d, want 100", maxUsed.Load())
	}
	// the pro account is counted separately
	if r := ts.do(t, "GET", "/town/v1/meta", "X-API-Key", ts.proKey); r.status != 200 {
		t.Errorf("pro account: %d", r.status)
	}
}

func TestRateLimitHeaders(t *testing.T) {
	t.Parallel()
	// 23:59:30 in Tokyo: 30 seconds to the reset
	now := time.Date(2026, 11, 22, 23, 59, 30, 0, hensachi.Tokyo)
	ts := newTestServer(t, func(c *app.Config) { c.Server.Now = func() time.Time { return now } })
	r := ts.get(t, "/town/v1/meta")
	if got := r.header.Get("RateLimit-Policy"); got != `"daily";q=100;w=86400` {
		t.Errorf("RateLimit-Policy %q", got)
	}
	if got := r.header.Get("RateLimit"); got != `"daily";r=99;t=30` {
		t.Errorf("RateLimit %q", got)
	}
	// errors carry them too, and do not count
	for _, path := range []string{"/town/v1/rankings/income?limit=0", "/town/v1/municipalities/99999", "/town/v1/rankings/height"} {
		r := ts.get(t, path)
		if r.status < 400 || r.header.Get("RateLimit") != `"daily";r=99;t=30` || r.header.Get("RateLimit-Policy") == "" {
			t.Errorf("%s: status %d, RateLimit %q, RateLimit-Policy %q", path, r.status, r.header.Get("RateLimit"), r.header.Get("RateLimit-Policy"))
		}
	}
	used := ts.Quota.Used(ts.freeID, hensachi.ServiceTown)
	for range 100 - used {
		ts.get(t, "/town/v1/meta")
	}
	r = ts.get(t, "/town/v1/meta")
	if r.status != 429 || r.header.Get("Retry-After") != "30" || r.header.Get("RateLimit") != `"daily";r=0;t=30` {
		t.Errorf("at the limit: status %d, Retry-After %q, RateLimit %q", r.status, r.header.Get("Retry-After"), r.header.Get("RateLimit"))
	}
	// Retry-After and t agree when the wait is not whole seconds
	now = now.Add(500 * time.Millisecond)
	r = ts.get(t, "/town/v1/meta")
	if r.header.Get("Retry-After") != "30" || r.header.Get("RateLimit") != `"daily";r=0;t=30` {
		t.Errorf("29.5 s before the reset: Retry-After %q, RateLimit %q", r.header.Get("Retry-After"), r.header.Get("RateLimit"))
	}
	// after midnight in Tokyo the count restarts
	now = now.Add(time.Minute)
	r = ts.get(t, "/town/v1/meta")
	if r.status != 200 || decode[envelope](t, r.body).Usage.UsedToday != 1 {
		t.Errorf("after the reset: status %d, body %s", r.status, r.body[:min(len(r.body), 80)])
	}
}

// TestRestartKeepsCounts stops the server (which flushes) and starts a new one on the same store.
func TestRestartKeepsCounts(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	for range 7 {
		ts.get(t, "/town/v1/meta")
	}
	ts.stop()
	ts.start(t, ts.Catalogs.Path())
	r := ts.get(t, "/town/v1/meta")
	if got := decode[envelope](t, r.body).Usage.UsedToday; got != 8 {
		t.Fatalf("after a restart used_today = %d, want 8", got)
	}
	usage, err := ts.store.Usage(context.Background(), hensachi.Day(time.Now()), ts.freeID)
	if err != nil || len(usage) != 1 || usage[0].Count < 7 {
		t.Errorf("stored usage %+v, %v", usage, err)
	}
}

// TestPlanChange: a plan set by the operator applies to the next call (the tests' key cache TTL is
// a nanosecond; in production it is a few seconds).
func TestPlanChange(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	if err := ts.store.SetPlan(context.Background(), ts.freeID, hensachi.PlanPro); err != nil {
		t.Fatal(err)
	}
	u := decode[envelope](t, ts.get(t, "/town/v1/meta").body).Usage
	if u.Plan != "pro" || u.LimitToday != 10000 {
		t.Errorf("usage after upgrade %+v", u)
	}
}

// TestStoreDownIs503 checks that a key lookup against an unreachable store is a 503 with Retry-After.
func TestStoreDownIs503(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	ts.store.Close()
	r := ts.get(t, "/town/v1/meta")
	if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" || !strings.Contains(string(r.body), "unavailable") {
		t.Errorf("status %d, Retry-After %q, body %s", r.status, r.header.Get("Retry-After"), r.body)
	}
	if rz := ts.do(t, "GET", "/readyz"); rz.status != 503 {
		t.Errorf("/readyz with the store down: %d", rz.status)
	}

}

// TestHeadDoesNotCount: a HEAD on a keyed resource answers the GET's headers, RateLimit saying
// where the account stands, but counts nothing; at the limit it is refused as the GET is.
func TestHeadDoesNotCount(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 23, 59, 30, 0, hensachi.Tokyo)
	ts := newTestServer(t, func(c *app.Config) { c.Server.Now = func() time.Time { return now } })
	ts.get(t, "/town/v1/meta")
	paths := []string{"/town/v1/meta", "/town/v1/municipalities/13101", "/town/v1/municipalities", "/town/v1/rankings/income"}
	for i := range 25 {
		r := ts.do(t, "HEAD", paths[i%len(paths)], "X-API-Key", ts.freeKey)
		if r.status != 200 || r.header.Get("RateLimit") != `"daily";r=99;t=30` || r.header.Get("RateLimit-Policy") != `"daily";q=100;w=86400` ||
			r.header.Get("Etag") == "" {
			t.Fatalf("HEAD %s: status %d, RateLimit %q, RateLimit-Policy %q, ETag %q", paths[i%len(paths)], r.status,
				r.header.Get("RateLimit"), r.header.Get("RateLimit-Policy"), r.header.Get("Etag"))
		}
	}
	if r := ts.get(t, "/town/v1/meta"); decode[envelope](t, r.body).Usage.UsedToday != 2 {
		t.Errorf("after 25 HEADs between two GETs used_today = %d, want 2", decode[envelope](t, r.body).Usage.UsedToday)
	}
	for range 100 - ts.Quota.Used(ts.freeID, hensachi.ServiceTown) {
		ts.get(t, "/town/v1/meta")
	}
	r := ts.do(t, "HEAD", "/town/v1/meta", "X-API-Key", ts.freeKey)
	if r.status != 429 || r.header.Get("Retry-After") != "30" || r.header.Get("RateLimit") != `"daily";r=0;t=30` {
		t.Errorf("HEAD at the limit: status %d, Retry-After %q, RateLimit %q", r.status, r.header.Get("Retry-After"), r.header.Get("RateLimit"))
	}
}
