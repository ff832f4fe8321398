package serve

import (
	"net/http/httptest"
	"testing"

	"github.com/hensachi/hensachi"
)

// BenchmarkMunicipality measures one keyed call through the whole handler in process: key check,
// quota, cached body, envelope. The nginx comparison is scripts/bench-town.sh.
func BenchmarkMunicipality(b *testing.B) {
	ts := newTestServer(b, func(c *Config) {
		c.KeyCacheTTL = 1 << 62
		c.Limits = hensachi.Limits{hensachi.PlanPro: {hensachi.ServiceTown: 1 << 62}}
	})
	h := ts.Handler()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		req := httptest.NewRequest("GET", "/town/v1/municipalities/13101", nil)
		req.Header.Set("X-API-Key", ts.proKey)
		for pb.Next() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != 200 {
				b.Fatalf("status %d", rec.Code)
			}
		}
	})
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
