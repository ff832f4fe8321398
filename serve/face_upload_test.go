package serve_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/app"
	"github.com/hensachi/hensachi/face"
)

// scriptedAnalyzer answers with fixed faces or a fixed error, so that the HTTP side of the upload
// path (multipart, sniffing, decoding, quota, JSON, storage, error mapping) is tested without the
// models; the real models are tested through withFaces.
type scriptedAnalyzer struct {
	faces []face.Face
	err   error
	seen  []image.Point // the sizes of the images it was given
}

func (a *scriptedAnalyzer) AnalyzePhoto(_ context.Context, photo *face.Photo) ([]face.Face, error) {
	a.seen = append(a.seen, image.Pt(photo.W, photo.H))
	return a.faces, a.err
}

// tenYears is an age range of five years either side.
type tenYears struct{}

func (tenYears) Range(age int) (low, high int) { return age - 5, age + 5 }

// memUploads keeps saved uploads in memory.
type memUploads struct {
	mu    sync.Mutex
	saved map[string]int // extension → count
}

func (u *memUploads) Save(_ []byte, ext string) (string, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.saved[ext]++
	return "name", nil
}

func TestPredictWithoutModels(t *testing.T) {
	t.Parallel()
	analyzer := &scriptedAnalyzer{faces: []face.Face{
		{X: 10, Y: 20, W: 100, H: 120, Age: 31, Male: 0.87654, Scored: true, RawScore: 3.14159, Score: 61.26, Detection: face.Detection{Score: 0.912345}},
		{X: 150, Y: 30, W: 40, H: 48, Age: 8, Male: 0.2, Scored: true, RawScore: 2.5, Score: 44.44, Detection: face.Detection{Score: 0.7}},
	}}
	store := &memUploads{saved: map[string]int{}}
	ts := newTestServer(t, func(c *app.Config) {
		c.Faces.Analyzer, c.Faces.Uploads, c.Faces.AgeRanges = analyzer, store, tenYears{}
	})

	ct, body := multipartBody(t, [2]string{"file", string(encodePNGImage(t, 320, 200))})
	r := ts.post(t, ts.freeKey, ct, body)
	if r.status != http.StatusOK {
		t.Fatalf("%d %s", r.status, r.body)
	}
	want := `"faces_detected":2,"results":[` +
		`{"face_id":0,"score":61.3,"raw_score":3.14,"age":31,"gender":"male","gender_prob":0.8765,"bbox":{"x":10,"y":20,"width":100,"height":120},"detection_score":0.9123,"age_range":{"low":26,"high":36}},` +
		`{"face_id":1,"score":44.4,"raw_score":2.5,"age":8,"gender":"female","gender_prob":0.8,"bbox":{"x":150,"y":30,"width":40,"height":48},"detection_score":0.7,"age_range":{"low":3,"high":13}}]`
	if !strings.Contains(string(r.body), want) {
		t.Errorf("body %s\nwant it to contain %s", r.body, want)
	}
	if len(analyzer.seen) != 1 || analyzer.seen[0] != image.Pt(320, 200) {
		t.Errorf("analyzer saw %v, want one 320×200 image", analyzer.seen)
	}
	if store.saved["png"] != 1 {
		t.Errorf("uploads saved %v, want one png", store.saved)
	}
	if used := ts.Quota.Used(ts.freeID, hensachi.ServiceFace); used != 1 {
		t.Errorf("used %d after one success", used)
	}

	for _, c := range []struct {
		err    error
		status int
		code   string
	}{
		{face.ErrOverloaded, http.StatusServiceUnavailable, hensachi.EOverloaded},
		{face.ErrClosed, http.StatusServiceUnavailable, hensachi.EUnavailable},
	} {
		analyzer.err = c.err
		ct, body := multipartBody(t, [2]string{"file", string(encodePNGImage(t, 64, 64))})
		r := ts.post(t, ts.freeKey, ct, body)
		if p := decode[problem](t, r.body); r.status != c.status || p.Code != c.code || r.header.Get("Retry-After") == "" {
			t.Errorf("analyzer error %v: %d %s (Retry-After %q)", c.err, r.status, r.body, r.header.Get("Retry-After"))
		}
	}
	// an analyzer running without the attractiveness model breaks the document's promise of a score
	analyzer.err, analyzer.faces = nil, []face.Face{{X: 1, Y: 1, W: 40, H: 40, Age: 30, Male: 0.9}}
	ct, body = multipartBody(t, [2]string{"file", string(encodePNGImage(t, 64, 64))})
	if r := ts.post(t, ts.freeKey, ct, body); r.status != http.StatusInternalServerError || decode[problem](t, r.body).Code != hensachi.EInternal {
		t.Errorf("face without a score: %d %s, want 500 internal_error", r.status, r.body)
	}
	if used := ts.Quota.Used(ts.freeID, hensachi.ServiceFace); used != 1 {
		t.Errorf("used %d after failed analyses, want 1", used)
	}
	if store.saved["png"] != 1 {
		t.Errorf("failed analyses stored uploads: %v", store.saved)
	}
}

// encodePNGImage encodes a w×h gradient as PNG.
func encodePNGImage(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 128, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
