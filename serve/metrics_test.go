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
