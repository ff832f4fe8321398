package site

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http/httptest"
	"strconv"
	"strings"
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
		{"/town/scatter?x=pop&y=young&pref=13", 200},
		{"/town/scatter?x=nope", 400},
		{"/town/compare?codes=13101,01100", 200},
		{"/town/compare?codes=13101,1310", 400},
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

// TestPagesCompressed: a client that accepts gzip gets the page compressed, one that refuses it
// (q=0) or says nothing gets it plain.
func TestPagesCompressed(t *testing.T) {
	router := siteRouter(t)
	for _, c := range []struct {
		accept string
		gzip   bool
	}{{"gzip, deflate, br", true}, {"br;q=1.0, gzip;q=0.8", true}, {"gzip;q=0", false}, {"", false}} {
		r := httptest.NewRequest("GET", "/town/municipalities/13101", nil)
		r.Header.Set("Accept-Encoding", c.accept)
		w := httptest.NewRecorder()
		router.ServeHTTP(w, r)
		body := w.Body.Bytes()
		if got := w.Header().Get("Content-Encoding") == "gzip"; got != c.gzip {
			t.Errorf("Accept-Encoding %q: gzip %v", c.accept, got)
			continue
		}
		if c.gzip {
			z, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if body, err = io.ReadAll(z); err != nil {
				t.Fatal(err)
			}
		}
		if !strings.Contains(string(body), "千代田区") || w.Header().Get("Content-Length") != strconv.Itoa(w.Body.Len()) {
			t.Errorf("Accept-Encoding %q: page or length wrong", c.accept)
		}
	}
}
