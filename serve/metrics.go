package serve

import (
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

type metrics struct {
	registry        *prometheus.Registry
	requests        *prometheus.CounterVec
	latency         *prometheus.HistogramVec
	limitRejections *prometheus.CounterVec
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hensachi_http_requests_total", Help: "HTTP requests by route, method and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "hensachi_http_request_duration_seconds", Help: "Time to answer HTTP requests, by route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route"}),
		limitRejections: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hensachi_daily_limit_rejections_total", Help: "Calls refused because the daily limit was reached, by service.",
		}, []string{"service"}),
	}
	m.registry.MustRegister(m.requests, m.latency, m.limitRejections,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// routeMetrics are one route's series, bound once so that a request does not hash label values.
type routeMetrics struct {
	m       *metrics
	route   string
	latency prometheus.Observer

	mu       sync.RWMutex
	requests map[methodStatus]prometheus.Counter
}

type methodStatus struct {
	method string
	status int
}

func (m *metrics) route(route string) *routeMetrics {
	return &routeMetrics{m: m, route: route, latency: m.latency.WithLabelValues(route), requests: map[methodStatus]prometheus.Counter{}}
}

func (rm *routeMetrics) observe(method string, status int, elapsed time.Duration) {
	rm.latency.Observe(elapsed.Seconds())
	k := methodStatus{method, status}
	rm.mu.RLock()
	c, ok := rm.requests[k]
	rm.mu.RUnlock()
	if !ok {
		c = rm.m.requests.WithLabelValues(rm.route, method, strconv.Itoa(status))
		rm.mu.Lock()
		if len(rm.requests) < 64 { // methods are client input: bound what is cached
			rm.requests[k] = c
		}
		rm.mu.Unlock()
	}
	c.Inc()
}
