package face

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/face/models"
	"github.com/hensachi/hensachi/face/ort"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
	onnx "github.com/yalue/onnxruntime_go"
)

// The end-to-end tests run the real models: ONNX Runtime from `make runtime` (or $ONNXRUNTIME_LIB)
// and the bundle from `make models` in <module root>/models (or $HENSACHI_MODELS). Without them the
// tests skip, except under CI=true, where they fail.

// scutDir is the SCUT-FBP5500 image directory inside the shared inputs.
const scutDir = "datasets/scut-fbp5500/SCUT-FBP5500_v2/Images"

func TestMain(m *testing.M) {
	code := m.Run()
	if sharedAnalyzer.a != nil {
		sharedAnalyzer.a.Close()
	}
	os.Exit(code)
}

// modelBundle returns the checked model bundle of `make models`.
func modelBundle(t testing.TB) *models.Bundle {
	t.Helper()
	b, err := models.Load(testenv.Models(t))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// newTestAnalyzer initialises ONNX Runtime and starts an analyzer on the bundle's models with
// the configuration edited by edit; it is closed when the test ends.
func newTestAnalyzer(t testing.TB, edit func(*Config)) *Analyzer {
	t.Helper()
	a, err := startAnalyzer(t, edit)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

func startAnalyzer(t testing.TB, edit func(*Config)) (*Analyzer, error) {
	t.Helper()
	lib := testenv.ONNXRuntime(t)
	if err := ort.Init(lib); err != nil {
		t.Fatal(err)
	}
	b := modelBundle(t)
	cfg := Config{
		DetectorPath:  b.Path(b.Detector()),
		GenderAgePath: b.Path(b.GenderAge()),
		EmbeddingPath: b.Path(b.Embedding()),
		Workers:       2,
	}
	if edit != nil {
		edit(&cfg)
	}
	return NewAnalyzer(cfg)
}

// sharedAnalyzer is the default analyzer most end-to-end tests use; TestMain closes it.
var sharedAnalyzer struct {
	sync.Mutex
	a *Analyzer
}

func testAnalyzer(t testing.TB) *Analyzer {
	t.Helper()
	sharedAnalyzer.Lock()
	defer sharedAnalyzer.Unlock()
	if sharedAnalyzer.a == nil {
		a, err := startAnalyzer(t, nil)
		if err != nil {
			t.Fatal(err)
		}
		sharedAnalyzer.a = a
	}
	return sharedAnalyzer.a
}

// scutSample returns perGroup images of each of AF, AM, CF and CM, evenly spread over the
// numbering, as paths.
func scutSample(t *testing.T, perGroup int) []string {
	t.Helper()
	dir := testenv.Shared(t, scutDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	groups := map[string][]int{}
	for _, e := range entries {
		name := e.Name()
		if len(name) < 7 || !strings.HasSuffix(name, ".jpg") {
			continue
		}
		if n, err := strconv.Atoi(strings.TrimSuffix(name[2:], ".jpg")); err == nil {
			groups[name[:2]] = append(groups[name[:2]], n)
		}
	}
	var out []string
	for _, g := range []string{"AF", "AM", "CF", "CM"} {
		nums := groups[g]
		if len(nums) < perGroup {
			t.Fatalf("%s has %d images", g, len(nums))
		}
		slices.Sort(nums)
		for i := range perGroup {
			out = append(out, filepath.Join(dir, fmt.Sprintf("%s%d.jpg", g, nums[i*len(nums)/perGroup])))
		}
	}
	return out
}

// scutImage decodes one SCUT-FBP5500 image by name.
func scutImage(t testing.TB, name string) *RGB {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testenv.Shared(t, scutDir), name))
	if err != nil {
		t.Fatal(err)
	}
	img, err := Decode(data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return img
}

// analyze runs one image through the analyzer and fails the test on an error.
func analyze(t *testing.T, a *Analyzer, img *RGB) []Face {
	t.Helper()
	faces, err := a.Analyze(context.Background(), img)
	if err != nil {
		t.Fatal(err)
	}
	checkFaces(t, img, faces)
	return faces
}

// analyzeUpload decodes an upload as the service does and analyses it.
func analyzeUpload(tb testing.TB, a *Analyzer, data []byte) (*Photo, []Face) {
	tb.Helper()
	p, err := DecodePhoto(data)
	if err != nil {
		tb.Fatal(err)
	}
	faces, err := a.AnalyzePhoto(context.Background(), p)
	if err != nil {
		tb.Fatal(err)
	}
	return p, faces
}

// checkFaces checks what holds for any result: boxes inside the image, largest first, plausible
// attributes.
func checkFaces(t *testing.T, img *RGB, faces []Face) {
	t.Helper()
	for i, f := range faces {
		if f.W <= 0 || f.H <= 0 || f.X < 0 || f.Y < 0 || f.X+f.W > img.W || f.Y+f.H > img.H {
			t.Errorf("face %d: box %d,%d %d×%d is not inside the %d×%d image", i, f.X, f.Y, f.W, f.H, img.W, img.H)
		}
		if f.Detection.Score < scoreThreshold || f.Detection.Score > 1 {
			t.Errorf("face %d: detection score %v", i, f.Detection.Score)
		}
		if f.Male < 0 || f.Male > 1 || f.Age < 0 || f.Age > 100 {
			t.Errorf("face %d: male %v, age %d", i, f.Male, f.Age)
		}
		if len(f.Embedding) != 512 || f.Scored {
			t.Errorf("face %d: %d-d embedding, scored %v; want 512-d and unscored without a scorer", i, len(f.Embedding), f.Scored)
		}
		if i > 0 && faces[i-1].Detection.Box.area() < f.Detection.Box.area() {
			t.Errorf("face %d is larger than face %d", i, i-1)
		}
	}
}

// sameBox reports whether two boxes agree within tol pixels on every side.
func sameBox(a, b Face, tol int) bool {
	d := func(x, y int) bool { return x-y <= tol && y-x <= tol }
	return d(a.X, b.X) && d(a.Y, b.Y) && d(a.X+a.W, b.X+b.W) && d(a.Y+a.H, b.Y+b.H)
}

// TestSCUT analyses a spread of SCUT-FBP5500 portraits: one face each, filling much of the picture,
// the gender of the file name for most, an adult's age.
func TestSCUT(t *testing.T) {
	a := testAnalyzer(t)
	paths := scutSample(t, 10)
	type result struct {
		img   *RGB
		faces []Face
		err   error
	}
	results := make([]result, len(paths))
	// two callers, as many as the analyzer's workers: the queue never overflows
	var wg sync.WaitGroup
	next := make(chan int)
	for range 2 {
		wg.Go(func() {
			for i := range next {
				data, err := os.ReadFile(paths[i])
				if err != nil {
					results[i].err = err
					continue
				}
				if results[i].img, results[i].err = Decode(data); results[i].err == nil {
					results[i].faces, results[i].err = a.Analyze(context.Background(), results[i].img)
				}
			}
		})
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()

	genderRight := 0
	for i, p := range paths {
		name := filepath.Base(p)
		r := results[i]
		if r.err != nil {
			t.Errorf("%s: %v", name, r.err)
			continue
		}
		checkFaces(t, r.img, r.faces)
		if len(r.faces) != 1 {
			t.Errorf("%s: %d faces in a single portrait", name, len(r.faces))
			if len(r.faces) == 0 {
				continue
			}
		}
		f := r.faces[0]
		if f.W*f.H < r.img.W*r.img.H/10 {
			t.Errorf("%s: the largest face is %d×%d in a %d×%d portrait", name, f.W, f.H, r.img.W, r.img.H)
		}
		if f.Age < 5 || f.Age > 90 {
			t.Errorf("%s: age %d", name, f.Age)
		}
		male := name[1] == 'M'
		if (f.Male > 0.5) == male {
			genderRight++
		} else {
			t.Logf("%s: P(male) %.2f", name, f.Male)
		}
	}
	if share := float64(genderRight) / float64(len(paths)); share < 0.85 {
		t.Errorf("gender right for %d of %d images (%.0f%%), want at least 85%%", genderRight, len(paths), 100*share)
	} else {
		t.Logf("gender right for %d of %d images", genderRight, len(paths))
	}
}

func TestNoFace(t *testing.T) {
	a := testAnalyzer(t)
	rng := rand.New(rand.NewPCG(7, 11))
	noise := &RGB{W: 320, H: 240, Pix: make([]uint8, 3*320*240)}
	for i := range noise.Pix {
		noise.Pix[i] = uint8(rng.UintN(256))
	}
	for name, img := range map[string]*RGB{
		"gradient":  toRGB(gradient(320, 240)),
		"noise":     noise,
		"black":     constantRGB(200, 150, [3]uint8{}),
		"one pixel": constantRGB(1, 1, [3]uint8{200, 150, 120}),
	} {
		t.Run(name, func(t *testing.T) {
			if faces := analyze(t, a, img); len(faces) != 0 {
				t.Errorf("%d faces in an image without any: %+v", len(faces), faces[0])
			}
		})
	}
}

// paste copies src into dst with its top-left corner at (x, y).
func paste(dst, src *RGB, x, y int) {
	for r := range src.H {
		copy(dst.Pix[3*((y+r)*dst.W+x):], src.Pix[3*r*src.W:3*(r+1)*src.W])
	}
}

// canvas is a w×h image filled with one grey.
func canvas(w, h int, grey uint8) *RGB {
	return &RGB{W: w, H: h, Pix: bytes.Repeat([]byte{grey}, 3*w*h)}
}

// TestEXIFRotation stores a portrait turned on its side with the EXIF orientation that turns it
// back: the faces must be where they are in the upright picture.
func TestEXIFRotation(t *testing.T) {
	a := testAnalyzer(t)
	// a landscape picture, so that a wrong turn shows in the size too
	upright := canvas(320, 256, 128)
	paste(upright, scutImage(t, "AM1000.jpg"), 0, 0)
	ref, err := Decode(encodeJPEG(t, upright.image(), 95))
	if err != nil {
		t.Fatal(err)
	}
	want := analyze(t, a, ref)
	if len(want) != 1 {
		t.Fatalf("%d faces in the upright picture, want 1", len(want))
	}
	for _, tc := range []struct{ orientation, storedAs int }{
		{6, 8}, // stored turned counter-clockwise, displayed turned clockwise
		{8, 6},
		{3, 3},
	} {
		t.Run(fmt.Sprint(tc.orientation), func(t *testing.T) {
			stored := encodeJPEG(t, upright.Orient(tc.storedAs).image(), 95)
			plain, err := Decode(stored)
			if err != nil {
				t.Fatal(err)
			}
			img, err := Decode(withOrientation(stored, binaryOrders[tc.orientation%2], tc.orientation))
			if err != nil {
				t.Fatal(err)
			}
			if img.W != 320 || img.H != 256 || (tc.orientation != 3 && plain.W != 256) {
				t.Fatalf("decoded %d×%d (%d×%d without the EXIF), want 320×256", img.W, img.H, plain.W, plain.H)
			}
			got := analyze(t, a, img)
			if len(got) != len(want) || !sameBox(got[0], want[0], 3) {
				t.Fatalf("faces %+v, want one at %d,%d %d×%d", got, want[0].X, want[0].Y, want[0].W, want[0].H)
			}
			if (got[0].Male > 0.5) != (want[0].Male > 0.5) {
				t.Errorf("P(male) %.2f, upright %.2f", got[0].Male, want[0].Male)
			}
		})
	}
}

// binaryOrders alternates the byte order of the EXIF blocks.
var binaryOrders = [2]byteOrder{binary.LittleEndian, binary.BigEndian}

// TestGroup tiles four portraits of different sizes into one picture: four faces, largest first,
// each in its own tile.
func TestGroup(t *testing.T) {
	a := testAnalyzer(t)
	type tile struct {
		name       string
		x, y, side int
	}
	tiles := []tile{
		{"CF100.jpg", 0, 0, 320},
		{"AM20.jpg", 360, 0, 256},
		{"AF1500.jpg", 0, 340, 200},
		{"CM600.jpg", 360, 340, 160},
	}
	img := canvas(720, 560, 100)
	for _, tl := range tiles {
		paste(img, Resize(scutImage(t, tl.name), tl.side, tl.side), tl.x, tl.y)
	}
	faces := analyze(t, a, img)
	if len(faces) != len(tiles) {
		t.Fatalf("%d faces, want %d: %+v", len(faces), len(tiles), faces)
	}
	for i, f := range faces {
		tl := tiles[i]
		cx, cy := f.X+f.W/2, f.Y+f.H/2
		if cx < tl.x || cx >= tl.x+tl.side || cy < tl.y || cy >= tl.y+tl.side {
			t.Errorf("face %d centred at (%d,%d), want it in the tile of %s at %d,%d %d×%d", i, cx, cy, tl.name, tl.x, tl.y, tl.side, tl.side)
		}
		if male := tl.name[1] == 'M'; (f.Male > 0.5) != male {
			t.Logf("%s: P(male) %.2f", tl.name, f.Male)
		}
	}
}

// TestSmallFaceInLargePicture puts one small portrait in a 2500×1800 picture: the main pass at
// 640 pixels sees the face too small to find, the second pass at 1280 finds it.
func TestSmallFaceInLargePicture(t *testing.T) {
	a := testAnalyzer(t)
	const side, x, y = 72, 1700, 600
	img := canvas(2500, 1800, 120)
	paste(img, Resize(scutImage(t, "AF1200.jpg"), side, side), x, y)
	if got := detectScales(img.W, img.H); len(got) != 2 {
		t.Fatalf("detectScales = %v, want two passes", got)
	}
	faces := analyze(t, a, img)
	if len(faces) != 1 {
		t.Fatalf("%d faces, want 1: %+v", len(faces), faces)
	}
	f := faces[0]
	if cx, cy := f.X+f.W/2, f.Y+f.H/2; cx < x || cx >= x+side || cy < y || cy >= y+side || f.W > side {
		t.Errorf("face at %d,%d %d×%d, want it inside %d,%d %d×%d", f.X, f.Y, f.W, f.H, x, y, side, side)
	}
	// the picture at the main pass's size, searched on its own, has no face: the second pass
	// found it
	main := detectScales(img.W, img.H)[0]
	small := Resize(img, int(float64(img.W)*main+0.5), int(float64(img.H)*main+0.5))
	dets, err := a.Detect(context.Background(), small)
	if err != nil {
		t.Fatal(err)
	}
	if len(dets) != 0 {
		t.Errorf("the main pass alone finds %d faces; the test no longer exercises the second pass", len(dets))
	}
}

// TestLargeFaceSkipsSecondPass: a portrait large enough in a big photo is found by the main pass
// alone, which is all the pipeline runs; a small face keeps the second pass (as above).
func TestLargeFaceSkipsSecondPass(t *testing.T) {
	a := testAnalyzer(t)
	img := canvas(1600, 1200, 120)
	paste(img, Resize(scutImage(t, "AM20.jpg"), 400, 400), 600, 400)
	scales := detectScales(img.W, img.H)
	if len(scales) != 2 {
		t.Fatalf("detectScales = %v, want two passes for a 1600×1200 photo", scales)
	}
	dets, ran, err := a.detectPasses(context.Background(), PhotoOf(img), everyPass)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ran, scales[:1]) {
		t.Fatalf("passes at %v, want the main pass alone (%v); it found %+v", ran, scales[0], dets)
	}
	faces := analyze(t, a, img)
	if len(faces) != 1 || faces[0].X < 600 || faces[0].X+faces[0].W > 1000 {
		t.Errorf("faces %+v, want the one portrait", faces)
	}
	if largeEnough(nil, scales[0], skipFineSide) || largeEnough([]Detection{{Box: Box{W: 80, H: 90}}}, scales[0], skipFineSide) {
		t.Error("no face, or a face of 40 main-pass pixels, must keep the second pass")
	}
}

// TestHostileFiles sends broken and malicious files through Decode, as an upload would go.
func TestHostileFiles(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testenv.Shared(t, scutDir), "CM1.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	sos := sosOffset(t, data)
	rng := rand.New(rand.NewPCG(3, 5))
	garbage := []byte{0xFF, 0xD8, 0xFF}
	for range 4096 {
		garbage = append(garbage, uint8(rng.UintN(256)))
	}
	for _, tc := range []struct {
		name string
		data []byte
		code string
	}{
		{"truncated after the header", data[:sos+64], hensachi.EInvalidImage},
		{"truncated in the middle", data[:len(data)/2], hensachi.EInvalidImage},
		{"header only", data[:sos], hensachi.EInvalidImage},
		{"random bytes with a JPEG magic", garbage, hensachi.EInvalidImage},
		{"PNG bomb header", pngHeaderOnly(30000, 30000), hensachi.EInvalidImage},
		{"JPEG bomb header", withJPEGSize(t, data, 60000, 60000), hensachi.EInvalidImage},
		{"JPEG without its magic", data[3:], hensachi.EUnsupportedMedia},
		{"GIF", []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"), hensachi.EUnsupportedMedia},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img, err := Decode(tc.data)
			if img != nil {
				t.Fatalf("decoded %d×%d", img.W, img.H)
			}
			wantCode(t, err, tc.code)
		})
	}
	if _, err := Decode(data); err != nil {
		t.Fatalf("the intact file: %v", err)
	}
}

// returnsWithin runs f and fails the test if it has not returned within d.
func returnsWithin(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s has not returned after %v", what, d)
	}
}

