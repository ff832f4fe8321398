package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/hensachi/hensachi"
)

// apiListener hands out the server's connections, which do two things net/http does not. Its
// server must be set up by withConnHooks: serveAPI does both.
//
// They turn the errors net/http writes by itself, before any handler runs (431 for oversized
// headers, 400 for a request without Host or malformed, 505 for an unsupported protocol version,
// 417 for an expectation it does not meet), into problem documents like every other error of the
// API, and a request line longer than net/http reads into 414 uri_too_long instead of its 431. A
// connection knows which writes are net/http's own without reading net/http's text: the server
// marks a connection whose request reached a handler (through its context, http.Server's
// ConnContext) and clears the mark when the connection is idle again (ConnState), so a write that
// starts a response while no handler runs is net/http's refusal, and its status line (RFC 9112)
// gives the status. What it cannot reach: failures below HTTP (TLS handshakes, connections cut
// mid-request), which get no response at all.
//
// A request whose headers do not arrive within ReadHeaderTimeout is answered 408
// request_timeout: net/http itself writes 400 when the time runs out within a header line and
// closes without a word when it runs out between lines; the connection knows that its last read
// timed out with part of a request read, and answers for net/http. Each problem written here
// carries a request id, which the log line for it repeats.
//
// And they linger on close after answering a request whose body was not read (an upload refused
// before its body, a body over the limit): net/http sends its FIN and closes half a second later,
// and closing a socket with unread data sends a reset, which makes the client's kernel drop the
// answer it has not read yet. A client still sending its body then sees "connection reset" instead
// of the 503 or 413 it was sent. Reading and discarding what the client still sends, for a bounded
// time and number of bytes, lets it finish and read the answer (RFC 9112 §9.6).
type apiListener struct{ net.Listener }

func (l apiListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &apiConn{Conn: c}, nil
}

// Lingering is bounded like a request: no longer than a whole upload may take to arrive, and no
// more bytes than the largest body the API reads, so a client cannot hold a connection or the CPU
// longer through it than through a request.
const (
	lingerTime  = 10 * time.Second
	lingerBytes = maxBody
)

type apiConn struct {
	net.Conn
	// pending: bytes were read since the last write, so a request is under way; timedOut: the
	// last read ended at its deadline; answered: a refusal has been written by the connection;
	// handled: a handler answers the current request (withConnHooks); lineRead: the current
	// request's first line has ended. Reads (net/http's background read among them) and writes
	// may run on different goroutines.
	pending, timedOut, answered, closed, handled, lineRead atomic.Bool
}

// withConnHooks sets srv up to serve apiListener's connections: it tells a connection when a
// handler takes its request, and when the connection waits for the next one.
func withConnHooks(srv *http.Server) *http.Server {
	next := srv.Handler
	if next == nil {
		next = http.DefaultServeMux
	}
	srv.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		if ac, ok := c.(*apiConn); ok {
			return context.WithValue(ctx, apiConnKey{}, ac)
		}
		return ctx
	}
	srv.ConnState = func(c net.Conn, state http.ConnState) {
		if ac, ok := c.(*apiConn); ok && state == http.StateIdle {
			ac.handled.Store(false)
			ac.lineRead.Store(false)
		}
	}
	srv.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ac, ok := r.Context().Value(apiConnKey{}).(*apiConn); ok {
			ac.handled.Store(true)
		}
		next.ServeHTTP(w, r)
	})
	return srv
}

type apiConnKey struct{}

// serveAPI serves srv on ln's connections as the API's (apiListener, withConnHooks).
func serveAPI(srv *http.Server, ln net.Listener) error {
	return withConnHooks(srv).Serve(apiListener{ln})
}

func (c *apiConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.pending.Store(true)
		if !c.lineRead.Load() && bytes.IndexByte(b[:n], '\n') >= 0 {
			c.lineRead.Store(true)
		}
	}
	var ne net.Error
	c.timedOut.Store(err != nil && errors.As(err, &ne) && ne.Timeout())
	return n, err
}

// Close answers 408 for net/http when it gives up on a request whose headers stopped arriving
// between two lines, which it closes without an answer.
func (c *apiConn) Close() error {
	if c.closed.Swap(true) {
		return c.Conn.Close()
	}
	if c.timedOut.Load() && c.pending.Load() && !c.answered.Load() {
		c.Conn.SetWriteDeadline(time.Now().Add(time.Second))
		c.refuse(http.StatusRequestTimeout)
	}
	return c.Conn.Close()
}

