package face

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

// benchPhotos returns one-face photos (a 256×256 SCUT portrait as it is, one on a 1280×960 canvas, a
// typical upload, an enlarged one on 1024×768 and one on a 4000×3000 phone-sized canvas) and group photos (nine
// portraits tiled 3×3 on 768×768, eight small ones spread over a 4000×3000 canvas), as JPEG files.
func benchPhotos(b testing.TB) map[string][]byte {
	one := canvas(1280, 960, 255)
	paste(one, scutImage(b, "AF10.jpg"), 512, 352)
	many := canvas(768, 768, 255)
	for i, name := range []string{"AF1.jpg", "AM2.jpg", "CF3.jpg", "CM4.jpg", "AF11.jpg", "AM6.jpg", "CF7.jpg", "CM8.jpg", "AF9.jpg"} {
		paste(many, scutImage(b, name), 256*(i%3), 256*(i/3))
	}
	photo := canvas(1024, 768, 200)
	paste(photo, Resize(scutImage(b, "CM4.jpg"), 300, 300), 362, 200)
	phone := canvas(4000, 3000, 180)
	paste(phone, Resize(scutImage(b, "AM2.jpg"), 900, 900), 1500, 900)
	group := canvas(4000, 3000, 150)
	for i, name := range []string{"AF1.jpg", "AM2.jpg", "CF3.jpg", "CM4.jpg", "AF11.jpg", "AM6.jpg", "CF7.jpg", "CM8.jpg"} {
		side := 140 + 20*(i%4) // faces of about 90–140 px: only the second pass at 1280 px finds them
		paste(group, Resize(scutImage(b, name), side, side), 400+800*(i%4), 900+900*(i/4))
	}
	enc := func(img *RGB) []byte { return encodeJPEG(b, img.image(), 90) }
	return map[string][]byte{"portrait-256": enc(scutImage(b, "AF1.jpg")), "one-face": enc(one), "many-face": enc(many), "one-face-1024": enc(photo), "phone-4000": enc(phone),
		"group-4000": enc(group)}
}

// BenchmarkAnalyze measures decoding and analysing a photo end to end as the service does
// (DecodePhoto, AnalyzePhoto) and, in the same run, two baselines: the floor, the bare model
// inference time for the same photo, and the full-resolution path without scaled decoding (Decode
// with image/jpeg, Analyze). It reports the p50 of each, p50/floor (goal ≤ 1.3), full/p50 (the
// speed-up), and the faces each path found, which must agree. serve's BenchmarkPredict adds the
// HTTP path, scripts/bench-face.sh the comparison with @vladmandic/human. The analyzer is
// configured as the server's: FaceRes, as the service's attribute model (face/attr) reads it, and
// the quick detection pass first (Config.QuickPass); the same analyzer without the quick pass, as
// the training extracts, is measured in the same run, taking turns (before-p50-ms, p50/before).
// The floor is the models' time on one CPU: a photo whose per-face models spread over idle CPUs
// can finish below it.
func BenchmarkAnalyze(b *testing.B) {
	bundle := modelBundle(b)
	if bundle.FaceRes() == nil {
		b.Fatal("the bundle has no FaceRes model")
	}
	a, err := startAnalyzer(b, func(c *Config) { c.FaceResPath, c.QuickPass = bundle.Path(bundle.FaceRes()), true })
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	before, err := startAnalyzer(b, func(c *Config) { c.FaceResPath = bundle.Path(bundle.FaceRes()) })
	if err != nil {
		b.Fatal(err)
	}
	defer before.Close()
	for name, data := range benchPhotos(b) {
		photo, err := DecodePhoto(data)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			var lat, floor, full, prev []time.Duration
			var faces, fullFaces, decoded int
			// analyzed decodes and analyses the photo as the service does, on an, and times it
			analyzed := func(an *Analyzer, lat *[]time.Duration) {
				start := time.Now()
				p, found := analyzeUpload(b, an, data)
				*lat = append(*lat, time.Since(start))
				if an == a {
					faces, decoded = len(found), p.decodedPixels
				}
			}
			// the three paths take turns in an order that rotates, so that none always runs
			// after the one whose garbage the collector is busy with
			paths := []func(){
				func() {
					start := time.Now()
					img, err := Decode(data)
					if err != nil {
						b.Fatal(err)
					}
					found, err := a.Analyze(context.Background(), img)
					if err != nil {
						b.Fatal(err)
					}
					full, fullFaces = append(full, time.Since(start)), len(found)
				},
				func() { analyzed(a, &lat) },
				func() { analyzed(before, &prev) },
			}
			for turn := 0; b.Loop(); turn++ {
				f, err := a.inferenceFloor(context.Background(), photo)
				if err != nil {
					b.Fatal(err)
				}
				floor = append(floor, f)
				for k := range paths {
					paths[(turn+k)%len(paths)]()
				}
			}
			p50, f50, full50, prev50 := median(lat), median(floor), median(full), median(prev)
			b.ReportMetric(float64(p50)/float64(time.Millisecond), "p50-ms")
			b.ReportMetric(float64(f50)/float64(time.Millisecond), "floor-ms")
			b.ReportMetric(float64(p50)/float64(f50), "p50/floor")
			b.ReportMetric(float64(full50)/float64(time.Millisecond), "full-p50-ms")
			b.ReportMetric(float64(full50)/float64(p50), "full/p50")
			b.ReportMetric(float64(prev50)/float64(time.Millisecond), "before-p50-ms")
			b.ReportMetric(float64(p50)/float64(prev50), "p50/before")
			b.ReportMetric(float64(faces), "faces")
			b.ReportMetric(float64(fullFaces), "full-faces")
			b.ReportMetric(float64(decoded)/float64(photo.W*photo.H), "decoded/pixels")
		})
	}
}

