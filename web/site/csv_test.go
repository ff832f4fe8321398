package site

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http/httptest"
	"testing"
)

// TestCSVDownloadIfNoneMatch: the download reads If-None-Match as the API does
// (negotiate.NoneMatch): a list naming its tag, weak or not, is a 304 carrying the tag and the
// caching fields; a malformed field matches nothing, so the file is sent.
func TestCSVDownloadIfNoneMatch(t *testing.T) {
	router := siteRouter(t)
	for _, tc := range []struct {
		path, accept, ifNoneMatch string
		status                    int
	}{
		{"/town/municipalities.csv", "", `"v1"`, 304},
		{"/town/municipalities.csv", "", `W/"v1"`, 304},
		{"/town/municipalities.csv", "", `"v0", "v1"`, 304},
		{"/town/municipalities.csv", "gzip", `"v1.gz"`, 304},
		{"/town/municipalities.csv", "", `"v1"garbage`, 200},
		{"/town/municipalities.csv", "", `"v0" "v1"`, 200},
		{"/town/municipalities.csv", "", `"v1.gz"`, 200}, // the other representation's tag
		{"/town/municipalities.csv?pref=13", "", `"v1"garbage`, 200},
		{"/town/municipalities.csv?codes=13101,01100", "", `"v1"`, 304},
		{"/town/municipalities.csv?codes=13101,01100", "", `"v1"garbage`, 200},
	} {
		r := httptest.NewRequest("GET", tc.path, nil)
		r.Header.Set("Accept-Encoding", tc.accept)
		r.Header.Set("If-None-Match", tc.ifNoneMatch)
		w := httptest.NewRecorder()
		router.ServeHTTP(w, r)
		h := w.Result().Header
		if w.Code != tc.status || h.Get("ETag") == "" || h.Get("Cache-Control") != "public, max-age=300" || h.Get("Vary") == "" {
			t.Errorf("%s If-None-Match %s: %d, headers %v", tc.path, tc.ifNoneMatch, w.Code, h)
			continue
		}
		if tc.status == 304 && (w.Body.Len() != 0 || h.Get("Content-Type") != "" || h.Get("Content-Encoding") != "") {
			t.Errorf("%s If-None-Match %s: a 304 with %d bytes, headers %v", tc.path, tc.ifNoneMatch, w.Body.Len(), h)
		}
		if tc.status == 200 && (w.Body.Len() == 0 || h.Get("Content-Type") != "text/csv; charset=utf-8") {
			t.Errorf("%s If-None-Match %s: %d bytes, headers %v", tc.path, tc.ifNoneMatch, w.Body.Len(), h)
		}
	}
}

// TestComparedCSVGzipped: the comparison's download is gzipped for a client that accepts it, like
// the others, under the gzipped tag, and is the same file unzipped; plain for one that does not.
func TestComparedCSVGzipped(t *testing.T) {
	router := siteRouter(t)
	get := func(accept string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", "/town/municipalities.csv?codes=13101,01100", nil)
		r.Header.Set("Accept-Encoding", accept)
		w := httptest.NewRecorder()
		router.ServeHTTP(w, r)
		return w
	}
	plain, zipped := get("gzip;q=0"), get("br, gzip")
	if plain.Code != 200 || plain.Header().Get("Content-Encoding") != "" || plain.Header().Get("ETag") != `"v1"` {
		t.Fatalf("plain: %d %v", plain.Code, plain.Header())
	}
	if zipped.Code != 200 || zipped.Header().Get("Content-Encoding") != "gzip" || zipped.Header().Get("ETag") != `"v1.gz"` ||
		zipped.Header().Get("Vary") != "Accept-Encoding" {
		t.Fatalf("gzipped: %d %v", zipped.Code, zipped.Header())
	}
	z, err := gzip.NewReader(zipped.Body)
	if err != nil {
		t.Fatal(err)
	}
	if unzipped, err := io.ReadAll(z); err != nil || !bytes.Equal(unzipped, plain.Body.Bytes()) || !bytes.HasPrefix(unzipped, []byte("\uFEFFcode,")) {
		t.Errorf("unzipped: %v, %.40q", err, unzipped)
	}
}