func TestAnalyzeCancelled(t *testing.T) {
	a := testAnalyzer(t)
	img := scutImage(t, "AF10.jpg")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for range 10 { // more than the queue holds: cancelled calls take no place in it
		var faces []Face
		var err error
		start := time.Now()
		returnsWithin(t, 10*time.Second, "Analyze with a cancelled context", func() { faces, err = a.Analyze(ctx, img) })
		if !errors.Is(err, context.Canceled) || faces != nil {
			t.Fatalf("Analyze(cancelled) = %v, %v; want context.Canceled", faces, err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("Analyze(cancelled) took %v", d)
		}
	}
	// the pool still works
	if faces := analyze(t, a, img); len(faces) != 1 {
		t.Errorf("%d faces after cancelled calls", len(faces))
	}
}

// TestAnalyzeCancelledWhileRunning cancels at different moments of an analysis: the result is
// either complete or context.Canceled, never another error.
func TestAnalyzeCancelledWhileRunning(t *testing.T) {
	a := testAnalyzer(t)
	img := canvas(1000, 700, 90)
	paste(img, scutImage(t, "CF300.jpg"), 300, 200)
	for _, delay := range []time.Duration{0, time.Millisecond, 3 * time.Millisecond, 10 * time.Millisecond, 30 * time.Millisecond, 100 * time.Millisecond, time.Second} {
		ctx, cancel := context.WithCancel(context.Background())
		timer := time.AfterFunc(delay, cancel)
		var faces []Face
		var err error
		returnsWithin(t, 30*time.Second, "analyze", func() { faces, err = a.analyze(ctx, PhotoOf(img)) })
		timer.Stop()
		cancel()
		t.Logf("cancel after %v: %d faces, %v", delay, len(faces), err)
		switch {
		case err == nil:
			if len(faces) != 1 {
				t.Errorf("cancel after %v: %d faces", delay, len(faces))
			}
		case !errors.Is(err, context.Canceled):
			t.Errorf("cancel after %v: %v, want context.Canceled", delay, err)
		}
	}
}

// TestRunCancelled cancels detector runs while ONNX Runtime is inside them: run terminates the
// run and returns context.Canceled. (run also waits for the goroutine calling Terminate before it
// frees the run options; -race cannot see that race, as it treats every cgo call as a
// synchronisation, but this test at least drives the path.)
func TestRunCancelled(t *testing.T) {
	a := testAnalyzer(t)
	img := canvas(1280, 960, 90)
	data, _, _, pw, ph := yunetInput(img, 1)
	runOnce := func(ctx context.Context) error {
		in, err := onnx.NewTensor(onnx.NewShape(1, 3, int64(ph), int64(pw)), data)
		if err != nil {
			t.Fatal(err)
		}
		defer in.Destroy()
		outs := make([]onnx.Value, len(yunetOutputNames))
		defer destroyAll(outs)
		return run(ctx, a.detector, []onnx.Value{in}, outs)
	}
	start := time.Now()
	if err := runOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	full := time.Since(start)
	cancelled := 0
	for _, delay := range []time.Duration{0, full / 8, full / 4, full / 2, 3 * full / 4, full, 2 * full} {
		ctx, cancel := context.WithCancel(context.Background())
		timer := time.AfterFunc(delay, cancel)
		var err error
		returnsWithin(t, 30*time.Second, "run", func() { err = runOnce(ctx) })
		timer.Stop()
		cancel()
		switch {
		case errors.Is(err, context.Canceled):
			cancelled++
		case err != nil:
			t.Errorf("cancel after %v of a %v run: %v", delay, full, err)
		}
	}
	if cancelled == 0 {
		t.Errorf("no run of %v was cancelled", full)
	}
}

// TestCloseWaitsForRunningWork closes an analyzer while its worker is analysing an image whose
// caller has left: Close must let the analysis finish before it releases the sessions.
func TestCloseWaitsForRunningWork(t *testing.T) {
	a, err := startAnalyzer(t, func(c *Config) { c.Workers, c.IntraOpThreads = 1, 1 })
	if err != nil {
		t.Fatal(err)
	}
	img := canvas(1280, 960, 90)
	paste(img, scutImage(t, "CM300.jpg"), 500, 300)
	j := &job{ctx: context.Background(), photo: PhotoOf(img), done: make(chan struct{})}
	a.jobs <- j
	for deadline := time.Now().Add(10 * time.Second); len(a.jobs) > 0; {
		if time.Now().After(deadline) {
			t.Fatal("the worker did not take the job")
		}
		runtime.Gosched() // bounded polling for the worker to start, yielding rather than sleeping
	}
	returnsWithin(t, 60*time.Second, "Close", a.Close)
	select {
	case <-j.done:
	default:
		t.Fatal("Close returned before the running analysis finished")
	}
	if j.err != nil || len(j.faces) != 1 {
		t.Errorf("the analysis running during Close: %d faces, %v", len(j.faces), j.err)
	}
}

// TestAnalyzeOverloaded floods an analyzer of one worker and a queue of one: the calls beyond
// what it can hold are refused at once, the others complete, none hangs.
func TestAnalyzeOverloaded(t *testing.T) {
	a := newTestAnalyzer(t, func(c *Config) { c.Workers, c.QueueSize, c.IntraOpThreads = 1, 1, 1 })
	img := canvas(640, 480, 90)
	paste(img, scutImage(t, "AM500.jpg"), 100, 100)
	const callers = 12
	overloaded, done := 0, 0
	for wave := 0; wave < 10 && overloaded == 0; wave++ {
		start := make(chan struct{})
		errs := make([]error, callers)
		faces := make([][]Face, callers)
		var wg sync.WaitGroup
		for i := range callers {
			wg.Go(func() {
				<-start
				faces[i], errs[i] = a.Analyze(context.Background(), img)
			})
		}
		close(start)
		returnsWithin(t, 60*time.Second, "the flooded Analyze calls", wg.Wait)
		for i, err := range errs {
			switch {
			case err == nil:
				done++
				if len(faces[i]) != 1 {
					t.Errorf("%d faces", len(faces[i]))
				}
			case errors.Is(err, ErrOverloaded):
				overloaded++
			default:
				t.Errorf("Analyze: %v", err)
			}
		}
	}
	t.Logf("%d calls done, %d refused", done, overloaded)
	if overloaded == 0 || done == 0 {
		t.Errorf("%d calls done, %d refused; want both", done, overloaded)
	}
	// once the flood is over the analyzer takes work again
	if faces := analyze(t, a, img); len(faces) != 1 {
		t.Errorf("%d faces after the flood", len(faces))
	}
}

// TestQueueWithoutModels checks the queue on an analyzer whose workers are not running: a call
// whose context has ended is not queued, the queue holds QueueSize calls, the next is refused at once, a waiting caller leaves when its
// context ends, and a worker skips a job whose caller has left.
func TestQueueWithoutModels(t *testing.T) {
	a := &Analyzer{cfg: Config{QueueSize: 1}, jobs: make(chan *job, 1), stop: make(chan struct{})}
	img := constantRGB(4, 4, [3]uint8{})
	ctx, cancel := context.WithCancel(context.Background())
	gone, leave := context.WithCancel(context.Background())
	leave()
	if _, err := a.Analyze(gone, img); !errors.Is(err, context.Canceled) || len(a.jobs) != 0 {
		t.Fatalf("Analyze(cancelled) = %v with %d jobs queued; want context.Canceled and none", err, len(a.jobs))
	}
	first := make(chan error, 1)
	go func() {
		_, err := a.Analyze(ctx, img)
		first <- err
	}()
	for deadline := time.Now().Add(10 * time.Second); len(a.jobs) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the first call was not queued")
		}
		runtime.Gosched() // bounded polling for the goroutine to queue its job, yielding rather than sleeping
	}
	if _, err := a.Analyze(context.Background(), img); !errors.Is(err, ErrOverloaded) {
		t.Fatalf("Analyze on a full queue = %v, want ErrOverloaded", err)
	}
	cancel()
	select {
	case err := <-first:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the waiting call returned %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting call did not leave when its context ended")
	}
	// a worker takes the abandoned job and skips it without touching the (absent) sessions
	j := <-a.jobs
	a.jobs <- j
	a.workers.Go(a.work)
	select {
	case <-j.done:
		if !errors.Is(j.err, context.Canceled) || j.faces != nil {
			t.Errorf("skipped job: %v, %v", j.faces, j.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the worker did not finish the abandoned job")
	}
	returnsWithin(t, 10*time.Second, "Close", a.Close)
	a.Close() // a second Close does nothing
}

// TestFaceRes: with the FaceRes model, every face carries its outputs (non-negative dense
// features, P(male), age probabilities that sum to 1), and its own gender reading is right on
// most portraits, which it would not be in the wrong colour order or crop.
func TestFaceRes(t *testing.T) {
	b := modelBundle(t)
	a := newTestAnalyzer(t, func(c *Config) { c.FaceResPath = b.Path(b.FaceRes()) })
	paths := scutSample(t, 5)
	right := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		img, err := Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		faces := analyze(t, a, img)
		if len(faces) != 1 {
			t.Fatalf("%s: %d faces", p, len(faces))
		}
		out := faces[0].Features.FaceRes
		if len(out) != FaceResFeatures {
			t.Fatalf("%s: %d FaceRes outputs, want %d", p, len(out), FaceResFeatures)
		}
		sum := 0.0
		for i, v := range out {
			if v < 0 || (i >= 256 && v > 1) {
				t.Errorf("%s: FaceRes output %d is %v", p, i, v)
			}
			if i > 256 {
				sum += float64(v)
			}
		}
		if math.Abs(sum-1) > 1e-3 {
			t.Errorf("%s: age probabilities sum to %v", p, sum)
		}
		if male := filepath.Base(p)[1] == 'M'; (out[256] > 0.5) == male {
			right++
		}
	}
	if right < len(paths)*8/10 {
		t.Errorf("FaceRes's own gender is right for %d of %d portraits", right, len(paths))
	}
}

