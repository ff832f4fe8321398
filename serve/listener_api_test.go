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
