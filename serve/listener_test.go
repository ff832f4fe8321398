package serve

import (
	"bufio"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestNetHTTPErrorsAreProblems sends requests that net/http refuses before any handler runs and
// checks that each answer is a problem document, through the listener ListenAndServe uses.
func TestNetHTTPErrorsAreProblems(t *testing.T) {
	ts := newTestServer(t)
	srv := httptest.NewUnstartedServer(ts.Handler())
	srv.Listener = problemListener{srv.Listener}
	srv.Config.MaxHeaderBytes = 32 << 10
	srv.Start()
	defer srv.Close()
	for _, c := range []struct {
		name    string
		request string
		status  int
	}{
		{"header of 1 MiB", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 1<<20) + "\r\n\r\n", 431},
		{"no Host", "GET /healthz HTTP/1.1\r\n\r\n", 400},
		{"HTTP/2.0 over text", "GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n", 505},
		{"malformed request line", "GET\r\n\r\n", 400},
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
				resp.Header.Get("Content-Type") != "application/problem+json" || p.Status != c.status || p.Code == "" || p.Success {
				t.Errorf("status %d, Content-Type %q, problem %+v (%v)", resp.StatusCode, resp.Header.Get("Content-Type"), p, err)
			}
		})
	}
	// a real response is left alone
	if r, err := http.Get(srv.URL + "/healthz"); err != nil || r.StatusCode != 200 || r.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("healthz through the listener: %v %v", r, err)
	}
}
