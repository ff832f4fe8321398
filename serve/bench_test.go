package serve

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
)

// BenchmarkMunicipality measures one keyed call through the whole handler in process (key check,
// quota, cached body, envelope, metrics) and, in the same run, a bare handler writing the same
// response from memory; full/bare is the full path's cost as a multiple of the bare one. The load
// comparison with nginx and net/http over loopback is scripts/bench-town.sh.
func BenchmarkMunicipality(b *testing.B) {
	ts := newTestServer(b, func(c *Config) {
		c.KeyCacheTTL = 1 << 62
		c.Limits = hensachi.Limits{hensachi.PlanPro: {hensachi.ServiceTown: 1 << 62}}
	})
	h := ts.Handler()
	call := func(h http.Handler) func(*testing.PB) {
		return func(pb *testing.PB) {
			req := httptest.NewRequest("GET", "/town/v1/municipalities/13101", nil)
			req.Header.Set("X-API-Key", ts.proKey)
			for pb.Next() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != 200 {
					b.Fatalf("status %d", rec.Code)
				}
			}
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, func() *http.Request {
		r := httptest.NewRequest("GET", "/town/v1/municipalities/13101", nil)
		r.Header.Set("X-API-Key", ts.proKey)
		return r
	}())
	body, contentType := rec.Body.Bytes(), []string{"application/json"}
	bare := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header()["Content-Type"] = contentType
		w.Write(body)
	})
	// the baseline runs as many calls as the measured loop, on as many goroutines
	b.ResetTimer()
	b.StopTimer()
	start, workers := time.Now(), runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			req := httptest.NewRequest("GET", "/town/v1/municipalities/13101", nil)
			for i := w; i < b.N; i += workers {
				bare.ServeHTTP(httptest.NewRecorder(), req)
			}
		})
	}
	wg.Wait()
	barePerCall := float64(time.Since(start).Nanoseconds()) / float64(b.N)
	b.ReportAllocs()
	b.StartTimer()
	b.RunParallel(call(h))
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/barePerCall, "full/bare")
}

// BenchmarkMunicipalityPage measures the server time of a municipality's web page (goal: under
// 2 ms) and reports its weight, charts included (goal: under 60 KB).
func BenchmarkMunicipalityPage(b *testing.B) {
	ts := newTestServer(b)
	h := ts.Handler()
	var size int
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/town/municipalities/28214", nil))
		if rec.Code != 200 {
			b.Fatalf("status %d", rec.Code)
		}
		size = rec.Body.Len()
	}
	b.ReportMetric(float64(size)/1000, "KB/page")
}