// BenchmarkSecondLook measures what the second look (Config.SecondLook) adds to photos without
// people, the photos that get it most: two of face/testdata/noface.txt's, a 1,600×1,203 one, on
// whose view the main pass alone runs (secondLookPasses), and a 451×300 one, on whose view the
// passes run as on the photo. Each is decoded and analysed as the service does, by the service's
// analyzer and by the same without the second look, taking turns. It reports the p50 of each and
// their ratio, with/without (goal for the large photo: at most 1.5).
func BenchmarkSecondLook(b *testing.B) {
	bundle := modelBundle(b)
	analyzers := [2]*Analyzer{} // without the second look, with it
	for i := range analyzers {
		a, err := startAnalyzer(b, func(c *Config) {
			c.FaceResPath, c.QuickPass, c.SecondLook = bundle.Path(bundle.FaceRes()), true, i == 1
		})
		if err != nil {
			b.Fatal(err)
		}
		defer a.Close()
		analyzers[i] = a
	}
	for _, name := range []string{"FreshFlower.jpg", "chelsea.png"} {
		data, err := os.ReadFile(filepath.Join(testenv.NoFacePhotos(b), name))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			var lat [2][]time.Duration
			for turn := 0; b.Loop(); turn++ {
				for k := range analyzers {
					i := (turn + k) % len(analyzers)
					start := time.Now()
					if _, faces := analyzeUpload(b, analyzers[i], data); len(faces) > 0 {
						b.Fatalf("%d faces on a photo without people", len(faces))
					}
					lat[i] = append(lat[i], time.Since(start))
				}
			}
			without, with := median(lat[0]), median(lat[1])
			b.ReportMetric(float64(without)/float64(time.Millisecond), "without-p50-ms")
			b.ReportMetric(float64(with)/float64(time.Millisecond), "with-p50-ms")
			b.ReportMetric(float64(with)/float64(without), "with/without")
		})
	}
}

