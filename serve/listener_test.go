package serve

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestStatusLine checks the reading of a response's first line: only an error's status counts.
func TestStatusLine(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	srv := NewAPITestServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "teapot", http.StatusTeapot)
	}), nil)
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
	srv := NewAPITestServer(refuse, nil)
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// TestRefusedUploadIsAnswered is a client that sends its whole body before it reads the answer,
// for longer than net/http waits before closing: it must be able to finish and read the 503, where
// a close with unread data would have reset the connection and dropped the answer.
func TestRefusedUploadIsAnswered(t *testing.T) {
	t.Parallel()
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
		// time under test: the body must take longer to arrive (a second in all) than net/http
		// waits before it closes (half a second), which only a client this slow shows
		time.Sleep(25 * time.Millisecond)
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
	t.Parallel()
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
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: refuse}
	watched := &lingerWatch{Listener: ln, lingering: make(chan struct{})}
	go serveAPI(srv, watched)
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
	select {
	case <-watched.lingering: // the server is lingering now, reading the rest of the body
	case <-time.After(10 * time.Second):
		t.Fatal("the server does not read after its FIN")
	}
	srv.Close()
	// while the server lingers, it reads what the client sends; once closed, a write fails, as soon
	// as the kernel has the reset that the write before it drew
	// time under test: writes spread over half the lingering time, which must not last after Close
	chunk := make([]byte, 1000)
	for deadline := time.Now().Add(lingerTime / 2); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := conn.Write(chunk); err != nil {
			return
		}
	}
	t.Error("the connection still lingers after the server's Close")
}

// lingerWatch is a listener whose connections tell when the server starts lingering on one: its
// first read after CloseWrite (the FIN).
type lingerWatch struct {
	net.Listener
	lingering chan struct{} // closed then
	once      sync.Once
}

func (l *lingerWatch) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &lingerWatchConn{Conn: c, l: l}, nil
}

type lingerWatchConn struct {
	net.Conn
	l          *lingerWatch
	finWritten atomic.Bool
}

func (c *lingerWatchConn) CloseWrite() error {
	c.finWritten.Store(true)
	return c.Conn.(interface{ CloseWrite() error }).CloseWrite()
}

func (c *lingerWatchConn) Read(b []byte) (int, error) {
	if c.finWritten.Load() {
		c.l.once.Do(func() { close(c.l.lingering) })
	}
	return c.Conn.Read(b)
}
