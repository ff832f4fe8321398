package serve_test

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/serve"
)

// TestCompression: a JSON or CSV answer over 1 KB is gzipped for a client that accepts gzip, and
// only then; every answer varies on Accept-Encoding, and its ETag is the encoding's, so that a
// 304 answers only the tag of the encoding the client would get, before any quota is touched;
// HEAD has the GET's headers; an answer under 1 KB is left alone; the usage and RateLimit fields
// are the same gzipped or not.
func TestCompression(t *testing.T) {
	ts := newTestServer(t)
	// net/http's transport asks for gzip itself unless told not to, and unzips what it asked for
	client := &http.Client{Transport: patient{&http.Transport{DisableCompression: true}}}
	do := func(method, path string, header ...string) response {
		t.Helper()
		req, _ := http.NewRequest(method, ts.http.URL+path, nil)
		req.Header.Set("X-API-Key", ts.freeKey)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return response{resp.StatusCode, resp.Header, body}
	}
	const small = "/town/v1/rankings/young?limit=1"
	for _, path := range []string{
		"/town/v1/municipalities/13101/indicators", // made per call
		"/town/v1/indicators",                      // kept: compressed once
		"/town/v1/municipalities/13101",            // kept
		"/town/v1/export?format=csv&pref=13",
		"/town/v1/export/series?format=csv&indicators=population&pref=13",
		small,
	} {
		identity := do("GET", path) // no Accept-Encoding
		if identity.status != 200 || identity.header.Get("Content-Encoding") != "" {
			t.Fatalf("%s without Accept-Encoding: %d %q", path, identity.status, identity.header.Get("Content-Encoding"))
		}
		worth := len(identity.body) > 1024
		if worth == (path == small) {
			t.Fatalf("%s: %d bytes", path, len(identity.body))
		}
		tags := map[string]string{}
		for _, accept := range []string{"gzip", "identity", "gzip;q=0", "br, gzip;q=0.5", "*"} {
			r := do("GET", path, "Accept-Encoding", accept)
			zipped := worth && accept != "identity" && accept != "gzip;q=0"
			body := r.body
			if zipped {
				body = gunzip(t, r.body)
			}
			n, _ := strconv.Atoi(r.header.Get("Content-Length"))
			if r.status != 200 || (r.header.Get("Content-Encoding") == "gzip") != zipped || n != len(r.body) ||
				!strings.Contains(r.header.Get("Vary"), "Accept-Encoding") || !sameButUsage(body, identity.body) {
				t.Errorf("%s, Accept-Encoding %s: %d, %v, %d bytes, Content-Length %d", path, accept, r.status, r.header, len(r.body), n)
			}
			used := ts.Quota.Used(ts.freeID, hensachi.ServiceTown)
			if rl := r.header.Get("RateLimit"); !strings.HasPrefix(rl, `"daily";r=`+strconv.FormatInt(100-used, 10)+";") {
				t.Errorf("%s, %s: RateLimit %q after %d calls", path, accept, rl, used)
			}
			etag := r.header.Get("ETag")
			tags[accept] = etag
			head := do("HEAD", path, "Accept-Encoding", accept)
			if head.status != 200 || len(head.body) != 0 || head.header.Get("ETag") != etag ||
				head.header.Get("Content-Encoding") != r.header.Get("Content-Encoding") || head.header.Get("Content-Length") != r.header.Get("Content-Length") {
				t.Errorf("%s, %s: HEAD %d %v, GET %v", path, accept, head.status, head.header, r.header)
			}
			notModified := do("GET", path, "Accept-Encoding", accept, "If-None-Match", etag)
			if notModified.status != http.StatusNotModified || notModified.header.Get("ETag") != etag || ts.Quota.Used(ts.freeID, hensachi.ServiceTown) != used {
				t.Errorf("%s, %s: If-None-Match %s: %d, ETag %s", path, accept, etag, notModified.status, notModified.header.Get("ETag"))
			}
		}
		if tags["gzip"] == tags["identity"] || tags["gzip"] != tags["*"] || tags["identity"] != tags["gzip;q=0"] {
			t.Errorf("%s: ETags by Accept-Encoding %v", path, tags)
		}
		// the tag of another encoding is another representation: no 304
		if r := do("GET", path, "Accept-Encoding", "gzip", "If-None-Match", tags["identity"]); r.status != 200 {
			t.Errorf("%s: gzip with the identity tag: %d", path, r.status)
		}
		if r := do("GET", path, "Accept-Encoding", "identity", "If-None-Match", tags["gzip"]); r.status != 200 {
			t.Errorf("%s: identity with the gzip tag: %d", path, r.status)
		}
	}
}

// sameButUsage tells whether two JSON answers differ only in their usage's count (a CSV is the
// same), as two calls of one day do.
func sameButUsage(a, b []byte) bool {
	cut := func(s []byte) []byte {
		if i := bytes.LastIndex(s, []byte(`,"usage":`)); i >= 0 {
			return s[:i]
		}
		return s
	}
	return bytes.Equal(cut(a), cut(b))
}

// TestOpenAPICompressed: the OpenAPI document, some 330 KB, goes gzipped to a client that accepts
// gzip, and whole to one that does not, varying on Accept-Encoding.
func TestOpenAPICompressed(t *testing.T) {
	ts := newTestServer(t)
	client := &http.Client{Transport: patient{&http.Transport{DisableCompression: true}}}
	for _, accept := range []string{"gzip", "", "gzip;q=0"} {
		req, _ := http.NewRequest("GET", ts.http.URL+"/openapi.json", nil)
		if accept != "" {
			req.Header.Set("Accept-Encoding", accept)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		zipped := accept == "gzip"
		if zipped {
			if len(body) > len(serve.OpenAPI())/5 {
				t.Errorf("gzipped document %d bytes of %d", len(body), len(serve.OpenAPI()))
			}
			body = gunzip(t, body)
		}
		if resp.StatusCode != 200 || (resp.Header.Get("Content-Encoding") == "gzip") != zipped ||
			!strings.Contains(resp.Header.Get("Vary"), "Accept-Encoding") || !bytes.Equal(body, serve.OpenAPI()) {
			t.Errorf("Accept-Encoding %q: %d %v, %d bytes", accept, resp.StatusCode, resp.Header, len(body))
		}
	}
}
