package serve_test

import (
	"bufio"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/serve"
)

// TestNetHTTPErrorsAreProblems sends requests that net/http refuses before any handler runs and
// checks that each answer is a problem document, through the listener ListenAndServe uses.
func TestNetHTTPErrorsAreProblems(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	srv := serve.NewAPITestServer(ts.Handler(), func(srv *httptest.Server) { srv.Config.MaxHeaderBytes = 32 << 10 })
	defer srv.Close()
	for _, c := range []struct {
		name    string
		request string
		status  int
		code    string
	}{
		{"header of 1 MiB", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 1<<20) + "\r\n\r\n", 431, hensachi.EHeaderTooLarge},
		{"a compare of 10,000 codes", "GET /town/v1/compare?codes=" + strings.Repeat("13101,", 10_000) + " HTTP/1.1\r\nHost: x\r\n\r\n", 414, hensachi.EURITooLong},
		{"unknown expectation", "GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: miracles\r\n\r\n", 417, hensachi.EHTTPError},
		{"no Host", "GET /healthz HTTP/1.1\r\n\r\n", 400, hensachi.EBadRequest},
		{"HTTP/2.0 over text", "GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n", 505, hensachi.EHTTPVersion},
		{"malformed request line", "GET\r\n\r\n", 400, hensachi.EBadRequest},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			go conn.Write([]byte(c.request)) // the server may answer before it has read it all
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var p problem
			if err := json.NewDecoder(resp.Body).Decode(&p); err != nil || resp.StatusCode != c.status ||
				resp.Header.Get("Content-Type") != "application/problem+json" || p.Status != c.status || p.Code != c.code || p.Success ||
				p.RequestID == "" || p.RequestID != resp.Header.Get("X-Request-Id") {
				t.Errorf("status %d, Content-Type %q, problem %+v (%v)", resp.StatusCode, resp.Header.Get("Content-Type"), p, err)
			}
		})
	}
	// a real response is left alone
	if r, err := http.Get(srv.URL + "/healthz"); err != nil || r.StatusCode != 200 || r.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("healthz through the listener: %v %v", r, err)
	}
}

// TestEveryIndicatorKeyInOneList: a list parameter is as long as the request line allows, not a
// value's 128 bytes: every indicator key of the catalogue in one keys= (some 7.7 KB) is read through
// the API's listener and its 32 KiB of headers, and answered in full.
func TestEveryIndicatorKeyInOneList(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	srv := serve.NewAPITestServer(ts.Handler(), func(srv *httptest.Server) { srv.Config.MaxHeaderBytes = 32 << 10 })
	defer srv.Close()
	c, err := ts.Catalogs.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, ind := range c.Indicators("") {
		keys = append(keys, ind.Key)
	}
	req, _ := http.NewRequest("GET", srv.URL+"/town/v1/municipalities/13101/indicators?keys="+strings.Join(keys, ","), nil)
	req.Header.Set("X-API-Key", ts.proKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Data struct{ Total int } `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != 200 || body.Data.Total != len(keys) || len(keys) < 300 {
		t.Errorf("%d keys in %d bytes: status %d, %d indicators (%v)", len(keys), len(strings.Join(keys, ",")), resp.StatusCode, body.Data.Total, err)
	}
}
