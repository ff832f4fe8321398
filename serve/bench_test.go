package serve_test

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/app"
)

// BenchmarkMunicipality measures one keyed call through the whole handler in process (request id,
// key check, quota, cached body, envelope, headers, metrics) and, in the same run, a bare handler
// writing the same response from memory; full/bare is the full path's cost as a multiple of the
// bare one. Both write into benchResponse, so what is measured is the handlers, not a recorder's
// buffer. The load comparison with nginx and net/http over loopback is scripts/bench-town.sh.
func BenchmarkMunicipality(b *testing.B) {
	ts := newTestServer(b, func(c *app.Config) {
		c.KeyCacheTTL = 1 << 62
		c.Server.Limits = hensachi.Limits{hensachi.PlanPro: {hensachi.ServiceTown: 1 << 62}}
	})
	h := ts.Handler()
	newRequest := func() *http.Request {
		r := httptest.NewRequest("GET", "/town/v1/municipalities/13101", nil)
		r.Header.Set("X-API-Key", ts.proKey)
		return r
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, newRequest())
	body, contentType := rec.Body.Bytes(), []string{"application/json"}
	bare := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		h["Content-Type"] = contentType
		h["Content-Length"] = []string{strconv.Itoa(len(body))}
		w.Write(body)
	})
	call := func(h http.Handler, req *http.Request) {
		w := benchResponse{header: http.Header{}}
		h.ServeHTTP(&w, req)
		if w.status != 200 || w.written < len(body) { // the full path's usage count grows by digits
			b.Fatalf("status %d, %d bytes", w.status, w.written)
		}
	}
	// the baseline runs as many calls as the measured loop, on as many goroutines
	b.ResetTimer()
	b.StopTimer()
	start, workers := time.Now(), runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			req := newRequest()
			for i := w; i < b.N; i += workers {
				call(bare, req)
			}
		})
	}
	wg.Wait()
	barePerCall := float64(time.Since(start).Nanoseconds()) / float64(b.N)
	b.ReportAllocs()
	b.StartTimer()
	b.RunParallel(func(pb *testing.PB) {
		req := newRequest()
		for pb.Next() {
			call(h, req)
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/barePerCall, "full/bare")
}

// benchResponse is a ResponseWriter that keeps the status and counts the body, with a header of its
// own per call as net/http gives each request.
type benchResponse struct {
	header  http.Header
	status  int
	written int
}

func (w *benchResponse) Header() http.Header { return w.header }

func (w *benchResponse) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *benchResponse) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.written += len(b)
	return len(b), nil
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

// BenchmarkTownCalls measures the explore calls (similar, compare, search, export, indicators)
// through the whole handler, each as a ratio to GET /town/v1/municipalities/{code} timed in the
// same run (x-single): the export (goal: under 5 ms of server time for the whole country), similar
// municipalities (goal: under 50 µs), a comparison of ten, a name search, one municipality's
// indicators (goal: every indicator with its series under 200 µs), an indicator's ranking, the
// export with every indicator's columns and the indicators' long table (series), unpaced: the
// export bodies' budget would make a long table's call take its bytes' time at the budget's rate,
// where this measures the server's work (BenchmarkSeriesLoad measures the budget's effect).
func BenchmarkTownCalls(b *testing.B) {
	ts := newTestServer(b, func(c *app.Config) {
		c.KeyCacheTTL = 1 << 62
		c.Server.ExportRate = -1
		c.Server.Limits = hensachi.Limits{hensachi.PlanPro: {hensachi.ServiceTown: 1 << 62}}
	})
	h := ts.Handler()
	request := func(path, acceptEncoding string) *http.Request {
		r := httptest.NewRequest("GET", path, nil)
		r.Header.Set("X-API-Key", ts.proKey)
		if acceptEncoding != "" {
			r.Header.Set("Accept-Encoding", acceptEncoding)
		}
		return r
	}
	call := func(b *testing.B, r *http.Request) int {
		w := benchResponse{header: http.Header{}}
		h.ServeHTTP(&w, r)
		if w.status != 200 {
			b.Fatalf("%s: status %d", r.URL, w.status)
		}
		return w.written
	}
	const singleCalls = 20_000
	single := request("/town/v1/municipalities/13101", "")
	call(b, single)
	start := time.Now()
	for range singleCalls {
		call(b, single)
	}
	singleNs := float64(time.Since(start).Nanoseconds()) / singleCalls
	for _, tc := range []struct{ name, path, acceptEncoding string }{
		{"export-csv", "/town/v1/export?format=csv", ""},
		{"export-csv-gzip", "/town/v1/export?format=csv", "gzip"},
		{"export-json", "/town/v1/export?format=json", ""},
		{"export-json-gzip", "/town/v1/export?format=json", "gzip"},
		{"export-parquet", "/town/v1/export?format=parquet", ""},
		{"export-csv-pref13", "/town/v1/export?format=csv&pref=13", ""},
		{"similar-10", "/town/v1/municipalities/28214/similar", ""},
		{"similar-50", "/town/v1/municipalities/28214/similar?limit=50", ""},
		{"compare-10", "/town/v1/compare?codes=01100,04100,11100,13101,14100,23100,26100,27100,28214,47201", ""},
		{"search", "/town/v1/municipalities?q=%E3%81%9F%E3%81%8B", ""}, // たか: 34 matches
		{"indicators-all", "/town/v1/municipalities/13101/indicators", ""},
		{"indicators-group", "/town/v1/municipalities/13101/indicators?group=%E8%B2%A1%E6%94%BF", ""},
		{"indicators-keys-3", "/town/v1/municipalities/13101/indicators?keys=population,fiscal_strength,births_per_1000", ""},
		{"indicator-ranking", "/town/v1/indicators/population", ""},
		{"similar-measures-3", "/town/v1/municipalities/28214/similar?measures=income,young,births_per_1000@2020", ""},
		{"compare-10-indicators-3", "/town/v1/compare?codes=01100,04100,11100,13101,14100,23100,26100,27100,28214,47201&indicators=population,fiscal_strength,births_per_1000", ""},
		{"export-csv-indicators-all", "/town/v1/export?format=csv&indicators=all", "gzip"},
		{"series-csv-gzip", "/town/v1/export/series?format=csv", "gzip"},
		{"series-csv", "/town/v1/export/series?format=csv", ""},
		{"series-parquet", "/town/v1/export/series?format=parquet", ""},
	} {
		b.Run(tc.name, func(b *testing.B) {
			r := request(tc.path, tc.acceptEncoding)
			size := call(b, r) // builds the export
			b.ReportAllocs()
			for b.Loop() {
				call(b, r)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/singleNs, "x-single")
			b.ReportMetric(float64(size)/1000, "KB")
		})
	}
}
