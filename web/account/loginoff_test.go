package account

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/facecall"
)

// storingFaces is a face service as the demo sees it, which keeps uploads or not; the demo of a
// server without login never calls it.
type storingFaces struct{ keeps bool }

func (f storingFaces) AnalyzeFaces(context.Context, hensachi.Account, facecall.Upload) (FaceAnalysis, error) {
	return FaceAnalysis{}, hensachi.Errorf(hensachi.EInternal, "not called in these tests")
}

func (f storingFaces) KeepsUploads() bool { return f.keeps }

// accountLink is a link to a page that only a server with login answers.
var accountLink = regexp.MustCompile(`(?:href|action)="(/login|/account|/logout|/auth/)[^"]*"`)

// TestLoginOffNoDeadEnds: on a server without login, no page of the account side (the demo, and
// the failure pages of the login addresses typed or kept from old links) links to a page that only
// answers that login is off; the demo says how to call the API instead, and what it says of
// keeping photos is the server's storage setting.
func TestLoginOffNoDeadEnds(t *testing.T) {
	for _, keeps := range []bool{true, false} {
		pages, err := New(Config{}, Deps{PublicURL: "https://hensachi.example", Now: time.Now, Faces: storingFaces{keeps: keeps}})
		if err != nil {
			t.Fatal(err)
		}
		router := httprouter.New()
		pages.Routes(router.Handle)
		get := func(method, path string) *httptest.ResponseRecorder {
			w := httptest.NewRecorder()
			router.ServeHTTP(w, httptest.NewRequest(method, path, nil))
			return w
		}
		for _, path := range []string{"/demo/face", "/login", "/account", "/account/key"} {
			w := get(http.MethodGet, path)
			if m := accountLink.FindString(w.Body.String()); m != "" {
				t.Errorf("login off, GET %s: links %s", path, m)
			}
			if strings.Contains(w.Body.String(), "ログインしてください") || strings.Contains(w.Body.String(), "アカウント</a>") {
				t.Errorf("login off, GET %s asks to log in or offers the account page", path)
			}
		}
		demo := get(http.MethodGet, "/demo/face").Body.String()
		for _, want := range []string{`id="demo-api"`,
			`curl -X POST -H &#34;X-API-Key: $HENSACHI_API_KEY&#34; -F file=@photo.jpg &#34;https://hensachi.example/face/v1/predict&#34;`,
			`href="/docs#predictFaces"`, `href="/docs/face"`} {
			if !strings.Contains(demo, want) {
				t.Errorf("login off, the demo has no %s", want)
			}
		}
		if strings.Contains(demo, `name="file"`) {
			t.Error("login off, the demo offers a form that cannot be used")
		}
		stored, notStored := strings.Contains(demo, "保存されます"), strings.Contains(demo, "保存しません")
		if stored != keeps || notStored == keeps {
			t.Errorf("storage %v: the demo says stored %v, not stored %v", keeps, stored, notStored)
		}
		if w := get(http.MethodPost, "/demo/face"); w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), "API キー") || accountLink.MatchString(w.Body.String()) {
			t.Errorf("login off, POST /demo/face: %d\n%s", w.Code, w.Body)
		}
	}
}