// BenchmarkDecode measures decoding alone, with its allocations: DecodePhoto as the service
// decodes (the levels the main detection pass needs) against Decode (image/jpeg, full size), the
// decoder before scaled decoding.
func BenchmarkDecode(b *testing.B) {
	for name, data := range benchPhotos(b) {
		b.Run(name+"/photo", func(b *testing.B) {
			for b.Loop() {
				if _, err := DecodePhoto(data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/full", func(b *testing.B) {
			for b.Loop() {
				if _, err := Decode(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// inferenceFloor measures the bare model time of analysing p: the same session runs on the same
// inputs as AnalyzePhoto, with every preparation step (decoding, resizing, alignment, decoding
// outputs) done beforehand and left out of the clock. It is the floor the end-to-end latency is
// compared with.
func (a *Analyzer) inferenceFloor(ctx context.Context, p *Photo) (time.Duration, error) {
	dets, scales, err := a.detectPasses(ctx, p, everyPass)
	if err != nil {
		return 0, err
	}
	var total time.Duration
	for _, scale := range scales {
		data, _, pw, ph, err := detectionInput(p, scale)
		if err != nil {
			return 0, err
		}
		in, err := ort.NewTensor(ort.NewShape(1, 3, int64(ph), int64(pw)), data)
		if err != nil {
			return 0, err
		}
		outs := make([]ort.Value, len(yunetOutputNames))
		start := time.Now()
		err = a.detector.Run([]ort.Value{in}, outs)
		total += time.Since(start)
		in.Destroy()
		destroyAll(outs)
		if err != nil {
			return 0, err
		}
	}
	if len(dets) > a.cfg.MaxFaces {
		dets = dets[:a.cfg.MaxFaces]
	}
	mirrored := a.readsMirror()
	for _, d := range dets {
		aligned, err := alignFrom(p, d.Landmarks, ArcFace112)
		if err != nil {
			return 0, err
		}
		raw, norm := rawPlanes(aligned), normalisedPlanes(aligned)
		type job struct {
			s    *ort.DynamicAdvancedSession
			data []float32
			side int64
			outs int
		}
		jobs := []job{{a.genderAge, raw, AlignSize, 1}, {a.embedding, norm, AlignSize, 1}}
		if mirrored {
			jobs = append(jobs, job{a.genderAge, rawPlanes(Mirror(aligned)), AlignSize, 1})
		}
		if a.faceRes != nil {
			crop, err := alignFrom(p, d.Landmarks, FaceResTemplate)
			if err != nil {
				return 0, err
			}
			jobs = append(jobs, job{a.faceRes, faceResInput(crop), int64(FaceResTemplate.Size), len(faceResOutputNames)})
		}
		for _, job := range jobs {
			if job.s == nil {
				continue
			}
			in, err := ort.NewTensor(ort.NewShape(1, 3, job.side, job.side), job.data)
			if err != nil {
				return 0, err
			}
			outs := make([]ort.Value, job.outs)
			start := time.Now()
			err = job.s.Run([]ort.Value{in}, outs)
			total += time.Since(start)
			in.Destroy()
			destroyAll(outs)
			if err != nil {
				return 0, err
			}
		}
	}
	return total, nil
}

// BenchmarkModels measures each model's bare inference on one input of the size the service gives
// it, on one intra-op thread and on two: the detector at the quick pass's sizes (a 256×256
// portrait as it is, a 1024×768 photo at 320×240 padded to 320×256) and at the main pass's (the
// portrait enlarged to 512×512, the photo at 640×480), and the per-face models. It reports each
// one's p50 in ms.
func BenchmarkModels(b *testing.B) {
	bundle := modelBundle(b)
	for _, threads := range []int{1, 2} {
		a, err := startAnalyzer(b, func(c *Config) {
			c.FaceResPath, c.IntraOpThreads, c.Workers = bundle.Path(bundle.FaceRes()), threads, 1
		})
		if err != nil {
			b.Fatal(err)
		}
		defer a.Close()
		models := []struct {
			name    string
			session *ort.DynamicAdvancedSession
			h, w    int64
			outputs int
		}{
			{"detector-256x256", a.detector, 256, 256, len(yunetOutputNames)},
			{"detector-320x256", a.detector, 256, 320, len(yunetOutputNames)},
			{"detector-512x512", a.detector, 512, 512, len(yunetOutputNames)},
			{"detector-640x480", a.detector, 480, 640, len(yunetOutputNames)},
			{"gender-age-112", a.genderAge, AlignSize, AlignSize, 1},
			{"embedding-112", a.embedding, AlignSize, AlignSize, 1},
			{"faceres-160", a.faceRes, int64(FaceResTemplate.Size), int64(FaceResTemplate.Size), len(faceResOutputNames)},
		}
		for _, m := range models {
			b.Run(fmt.Sprintf("%s/threads-%d", m.name, threads), func(b *testing.B) {
				data := make([]float32, 3*m.h*m.w)
				for i := range data {
					data[i] = float32(i % 251)
				}
				in, err := ort.NewTensor(ort.NewShape(1, 3, m.h, m.w), data)
				if err != nil {
					b.Fatal(err)
				}
				defer in.Destroy()
				var lat []time.Duration
				for b.Loop() {
					outs := make([]ort.Value, m.outputs)
					start := time.Now()
					err := m.session.Run([]ort.Value{in}, outs)
					lat = append(lat, time.Since(start))
					destroyAll(outs)
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(median(lat))/float64(time.Millisecond), "p50-ms")
			})
		}
	}
}
