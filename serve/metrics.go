package serve

import (
	"fmt"
	"maps"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	vm "github.com/VictoriaMetrics/metrics"
)

// latencyBuckets are the upper bounds of the request duration histogram, in seconds: a cached
// ranking answers in well under a millisecond, a face analysis in a second or more.
var latencyBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// metrics are the server's series in the Prometheus text format. VictoriaMetrics' small library
// writes them without Prometheus's client, whose protobuf encoding the server would link only for
// a format no scraper needs.
type metrics struct {
	set *vm.Set
}

// newMetrics registers the server's series: the quota's refusals, the store's health, the face
// calls' uploads not kept, and the Go runtime's and the process's own.
func newMetrics(s *Server) *metrics {
	vm.ExposeMetadata(true) // # TYPE lines, so that scrapers know the counters and histograms
	m := &metrics{set: vm.NewSet()}
	m.set.NewGauge("hensachi_store_up", func() float64 {
		if s.storeDown.Load() {
			return 0
		}
		return 1
	})
	if s.faces != nil {
		m.set.NewGauge("hensachi_face_uploads_not_kept_total", func() float64 {
			n, _ := s.faces.UploadsNotKept()
			return float64(n)
		})
	}
	m.set.RegisterMetricsWriter(s.quota.rejections.WritePrometheus)
	m.set.RegisterMetricsWriter(vm.WriteProcessMetrics)
	return m
}

func (m *metrics) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	m.set.WritePrometheus(w)
}

// routeMetrics are one route's series, bound once so that a request does not format label values.
type routeMetrics struct {
	m       *metrics
	route   string
	latency *vm.PrometheusHistogram

	// requests holds the counter of each method and status seen so far. A request reads it without
	// a lock (a read lock would still be a write to memory every request shares); a new pair
	// copies the map under mu, which happens a handful of times in the life of a route.
	requests atomic.Pointer[map[methodStatus]*vm.Counter]
	mu       sync.Mutex
}

type methodStatus struct {
	method string
	status int
}

func (m *metrics) route(route string) *routeMetrics {
	rm := &routeMetrics{m: m, route: route, latency: m.set.GetOrCreatePrometheusHistogramExt(
		fmt.Sprintf("hensachi_http_request_duration_seconds{route=%q}", route), latencyBuckets)}
	rm.requests.Store(&map[methodStatus]*vm.Counter{})
	return rm
}

// methodLabel bounds the method label: methods are client input, and every new value would be a
// new series for as long as the process lives.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "other"
}

func (rm *routeMetrics) observe(method string, status int, elapsed time.Duration) {
	rm.latency.Update(elapsed.Seconds())
	k := methodStatus{methodLabel(method), status}
	c, ok := (*rm.requests.Load())[k]
	if !ok {
		c = rm.add(k)
	}
	c.Inc()
}

// add binds the counter of a method and status not seen before on this route.
func (rm *routeMetrics) add(k methodStatus) *vm.Counter {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	old := *rm.requests.Load()
	if c, ok := old[k]; ok { // added while this request waited for the lock
		return c
	}
	c := rm.m.set.GetOrCreateCounter(fmt.Sprintf("hensachi_http_requests_total{route=%q,method=%q,status=\"%d\"}",
		rm.route, k.method, k.status))
	next := maps.Clone(old)
	next[k] = c
	rm.requests.Store(&next)
	return c
}
