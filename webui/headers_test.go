package webui

import (
	"net/http/httptest"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/julienschmidt/httprouter"
)

// oneTown serves one municipality for the page tests.
type oneTown struct{}

func (oneTown) ViewMunicipality(code string, view func(hensachi.Municipality, hensachi.Meta)) error {
	if code != "13101" {
		return hensachi.Errorf(hensachi.ENotFound, "no %s", code)
	}
	view(hensachi.Municipality{Code: "13101", Name: "千代田区", Prefecture: hensachi.Prefecture{Code: "13", Name: "東京都"}},
		hensachi.Meta{DataUpdated: "2026-01-01"})
	return nil
}

// TestPageHeaders: every page, the municipality pages included, carries the security headers,
// and HSTS when reached over https.
func TestPageHeaders(t *testing.T) {
	ui, err := New(LoginConfig{}, Deps{Towns: oneTown{}})
	if err != nil {
		t.Fatal(err)
	}
	router := httprouter.New()
	ui.Routes(router.Handle)
	for _, c := range []struct {
		path   string
		status int
	}{
		{"/town/municipalities/13101", 200},
		{"/town/municipalities/99999", 404},
		{"/login", 503}, // login not configured: a page that says so
	} {
		for _, https := range []bool{false, true} {
			r := httptest.NewRequest("GET", c.path, nil)
			if https {
				r.Header.Set("X-Forwarded-Proto", "https")
			}
			w := httptest.NewRecorder()
			router.ServeHTTP(w, r)
			h := w.Result().Header
			if w.Code != c.status || h.Get("Content-Security-Policy") == "" || h.Get("X-Content-Type-Options") != "nosniff" ||
				h.Get("X-Frame-Options") != "DENY" || (h.Get("Strict-Transport-Security") != "") != https {
				t.Errorf("%s (https %v): %d, headers %v", c.path, https, w.Code, h)
			}
		}
	}
}