// TestPhotoParallelismSameFaces analyses a group photo whose small faces need finer levels of the
// JPEG with the per-face models spread over idle CPUs and with them one after another: the faces
// must be the same to the last bit, whatever order the runs took. Each run has one thread, so
// that ONNX Runtime's own threading, which this test is not about, cannot change a last bit.
func TestPhotoParallelismSameFaces(t *testing.T) {
	b := modelBundle(t)
	withFaceRes := func(parallelism int) func(*Config) {
		return func(c *Config) {
			c.FaceResPath, c.PhotoParallelism, c.IntraOpThreads = b.Path(b.FaceRes()), parallelism, 1
		}
	}
	serial, spread := newTestAnalyzer(t, withFaceRes(1)), newTestAnalyzer(t, withFaceRes(4))
	img := canvas(2400, 1800, 150)
	for i, name := range []string{"AF1.jpg", "AM2.jpg", "CF3.jpg", "CM4.jpg", "AF11.jpg", "AM6.jpg"} {
		side := 100 + 40*i
		paste(img, Resize(scutImage(t, name), side, side), 100+380*i, 300+200*(i%3))
	}
	data := encodeJPEG(t, img.image(), 90)
	_, want := analyzeUpload(t, serial, data)
	if len(want) != 6 {
		t.Fatalf("%d faces, want 6", len(want))
	}
	for range 3 {
		if _, got := analyzeUpload(t, spread, data); !reflect.DeepEqual(got, want) {
			t.Fatalf("spread over CPUs:\n%+v\none after another:\n%+v", got, want)
		}
	}
}
