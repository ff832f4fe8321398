package serve

import (
	"maps"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

// newMetrics registers the server's series: the quota's refusals, the store's health and the
// face calls' uploads not kept among them.
func newMetrics(s *Server) *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hensachi_http_requests_total", Help: "HTTP requests by route, method and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "hensachi_http_request_duration_seconds", Help: "Time to answer HTTP requests, by route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route"}),
	}
	m.registry.MustRegister(m.requests, m.latency, s.quota.rejections,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "hensachi_store_up", Help: "1 while the store passed its last check (database answers, files in place), 0 when it failed.",
		}, func() float64 {
			if s.storeDown.Load() {
				return 0
			}
			return 1
		}),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if s.faces != nil {
		m.registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "hensachi_face_uploads_not_kept_total", Help: "Analysed uploads that could not be stored (answered and counted all the same).",
		}, func() float64 {
			n, _ := s.faces.UploadsNotKept()
			return float64(n)
		}))
	}
	return m
}

// routeMetrics are one route's series, bound once so that a request does not hash label values.
type routeMetrics struct {
	m       *metrics
	route   string
	latency prometheus.Observer

	// requests holds the counter of each method and status seen so far. A request reads it without
	// a lock (a read lock would still be a write to memory every request shares); a new pair
	// copies the map under mu, which happens a handful of times in the life of a route.
	requests atomic.Pointer[map[methodStatus]prometheus.Counter]
	mu       sync.Mutex
}

type methodStatus struct {
	method string
	status int
}

func (m *metrics) route(route string) *routeMetrics {
	rm := &routeMetrics{m: m, route: route, latency: m.latency.WithLabelValues(route)}
	rm.requests.Store(&map[methodStatus]prometheus.Counter{})
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
	rm.latency.Observe(elapsed.Seconds())
	k := methodStatus{methodLabel(method), status}
	c, ok := (*rm.requests.Load())[k]
	if !ok {
		c = rm.add(k)
	}
	c.Inc()
}

// add binds the counter of a method and status not seen before on this route.
func (rm *routeMetrics) add(k methodStatus) prometheus.Counter {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	old := *rm.requests.Load()
	if c, ok := old[k]; ok { // added while this request waited for the lock
		return c
	}
	c := rm.m.requests.WithLabelValues(rm.route, k.method, strconv.Itoa(k.status))
	next := maps.Clone(old)
	next[k] = c
	rm.requests.Store(&next)
	return c
}