// CloseWrite is how net/http says that it is closing after an answer without reading the whole
// request: it sends the FIN and then reads what the client still sends, until the client closes
// its side, until lingerTime or lingerBytes. net/http closes the connection after it returns. A
// Close from another goroutine (http.Server's Close) ends the lingering at once.
func (c *apiConn) CloseWrite() error {
	cw, ok := c.Conn.(interface{ CloseWrite() error })
	if !ok {
		return nil
	}
	if err := cw.CloseWrite(); err != nil {
		return err
	}
	if err := c.Conn.SetReadDeadline(time.Now().Add(lingerTime)); err != nil {
		return err
	}
	io.Copy(io.Discard, io.LimitReader(c.Conn, lingerBytes))
	return nil
}

// statusLine reads the status of a response's first line (RFC 9112 §4), of an error: 4xx or 5xx.
func statusLine(b []byte) (status int, ok bool) {
	line, _, found := bytes.Cut(b, []byte("\r\n"))
	rest, isHTTP := bytes.CutPrefix(line, []byte("HTTP/1."))
	if !found || !isHTTP || len(rest) < 6 || rest[1] != ' ' || rest[5] != ' ' {
		return 0, false
	}
	status, err := strconv.Atoi(string(rest[2:5]))
	if err != nil || status < 400 || status > 599 {
		return 0, false
	}
	return status, true
}

// netHTTPCodes are the codes of what net/http refuses by itself; the table (hensachi.Kinds) gives
// their statuses, and any other status net/http answers is http_error.
var netHTTPCodes = []string{hensachi.EBadRequest, hensachi.EURITooLong, hensachi.EHeaderTooLarge, hensachi.EHTTPVersion, hensachi.ERequestTimeout}

func netHTTPKind(status int) hensachi.Kind {
	for _, code := range netHTTPCodes {
		if k := hensachi.KindOf(code); k.Status == status {
			return k
		}
	}
	return hensachi.KindOf(hensachi.EHTTPError)
}

func (c *apiConn) Write(b []byte) (int, error) {
	if c.answered.Load() {
		return len(b), nil // the rest of a refusal this connection answered for net/http
	}
	status, ok := 0, false
	if !c.handled.Load() {
		status, ok = statusLine(b)
	}
	if !ok {
		c.pending.Store(false)
		return c.Conn.Write(b)
	}
	switch {
	case status == http.StatusBadRequest && c.timedOut.Load():
		// net/http's 400 for a header line cut off by ReadHeaderTimeout
		status = http.StatusRequestTimeout
	case status == http.StatusRequestHeaderFieldsTooLarge && !c.lineRead.Load():
		status = http.StatusRequestURITooLong
	}
	if err := c.refuse(status); err != nil {
		return 0, err
	}
	return len(b), nil
}

// ReadFrom sends a handler's body read from a file (net/http's ResponseWriter calls it once the
// header is written) through the connection's own ReadFrom, with sendfile; anything else goes
// through Write, which knows net/http's refusals.
func (c *apiConn) ReadFrom(r io.Reader) (int64, error) {
	if !c.handled.Load() || c.answered.Load() {
		return io.Copy(struct{ io.Writer }{c}, r)
	}
	c.pending.Store(false)
	return io.Copy(c.Conn, r)
}

// refuse writes the problem document for a request net/http refused and logs it with the
// problem's request id.
func (c *apiConn) refuse(status int) error {
	kind := netHTTPKind(status)
	id := newRequestID()
	body, _ := json.Marshal(problem{Type: "/problems/" + kind.Code, Title: http.StatusText(status), Status: status,
		Detail: kind.About, Code: kind.Code, RequestID: id})
	var out bytes.Buffer
	out.WriteString("HTTP/1.1 " + strconv.Itoa(status) + " " + http.StatusText(status) + "\r\n")
	out.WriteString("Content-Type: application/problem+json\r\nCache-Control: no-store\r\nConnection: close\r\n")
	out.WriteString("X-Request-Id: " + id + "\r\n")
	out.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n")
	out.Write(body)
	c.answered.Store(true)
	slog.Info("refused before the API", "status", status, "code", kind.Code, "request_id", id, "remote", c.RemoteAddr().String())
	_, err := c.Conn.Write(out.Bytes())
	return err
}
