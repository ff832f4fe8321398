package account

import (
	"net/http/httptest"
	"testing"

	"github.com/julienschmidt/httprouter"
)

// TestPageHeaders: the login pages carry the security headers of every page, and HSTS when
// reached over https, even when login is not configured and the page only says so.
func TestPageHeaders(t *testing.T) {
	pages, err := New(Config{}, Deps{PublicURL: "https://hensachi.example"})
	if err != nil {
		t.Fatal(err)
	}
	router := httprouter.New()
	pages.Routes(router.Handle)
	for _, https := range []bool{false, true} {
		r := httptest.NewRequest("GET", "/login", nil)
		if https {
			r.Header.Set("X-Forwarded-Proto", "https")
		}
		w := httptest.NewRecorder()
		router.ServeHTTP(w, r)
		h := w.Result().Header
		if w.Code != 503 || h.Get("Content-Security-Policy") == "" || h.Get("X-Content-Type-Options") != "nosniff" ||
			h.Get("X-Frame-Options") != "DENY" || (h.Get("Strict-Transport-Security") != "") != https {
			t.Errorf("/login (https %v): %d, headers %v", https, w.Code, h)
		}
	}
}
