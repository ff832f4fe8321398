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
