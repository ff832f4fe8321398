package serve

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
)

// TestNetHTTPErrorsAreProblems sends requests that net/http refuses before any handler runs and
// checks that each answer is a problem document, through the listener ListenAndServe uses.
func TestNetHTTPErrorsAreProblems(t *testing.T) {
	ts := newTestServer(t)
	srv := httptest.NewUnstartedServer(ts.Handler())
	srv.Listener = apiListener{srv.Listener}
	srv.Config.MaxHeaderBytes = 32 << 10
	withConnHooks(srv.Config)
	srv.Start()
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

// TestStatusLine checks the reading of a response's first line: only an error's status counts.
func TestStatusLine(t *testing.T) {
	for _, c := range []struct {
		b      string
		status int
	}{
		{"HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n", 431},
		{"HTTP/1.0 400 Bad Request\r\n\r\n", 400},
		{"HTTP/1.1 505 \r\n", 505},
		{"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", 0},
		{"HTTP/1.1 100 Continue\r\n\r\n", 0},
		{"HTTP/1.1 4x0 Bad Request\r\n\r\n", 0},
		{"HTTP/2 400 Bad Request\r\n", 0},
		{"HTTP/1.1 400 Bad Request", 0}, // no line end: not the start of a response
		{`{"success":true,"data":{}}`, 0},
		{"", 0},
	} {
		if status, ok := statusLine([]byte(c.b)); status != c.status || ok != (c.status != 0) {
			t.Errorf("%q: %d %v, want %d", c.b, status, ok, c.status)
		}
	}
}

// TestHandlersErrorsUntouched: a handler's own error answer, whatever its shape, is the
// handler's: only what net/http writes before any handler runs becomes a problem document.
func TestHandlersErrorsUntouched(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "teapot", http.StatusTeapot)
	}))
	srv.Listener = apiListener{srv.Listener}
	withConnHooks(srv.Config)
	srv.Start()
	defer srv.Close()
	for range 3 { // keep-alive: the connection is idle between requests, and reused
		resp, err := srv.Client().Get(srv.URL + "/")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusTeapot || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" || string(body) != "teapot\n" {
			t.Errorf("%d %s %q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
}

// refuse answers 503 without reading the request's body, as the face service refuses an upload
// when it has no slot for it.
var refuse = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Connection", "close")
	http.Error(w, "busy", http.StatusServiceUnavailable)
})

// refusingServer serves refuse through the server's listener.
func refusingServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(refuse)
	srv.Listener = apiListener{srv.Listener}
	withConnHooks(srv.Config)
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// TestRefusedUploadIsAnswered is a client that sends its whole body before it reads the answer,
// for longer than net/http waits before closing: it must be able to finish and read the 503, where
// a close with unread data would have reset the connection and dropped the answer.
func TestRefusedUploadIsAnswered(t *testing.T) {
	conn, err := net.Dial("tcp", refusingServer(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const chunks, chunk = 40, 64 << 10
	if _, err := io.WriteString(conn, "POST /face/v1/predict HTTP/1.1\r\nHost: x\r\nContent-Length: "+strconv.Itoa(chunks*chunk)+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	body := make([]byte, chunk)
	for i := range chunks {
		time.Sleep(25 * time.Millisecond) // a second in all, twice net/http's wait before it closes
		if _, err := conn.Write(body); err != nil {
			t.Fatalf("writing the body, %d KiB sent: %v", i*chunk>>10, err)
		}
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the answer after the body: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("status %d, want 503", resp.StatusCode)
	}
}

// TestLingeringIsBounded is a client that sends far more than any request body may be after its
// answer: the server stops reading and closes, so the client's writes fail.
func TestLingeringIsBounded(t *testing.T) {
	conn, err := net.Dial("tcp", refusingServer(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	body := make([]byte, 256<<10)
	sent := 0
	for ; sent < 4*lingerBytes; sent += len(body) {
		if _, err = conn.Write(body); err != nil {
			break
		}
	}
	if err == nil || !(errors.Is(err, net.ErrClosed) || strings.Contains(err.Error(), "reset") || strings.Contains(err.Error(), "broken pipe")) {
		t.Errorf("%d MiB sent after the answer (lingering reads %d MiB at most): %v", sent>>20, lingerBytes>>20, err)
	}
}

// TestCloseEndsLingering: http.Server's Close, from another goroutine, ends a lingering connection
// at once instead of waiting for the client.
func TestCloseEndsLingering(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := withConnHooks(&http.Server{Handler: refuse})
	go srv.Serve(apiListener{ln})
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// a body far larger than net/http reads on its own, of which the client sends a part and stops
	if _, err := io.WriteString(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n"+strings.Repeat("x", 1000)); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	if _, err := r.ReadByte(); err != io.EOF {
		t.Fatalf("after the answer: %v, want the server's FIN", err)
	}
	time.Sleep(100 * time.Millisecond) // the server is lingering now, reading the rest of the body
	srv.Close()
	// while the server lingers, it reads what the client sends; once closed, a write fails
	chunk := make([]byte, 1000)
	for deadline := time.Now().Add(lingerTime / 2); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := conn.Write(chunk); err != nil {
			return
		}
	}
	t.Error("the connection still lingers after the server's Close")
}
