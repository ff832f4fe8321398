package serve_test

import (
	"bytes"
	"hash/crc32"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/app"
	"github.com/hensachi/hensachi/internal/testrig/facetest"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
	"github.com/hensachi/hensachi/serve"
	"github.com/hensachi/hensachi/uploads"
)

func withFaces(t testing.TB) serverOption {
	a, ranges := facetest.ServingAnalyzer(t), facetest.AgeRanges(t)
	dir := t.TempDir()
	return func(c *app.Config) {
		c.Faces.Analyzer, c.Faces.Slots, c.Faces.AgeRanges = a, a.Capacity(), ranges // as Main wires them
		c.Faces.Uploads = &uploads.Store{Dir: dir, Retention: 24 * time.Hour}
	}
}

// multipartBody builds a multipart/form-data body with the given parts (name → content).
func multipartBody(t testing.TB, parts ...[2]string) (string, *bytes.Buffer) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, p := range parts {
		fw, err := w.CreateFormFile(p[0], "upload.bin")
		if err != nil {
			t.Fatal(err)
		}
		fw.Write([]byte(p[1]))
	}
	w.Close()
	return w.FormDataContentType(), &b
}

func (ts *testServer) post(t testing.TB, key, contentType string, body *bytes.Buffer) response {
	t.Helper()
	req, err := http.NewRequest("POST", ts.http.URL+"/face/v1/predict", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	resp, err := ts.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	out.ReadFrom(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: out.Bytes()}
}

type predictResponse struct {
	Success       bool `json:"success"`
	FacesDetected int  `json:"faces_detected"`
	Results       []struct {
		FaceID     int      `json:"face_id"`
		Score      *float64 `json:"score"`
		RawScore   *float64 `json:"raw_score"`
		Age        *float64 `json:"age"`
		Gender     string   `json:"gender"`
		GenderProb float64  `json:"gender_prob"`
		BBox       struct{ X, Y, Width, Height int }
		// the extra fields
		DetectionScore float64 `json:"detection_score"`
		AgeRange       *struct {
			Low  float64 `json:"low"`
			High float64 `json:"high"`
		} `json:"age_range"`
	} `json:"results"`
	Usage struct {
		Plan       string `json:"plan"`
		UsedToday  int    `json:"used_today"`
		LimitToday int    `json:"limit_today"`
	} `json:"usage"`
}

func scutImage(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testenv.Shared(t, "datasets/scut-fbp5500/SCUT-FBP5500_v2/Images"), name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPredict(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, withFaces(t))
	for _, name := range []string{"CF100.jpg", "AM100.jpg"} {
		ct, body := multipartBody(t, [2]string{"note", "ignored"}, [2]string{"file", string(scutImage(t, name))})
		r := ts.post(t, ts.freeKey, ct, body)
		if r.status != 200 {
			t.Fatalf("%s: %d %s", name, r.status, r.body)
		}
		if err := validateSchema(t, "#/components/schemas/PredictResponse", r.body); err != nil {
			t.Errorf("%s: response does not match openapi.json: %v", name, err)
		}
		p := decode[predictResponse](t, r.body)
		if !p.Success || p.FacesDetected != 1 || len(p.Results) != 1 {
			t.Fatalf("%s: %s", name, r.body)
		}
		f := p.Results[0]
		wantGender := map[byte]string{'F': "female", 'M': "male"}[name[1]]
		if f.FaceID != 0 || f.Score == nil || f.RawScore == nil || *f.RawScore < 1 || *f.RawScore > 5 || *f.Score < 20 || *f.Score > 80 ||
			f.Age == nil || *f.Age < 5 || *f.Age > 90 || f.Gender != wantGender || f.GenderProb < 0.5 || f.GenderProb > 1 ||
			f.BBox.Width < 50 || f.BBox.X < 0 || f.BBox.Y < 0 || f.BBox.X+f.BBox.Width > 256 || f.BBox.Y+f.BBox.Height > 256 {
			t.Errorf("%s: %s", name, r.body)
		}
		if f.DetectionScore < 0.7 || f.DetectionScore > 1 || f.AgeRange == nil || f.AgeRange.Low > *f.Age || f.AgeRange.High < *f.Age || f.AgeRange.High-f.AgeRange.Low > 40 {
			t.Errorf("%s: detection score or age range out of place: %s", name, r.body)
		}
		if p.Usage.Plan != "free" || p.Usage.LimitToday != 20 {
			t.Errorf("usage %+v", p.Usage)
		}
	}
	// the spec's field order
	ct, body := multipartBody(t, [2]string{"file", string(scutImage(t, "CF100.jpg"))})
	checkOrder(t, string(ts.post(t, ts.freeKey, ct, body).body), []string{`"success"`, `"faces_detected"`, `"results"`,
		`"face_id"`, `"score"`, `"raw_score"`, `"age"`, `"gender"`, `"gender_prob"`, `"bbox"`, `"x"`, `"y"`, `"width"`, `"height"`, `"detection_score"`, `"age_range"`, `"usage"`})
	// the upload was kept, content-addressed
	var stored int
	filepath.WalkDir(ts.config.Faces.Uploads.(*uploads.Store).Dir, func(_ string, d os.DirEntry, _ error) error {
		if d != nil && !d.IsDir() {
			stored++
		}
		return nil
	})
	if stored != 2 {
		t.Errorf("%d files stored for two distinct photos", stored)
	}
}

func TestPredictNoFace(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, withFaces(t))
	ct, body := multipartBody(t, [2]string{"file", string(encodePNGImage(t, 200, 150))})
	r := ts.post(t, ts.freeKey, ct, body)
	if r.status != 200 || !strings.Contains(string(r.body), `"faces_detected":0,"results":[]`) {
		t.Fatalf("no face: %d %s", r.status, r.body)
	}
	if used := ts.Quota.Used(ts.freeID, hensachi.ServiceFace); used != 1 {
		t.Errorf("a successful analysis without faces counted %d, want 1", used)
	}
}

