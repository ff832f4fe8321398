package serve

import (
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
