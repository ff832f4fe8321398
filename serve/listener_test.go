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

// TestNetHTTPErrorShape checks the parser that every write to a connection passes through: only
// net/http's own error head matches, never a handler's response or a part of one.
func TestNetHTTPErrorShape(t *testing.T) {
	const own = "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n431 Request Header Fields Too Large"
	status, reason, message, ok := netHTTPError([]byte(own))
	if !ok || status != 431 || string(reason) != "Request Header Fields Too Large" || string(message) != "431 Request Header Fields Too Large" {
		t.Errorf("net/http's error: %d %q %q %v", status, reason, message, ok)
	}
	for _, b := range []string{
		"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\nok",
		"HTTP/1.1 404 Not Found\r\nContent-Type: application/problem+json\r\nDate: Mon, 23 Nov 2026 00:00:00 GMT\r\n\r\n{}",
		"HTTP/1.1 400 Bad\rRequest\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n",
		"HTTP/1.1 4x0 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n",
		"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n",
		`{"success":true,"data":{}}`,
		"",
	} {
		if _, _, _, ok := netHTTPError([]byte(b)); ok {
			t.Errorf("%q taken for net/http's own error", b)
		}
	}
}
