package serve_test

import (
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/app"
)

// benchSeriesRounds is how many times BenchmarkSeriesLoad alternates its idle and loaded phases.
const benchSeriesRounds = 5

// BenchmarkSeriesLoad measures what long-table downloads cost the other calls: the latency of
// GET /town/v1/indicators/population over loopback, two clients at a time, first with nothing
// else running (idle) and then while three clients download long tables without pause (the whole
// country's CSV gzipped, a Parquet of two indicators, a prefecture's CSV gzipped), b.N calls
// each. The loaders read and discard the bodies as a remote client would, in this process, so
// their reading takes the same two cores as the server; the loaded calls start once every
// download is under way. The national tables are built before the measure, as the first call of
// a dataset version does, and the server paces the exports as it does by default
// (DefaultExportRate). It reports the p50 and p99 of both, the loaded ones as multiples of the
// idle ones of the same run (the machine is shared, so only the ratios compare across runs), and
// the MB/s the loaders received while the loaded calls ran. The two phases alternate in rounds
// (benchSeriesRounds) and each pools its rounds' calls.
func BenchmarkSeriesLoad(b *testing.B) {
	ts := newTestServer(b, func(c *app.Config) {
		c.KeyCacheTTL = 1 << 62
		c.Server.Limits = hensachi.Limits{hensachi.PlanPro: {hensachi.ServiceTown: 1 << 62}}
	})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8, DisableCompression: true}}
	// get calls path and discards the body into sink
	get := func(path, encoding string, sink io.Writer) {
		req, _ := http.NewRequest("GET", ts.http.URL+path, nil)
		req.Header.Set("X-API-Key", ts.proKey)
		req.Header.Set("Accept-Encoding", encoding)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(sink, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("%s: %d", path, resp.StatusCode)
		}
	}
	downloads := []string{
		"/town/v1/export/series?format=csv",
		"/town/v1/export/series?format=parquet&indicators=population,fiscal_strength",
		"/town/v1/export/series?format=csv&pref=13",
	}
	for _, d := range downloads {
		get(d, "gzip", io.Discard) // builds the national tables
	}
	// latencies runs n calls on two clients and returns their latencies
	latencies := func(n int) []time.Duration {
		out := make([]time.Duration, n)
		var wg sync.WaitGroup
		for w := range 2 {
			wg.Go(func() {
				for i := w; i < n; i += 2 {
					start := time.Now()
					get("/town/v1/indicators/population", "gzip", io.Discard)
					out[i] = time.Since(start)
				}
			})
		}
		wg.Wait()
		return out
	}
	quantile := func(d []time.Duration, q float64) float64 {
		return float64(d[min(len(d)-1, int(q*float64(len(d))))].Microseconds()) / 1000
	}
	var received atomic.Int64
	// load starts the three downloads without pause and returns once every one is under way,
	// with the function that stops them
	load := func() (stop func()) {
		done := make(chan struct{})
		var loaders, started sync.WaitGroup
		for _, d := range downloads {
			started.Add(1)
			sink := &countingDiscard{n: &received, first: sync.OnceFunc(started.Done)}
			loaders.Go(func() {
				for {
					select {
					case <-done:
						return
					default:
						get(d, "gzip", sink)
					}
				}
			})
		}
		started.Wait()
		return func() { close(done); loaders.Wait() }
	}
	// Idle and loaded calls alternate over benchSeriesRounds rounds and are pooled, so that a
	// spell of the shared machine's own load falls on both rather than on one phase.
	b.ResetTimer()
	var idle, loaded []time.Duration
	var loadedTime time.Duration
	var loadedBytes int64
	per := max(b.N/benchSeriesRounds, 1)
	for range benchSeriesRounds {
		idle = append(idle, latencies(per)...)
		stop := load()
		from, start := received.Load(), time.Now()
		loaded = append(loaded, latencies(per)...)
		loadedBytes, loadedTime = loadedBytes+received.Load()-from, loadedTime+time.Since(start)
		stop()
	}
	b.StopTimer()
	slices.Sort(idle)
	slices.Sort(loaded)
	rate := float64(loadedBytes) / loadedTime.Seconds() / 1e6
	b.ReportMetric(quantile(idle, 0.5), "idle-p50-ms")
	b.ReportMetric(quantile(idle, 0.99), "idle-p99-ms")
	b.ReportMetric(quantile(loaded, 0.5), "loaded-p50-ms")
	b.ReportMetric(quantile(loaded, 0.99), "loaded-p99-ms")
	b.ReportMetric(quantile(loaded, 0.5)/quantile(idle, 0.5), "p50-ratio")
	b.ReportMetric(quantile(loaded, 0.99)/quantile(idle, 0.99), "p99-ratio")
	b.ReportMetric(rate, "export-MB/s")
}

// countingDiscard discards what it is given and counts it, telling first when the first bytes come.
type countingDiscard struct {
	n     *atomic.Int64
	first func()
}

func (c *countingDiscard) Write(b []byte) (int, error) {
	c.first()
	c.n.Add(int64(len(b)))
	return len(b), nil
}
