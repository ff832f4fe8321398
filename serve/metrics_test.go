package serve_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestMetricsBoundedByClientInput: made-up request methods must not each create a series.
func TestMetricsBoundedByClientInput(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	for i := range 300 {
		ts.do(t, fmt.Sprintf("MADEUP%d", i), "/town/v1/meta", "X-API-Key", ts.proKey)
		ts.do(t, fmt.Sprintf("X%d", i), fmt.Sprintf("/no/such/route/%d", i))
	}
	body := string(ts.get(t, "/metrics").body)
	series := 0
	for line := range strings.Lines(body) {
		if strings.HasPrefix(line, "hensachi_http_requests_total{") {
			series++
			if strings.Contains(line, `method="MADEUP`) || strings.Contains(line, `method="X`) {
				t.Errorf("a client's method became a label: %s", line)
			}
		}
	}
	if !strings.Contains(body, `method="other"`) {
		t.Error(`made-up methods are not counted as "other"`)
	}
	if series > 10 {
		t.Errorf("%d request series after 600 requests with made-up methods", series)
	}
}

// TestMetricsExposition: the series a Prometheus scrape expects, in its text format: typed
// counters, a histogram with le buckets, the runtime's and the process's own.
func TestMetricsExposition(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	ts.do(t, "GET", "/town/v1/meta", "X-API-Key", ts.proKey)
	r := ts.get(t, "/metrics")
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q", ct)
	}
	body := string(r.body)
	for _, want := range []string{
		"# TYPE hensachi_http_requests_total counter\n",
		`hensachi_http_requests_total{route="/town/v1/meta",method="GET",status="200"} 1` + "\n",
		"# TYPE hensachi_http_request_duration_seconds histogram\n",
		`hensachi_http_request_duration_seconds_bucket{route="/town/v1/meta",le="+Inf"} 1` + "\n",
		`hensachi_http_request_duration_seconds_count{route="/town/v1/meta"} 1` + "\n",
		"hensachi_store_up 1\n",
		"go_goroutines ",
		"process_resident_memory_bytes ",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}
