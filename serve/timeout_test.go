package serve_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/hensachi/hensachi/serve"
)

// TestSlowHeadersAre408 sends a request's headers more slowly than the server waits for them, over
// a raw socket, stopping within a header line (net/http would write 400) and between two lines
// (net/http would close without a word): both are answered 408 request_timeout, a problem document
// with a request id, the one the X-Request-Id header gives.
func TestSlowHeadersAre408(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	srv := serve.NewAPITestServer(ts.Handler(), func(srv *httptest.Server) { srv.Config.ReadHeaderTimeout = 300 * time.Millisecond })
	defer srv.Close()
	for _, c := range []struct{ name, sent string }{
		{"within a line", "GET /town/v1/meta HTTP/1.1\r\nHost: x\r\nX-API-Key: hsk_"},
		{"between lines", "GET /town/v1/meta HTTP/1.1\r\nHost: x\r\n"},
		{"within the request line", "GET /town/v1/me"},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(10 * time.Second))
			// a byte at a time, 50 ms apart, then nothing
			for i := range len(c.sent) {
				if _, err := conn.Write([]byte{c.sent[i]}); err != nil {
					break
				}
				time.Sleep(50 * time.Millisecond) // time under test: the slow client the header timeout is for
			}
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("no answer: %v", err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			var p problem
			if err := json.Unmarshal(body, &p); err != nil || resp.StatusCode != 408 || p.Status != 408 ||
				p.Code != "request_timeout" || p.Type != "/problems/request_timeout" || p.RequestID == "" ||
				p.RequestID != resp.Header.Get("X-Request-Id") || resp.Header.Get("Content-Type") != "application/problem+json" {
				t.Errorf("status %d, header %v, body %s (%v)", resp.StatusCode, resp.Header, body, err)
			}
		})
	}
	// a request sent at once on the same server is answered as usual, and an idle connection
	// that times out gets no 408
	resp, p := rawRequest(t, srv.Listener.Addr().String(), "GET /town/v1/meta HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	if resp.StatusCode != 401 || p.Code != "missing_api_key" {
		t.Errorf("prompt request: %d %+v", resp.StatusCode, p)
	}
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if b, err := io.ReadAll(conn); len(b) != 0 {
		t.Errorf("idle connection got %q (%v)", b, err)
	}
}
