package serve

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
	"github.com/hensachi/hensachi/internal/uploadbody"
)

// FuzzTownRequest sends arbitrary paths and queries through the whole handler: the answer is
// never a server error, under the API's paths always a JSON document but for an export's file
// (CSV, Parquet), and elsewhere (the web pages) a JSON document whenever its Content-Type says so.
func FuzzTownRequest(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	for _, s := range []string{"/town/v1/municipalities/01100", "/town/v1/rankings/young?limit=5&order=asc", "/town/v1/municipalities?pref=13",
		"/town/v1/meta", "/town/v1/rankings/%00", "/town/v1/municipalities/０１１００", "/town/v1/rankings/young?offset=1741&limit=100",
		"/town/v1/municipalities/13101/similar?limit=50", "/town/v1/compare?codes=13101,27100", "/town/v1/compare?codes=,,",
		"/town/v1/export?format=json&pref=13", "/town/v1/export?format=csv", "/town/v1/municipalities?q=%EF%BE%80%EF%BD%B6&pref=28"} {
		f.Add(s)
	}
	ts := newTestServer(f)
	f.Fuzz(func(t *testing.T, target string) {
		if _, err := url.ParseRequestURI(target); err != nil || !strings.HasPrefix(target, "/") || strings.ContainsAny(target, " \r\n#") {
			return // net/http answers such request lines itself, before any handler
		}
		req := httptest.NewRequest("GET", "http://x"+target, nil)
		req.Header.Set("X-API-Key", ts.proKey)
		rec := httptest.NewRecorder()
		ts.Handler().ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("GET %q: %d %s", target, rec.Code, rec.Body.String())
		}
		saysJSON := strings.Contains(rec.Header().Get("Content-Type"), "json")
		file := rec.Code == 200 && rec.Header().Get("Content-Disposition") != "" && !saysJSON
		api := (strings.HasPrefix(target, "/town/v1/") || strings.HasPrefix(target, "/face/v1/")) && !file
		if rec.Code != 304 && (api || saysJSON) && !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("GET %q: %d, Content-Type %q, with a body that is not JSON", target, rec.Code, rec.Header().Get("Content-Type"))
		}
	})
}

// FuzzReadUpload feeds arbitrary multipart bodies and Content-Types to the upload reader: it
// returns an image of 1 byte to 10 MiB or a missing_file or file_too_large error, never anything
// else.
func FuzzReadUpload(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	const ct = "multipart/form-data; boundary=x"
	for _, seed := range []struct{ ct, body string }{
		{ct, "--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.png\"\r\n\r\nPNG\r\n--x--\r\n"},
		{ct, "--x\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhi\r\n--x\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nJPEG\r\n--x--\r\n"},
		{ct, "--x\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n\r\n--x--\r\n"},
		{ct, "--x\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nno end"},
		{ct, ""},
		{"multipart/form-data", "--x--"},
		{"image/png", "PNG"},
		{"multipart/form-data; boundary=\"a b\"", "--a b\r\nContent-Disposition: form-data; name=file\r\n\r\nx\r\n--a b--"},
	} {
		f.Add(seed.ct, []byte(seed.body))
	}
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		req := httptest.NewRequest("POST", "/face/v1/predict", bytes.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		boundary, size, err := uploadRequest(req)
		var data []byte
		if err == nil {
			unlimited := func(int64) error { return nil }
			data, err = readUpload(uploadbody.NewBody(httptest.NewRecorder(), req.Body, DefaultUploadPace), boundary, size, uploadbody.Held(size), unlimited)
		}
		if err != nil {
			if code := hensachi.ErrorCode(err); code != hensachi.EMissingFile && code != hensachi.EFileTooLarge {
				t.Fatalf("error of code %s: %v", code, err)
			}
			return
		}
		// not necessarily bytes of the body: a quoted-printable part is decoded
		if len(data) == 0 || len(data) > MaxUpload {
			t.Fatalf("read %d bytes", len(data))
		}
	})
}
