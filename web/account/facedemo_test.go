package account

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/facecall"
	"github.com/hensachi/hensachi/internal/testrig/facetest"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
	"github.com/hensachi/hensachi/internal/testrig/webclient"
	"github.com/hensachi/hensachi/quota"
	"github.com/hensachi/hensachi/uploads"
)

// withFaces gives the pages the face demo as cmd/hensachi wires it: the face calls (package
// facecall) with the committed models, keeping uploads, counted on a real quota over the store,
// which the account page reads too.
func withFaces(t testing.TB) func(*loginEnv, *Deps) {
	t.Helper()
	analyzer := facetest.Analyzer(t)
	dir := t.TempDir()
	return func(env *loginEnv, d *Deps) {
		q, err := quota.New(context.Background(), env.store, d.Limits, time.Now)
		if err != nil {
			t.Fatal(err)
		}
		env.quota, d.Usage = q, q
		d.Faces = FaceCalls{Limits: d.Limits, Calls: facecall.New(facecall.Config{Analyzer: analyzer, Quota: q,
			Uploads: &uploads.Store{Dir: dir, Retention: 24 * time.Hour}})}
	}
}

// scutPhoto is the path of a photo of the SCUT-FBP5500 data set in the shared inputs.
func scutPhoto(t testing.TB, name string) string {
	t.Helper()
	return filepath.Join(testenv.Shared(t, "datasets/scut-fbp5500/SCUT-FBP5500_v2/Images"), name)
}

func scutImage(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(scutPhoto(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// demoUpload posts the demo form with a photo and the page's token.
func demoUpload(t *testing.T, env *loginEnv, b *webclient.Browser, csrf string, photo []byte) webclient.Page {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	w.WriteField("csrf", csrf)
	part, _ := w.CreateFormFile("file", "photo.jpg")
	part.Write(photo)
	w.Close()
	req, _ := http.NewRequest(http.MethodPost, env.URL+"/demo/face", &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Origin", env.URL)
	return b.Do(req)
}

// TestFaceDemo: a logged-in user uploads a photo on the demo page and sees it with the box and
// fields of its face; the call counts on the account's face quota as an API call does; a form
// without the token, or a visitor without a session, gets no analysis.
func TestFaceDemo(t *testing.T) {
	env := newLoginEnvWith(t, withFaces(t))
	anonymous := webclient.New(t)
	if p := anonymous.Get(env.URL + "/demo/face"); p.Status != 200 || !strings.Contains(p.Body, `id="demo-login"`) {
		t.Errorf("demo page without a session: %d, no login prompt", p.Status)
	}
	b, _ := login(t, env)
	form := b.Get(env.URL + "/demo/face")
	csrf := webclient.CSRFFrom(t, form)
	if form.Status != 200 || form.Header.Get("Content-Security-Policy") == "" {
		t.Fatalf("demo form: %d\n%s", form.Status, form.Body)
	}
	if !strings.Contains(form.Body, "このサーバーに保存されます") { // withFaces keeps uploads
		t.Error("the demo form, on a server keeping uploads, does not say so")
	}
	photo := scutImage(t, "CF100.jpg")
	p := demoUpload(t, env, b, csrf, photo)
	if p.Status != 200 {
		t.Fatalf("demo upload: %d\n%s", p.Status, p.Body)
	}
	for _, want := range []string{`id="result"`, "顔 1 件", `<rect x=`, "data:image/jpeg;base64,", "<td>女性</td>", `id="faces"`,
		`<td class="n">1</td>`, // numbered from 1, as its box
		" %</td>",              // probabilities in percent
		"年齢の幅", "顔の確からしさ"} {
		if !strings.Contains(p.Body, want) {
			t.Errorf("result page has no %q", want)
		}
	}
	if !strings.Contains(p.Header.Get("Content-Security-Policy"), "img-src 'self' data:") {
		t.Errorf("result page policy %q does not allow the inline photo", p.Header.Get("Content-Security-Policy"))
	}
	a, err := env.store.AccountByEmail(t.Context(), "newcomer@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if used := env.quota.Used(a.ID, hensachi.ServiceFace); used != 1 {
		t.Errorf("face calls after one demo analysis: %d", used)
	}

	if p := demoUpload(t, env, b, "forged", photo); p.Status != http.StatusForbidden || strings.Contains(p.Body, `id="result"`) {
		t.Errorf("demo upload with a forged token: %d", p.Status)
	}
	if p := demoUpload(t, env, anonymous, csrf, photo); p.Status != http.StatusUnauthorized || strings.Contains(p.Body, `id="result"`) {
		t.Errorf("demo upload without a session: %d", p.Status)
	}
	if p := demoUpload(t, env, b, csrf, []byte("not an image")); p.Status != http.StatusUnsupportedMediaType || !strings.Contains(p.Body, `id="demo-error"`) {
		t.Errorf("demo upload of text: %d", p.Status)
	}
	if used := env.quota.Used(a.ID, hensachi.ServiceFace); used != 1 {
		t.Errorf("face calls after refused uploads: %d, want 1", used)
	}
}
