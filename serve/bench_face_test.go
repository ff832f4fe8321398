package serve_test

import (
	"bytes"
	"fmt"
	"image"
	"image/draw"
	"image/jpeg"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/app"
	"github.com/hensachi/hensachi/internal/testrig/storetest"
)

// benchImages returns a one-face photo (a SCUT portrait on a 1280×960 canvas, a typical upload)
// and a many-face one (nine portraits tiled 3×3).
func benchImages(b *testing.B) map[string][]byte {
	b.Helper()
	decode := func(name string) image.Image {
		img, err := jpeg.Decode(bytes.NewReader(scutImage(b, name)))
		if err != nil {
			b.Fatal(err)
		}
		return img
	}
	encode := func(img image.Image) []byte {
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
			b.Fatal(err)
		}
		return buf.Bytes()
	}
	one := image.NewRGBA(image.Rect(0, 0, 1280, 960))
	draw.Draw(one, one.Bounds(), image.NewUniform(image.White), image.Point{}, draw.Src)
	p := decode("AF10.jpg")
	draw.Draw(one, p.Bounds().Add(image.Pt(512, 352)), p, image.Point{}, draw.Src)
	many := image.NewRGBA(image.Rect(0, 0, 768, 768))
	for i, name := range []string{"AF1.jpg", "AM2.jpg", "CF3.jpg", "CM4.jpg", "AF11.jpg", "AM6.jpg", "CF7.jpg", "CM8.jpg", "AF9.jpg"} {
		p := decode(name)
		draw.Draw(many, p.Bounds().Add(image.Pt(256*(i%3), 256*(i/3))), p, image.Point{}, draw.Src)
	}
	return map[string][]byte{"one-face": encode(one), "many-face": encode(many)}
}

// BenchmarkPredict measures POST /face/v1/predict end to end over loopback HTTP (key, quota,
// multipart, decode, detection, alignment, models, JSON). It reports p50/p95 latency of sequential
// calls, and the successful calls per second with four clients on four accounts with the share
// refused; face's BenchmarkAnalyze compares the pipeline with the bare inference floor.
func BenchmarkPredict(b *testing.B) {
	ts := newTestServer(b, withFaces(b), func(c *app.Config) {
		c.KeyCacheTTL = time.Hour
		c.Server.Limits = hensachi.Limits{hensachi.PlanPro: {hensachi.ServiceFace: 1 << 40, hensachi.ServiceTown: 1 << 40}}
	})
	for _, name := range []string{"one-face", "many-face"} {
		data := benchImages(b)[name]
		b.Run(name+"/latency", func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				ct, body := multipartBody(b, [2]string{"file", string(data)})
				start := time.Now()
				if r := ts.post(b, ts.proKey, ct, body); r.status != 200 {
					b.Fatalf("status %d: %s", r.status, r.body)
				}
				lat = append(lat, time.Since(start))
			}
			b.ReportMetric(ms(percentile(lat, 0.5)), "p50-ms")
			b.ReportMetric(ms(percentile(lat, 0.95)), "p95-ms")
		})
		b.Run(name+"/throughput", func(b *testing.B) {
			// each client on its own account: one account may have only two calls in progress,
			// and the refusals of a shared one would be counted as fast answers
			const clients = 4
			keys := make([]string, clients)
			for i := range keys {
				keys[i], _ = storetest.CreateAccount(b, ts.store, fmt.Sprintf("bench-%s-%d-%d@example.com", name, b.N, i), hensachi.PlanPro)
			}
			var wg sync.WaitGroup
			var calls, ok, refused atomic.Int64
			start := time.Now()
			for _, key := range keys {
				wg.Go(func() {
					for calls.Add(1) <= int64(b.N) {
						ct, body := multipartBody(b, [2]string{"file", string(data)})
						switch r := ts.post(b, key, ct, body); r.status {
						case 200:
							ok.Add(1)
						case 503:
							refused.Add(1)
						default:
							b.Errorf("status %d", r.status)
							return
						}
					}
				})
			}
			wg.Wait()
			b.ReportMetric(float64(ok.Load())/time.Since(start).Seconds(), "req/s")
			b.ReportMetric(float64(refused.Load())/float64(b.N), "refused/call")
		})
	}
}

func percentile(ds []time.Duration, q float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