func TestPredictErrors(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, withFaces(t))
	jpeg := scutImage(t, "AF1.jpg")
	big := strings.Repeat("x", serve.MaxUpload+1)
	tests := []struct {
		name   string
		ct     string
		body   *bytes.Buffer
		status int
		code   string
	}{
		{"not multipart", "application/json", bytes.NewBufferString(`{}`), 400, "missing_file"},
		{"multipart cut short", "multipart/form-data; boundary=x", bytes.NewBufferString("--x\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nabc"), 400, "missing_file"},
		{"no file part", "", nil, 400, "missing_file"},
		{"empty file", "", nil, 400, "missing_file"},
		{"gif", "", nil, 415, "unsupported_media_type"},
		{"truncated jpeg", "", nil, 400, "invalid_image"},
		{"too large", "", nil, 413, "file_too_large"},
		{"bomb png", "", nil, 400, "invalid_image"},
		{"two files", "", nil, 400, "invalid_parameter"},
	}
	bodies := map[string][][2]string{
		"no file part":   {{"image", string(jpeg)}},
		"empty file":     {{"file", ""}},
		"gif":            {{"file", "GIF89a" + strings.Repeat("\x00", 100)}},
		"truncated jpeg": {{"file", string(jpeg[:len(jpeg)/3])}},
		"too large":      {{"file", big}},
		"bomb png":       {{"file", string(pngHeader(30000, 30000))}},
		"two files":      {{"file", string(jpeg)}, {"note", "ignored"}, {"file", string(jpeg)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ct, body := tt.ct, tt.body
			if body == nil {
				ct, body = multipartBody(t, bodies[tt.name]...)
			}
			r := ts.post(t, ts.freeKey, ct, body)
			if err := validateSchema(t, "#/components/schemas/Problem", r.body); err != nil {
				t.Errorf("problem does not match openapi.json: %v", err)
			}
			p := decode[problem](t, r.body)
			if r.status != tt.status || p.Code != tt.code {
				t.Errorf("status %d code %s, want %d %s: %s", r.status, p.Code, tt.status, tt.code, r.body)
			}
			for _, leak := range []string{"EOF", "multipart:", "invalid JPEG", "Huffman", "png:"} {
				if strings.Contains(p.Detail, leak) {
					t.Errorf("detail %q repeats a library's message", p.Detail)
				}
			}
		})
	}
	if used := ts.Quota.Used(ts.freeID, hensachi.ServiceFace); used != 0 {
		t.Errorf("failed uploads counted %d", used)
	}
	if r := ts.do(t, "GET", "/face/v1/predict", "X-API-Key", ts.freeKey); r.status != 405 {
		t.Errorf("GET predict: %d", r.status)
	}
	ct, body := multipartBody(t, [2]string{"file", string(jpeg)})
	if r := ts.post(t, "", ct, body); r.status != 401 {
		t.Errorf("no key: %d", r.status)
	}
}

// pngHeader is a PNG signature and IHDR declaring w×h pixels, with no image data.
func pngHeader(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := []byte{0, 0, 0, 13, 'I', 'H', 'D', 'R', byte(w >> 24), byte(w >> 16), byte(w >> 8), byte(w), byte(h >> 24), byte(h >> 16), byte(h >> 8), byte(h), 8, 2, 0, 0, 0}
	b.Write(ihdr)
	b.Write(crc(ihdr[4:]))
	return b.Bytes()
}

func crc(b []byte) []byte {
	c := crc32.ChecksumIEEE(b)
	return []byte{byte(c >> 24), byte(c >> 16), byte(c >> 8), byte(c)}
}

// TestFaceDailyLimit: the face service has its own, smaller limit.
func TestFaceDailyLimit(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, withFaces(t))
	img := scutImage(t, "CM10.jpg")
	for i := range 21 {
		ct, body := multipartBody(t, [2]string{"file", string(img)})
		r := ts.post(t, ts.freeKey, ct, body)
		want := 200
		if i == 20 {
			want = 429
		}
		if r.status != want {
			t.Fatalf("call %d: %d, want %d: %s", i+1, r.status, want, r.body)
		}
	}
	// the statistics service still answers: limits are per service
	if r := ts.get(t, "/town/v1/meta"); r.status != 200 {
		t.Errorf("town after the face limit: %d", r.status)
	}

}
