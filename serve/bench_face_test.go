package serve

import (
	"bytes"
	"image"
	"image/draw"
	"image/jpeg"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
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
// calls and throughput with four clients; face's BenchmarkAnalyze compares the pipeline with the
// bare inference floor.
func BenchmarkPredict(b *testing.B) {
	ts := newTestServer(b, withFaces(b), func(c *Config) {
		c.KeyCacheTTL = time.Hour
		c.Limits = hensachi.Limits{hensachi.PlanPro: {hensachi.ServiceFace: 1 << 40, hensachi.ServiceTown: 1 << 40}}
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
			const clients = 4
			var wg sync.WaitGroup
			var mu sync.Mutex
			calls := 0
			start := time.Now()
			for range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						mu.Lock()
						if calls >= b.N {
							mu.Unlock()
							return
						}
						calls++
						mu.Unlock()
						ct, body := multipartBody(b, [2]string{"file", string(data)})
						if r := ts.post(b, ts.proKey, ct, body); r.status != 200 && r.status != 503 {
							b.Errorf("status %d", r.status)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
		})
	}
}

func percentile(ds []time.Duration, q float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
