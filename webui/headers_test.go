package webui

import (
	"net/http/httptest"
	"testing"
)

// TestPageHeaders: every page, the municipality pages included, carries the security headers,
// and HSTS when reached over https.
func TestPageHeaders(t *testing.T) {
	router := siteRouter(t)
	for _, c := range []struct {
		path   string
		status int
	}{
		{"/", 200},
		{"/search?q=千代田", 200},
		{"/town/municipalities/13101", 200},
		{"/town/municipalities/99999", 404},
		{"/town/rankings/young?pref=13", 200},
		{"/town/prefectures", 200},
		{"/town/prefectures/13", 200},
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
