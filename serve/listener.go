package serve

import (
	"bytes"
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

// apiListener hands out the server's connections, which do two things net/http does not.
//
// They turn the errors net/http writes by itself, before any handler runs (431 for oversized
// headers, 400 for a request without Host or malformed, 505 for an unsupported protocol version),
// into problem documents like every other error of the API. net/http writes each such error in one
// Write of a fixed shape, which no handler's response has (those always carry a Date header first),
// so the rewrite cannot touch a real response. What it cannot reach: failures below HTTP (TLS
// handshakes, connections cut mid-request), which get no response at all.
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
	// last read ended at its deadline; answered: a refusal has been written by the connection.
	// Reads (net/http's background read among them) and writes may run on different goroutines.
	pending, timedOut, answered, closed atomic.Bool
}

func (c *apiConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.pending.Store(true)
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
		c.refuse(http.StatusRequestTimeout, "Request Timeout", "")
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

// netHTTPError parses the head of net/http's own error responses (server.go, "HTTP/1.1 " +
// publicErr + errorHeaders): the status, its reason phrase and the message after the head. It runs
// on every write to every connection, so it gives up at the first byte that differs, which for a
// handler's response is the status's first digit or the field after the status line.
func netHTTPError(b []byte) (status int, reason, message []byte, ok bool) {
	const fields = "Content-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"
	rest, ok := bytes.CutPrefix(b, []byte("HTTP/1.1 "))
	if !ok || len(rest) < 4 || rest[0] < '4' || rest[0] > '5' || rest[3] != ' ' {
		return 0, nil, nil, false
	}
	status, err := strconv.Atoi(string(rest[:3]))
	if err != nil {
		return 0, nil, nil, false
	}
	reason, rest, ok = bytes.Cut(rest[4:], []byte("\r\n"))
	if !ok || bytes.ContainsAny(reason, "\r\n") {
		return 0, nil, nil, false
	}
	message, ok = bytes.CutPrefix(rest, []byte(fields))
	return status, reason, message, ok
}

// netHTTPCodes are the codes of the statuses net/http answers by itself.
var netHTTPCodes = map[int]string{
	http.StatusBadRequest:                  hensachi.EBadRequest,
	http.StatusRequestHeaderFieldsTooLarge: hensachi.EHeaderTooLarge,
	http.StatusHTTPVersionNotSupported:     hensachi.EHTTPVersion,
	http.StatusRequestTimeout:              hensachi.ERequestTimeout,
}

func (c *apiConn) Write(b []byte) (int, error) {
	status, reason, message, ok := netHTTPError(b)
	if !ok {
		c.pending.Store(false)
		return c.Conn.Write(b)
	}
	if status == http.StatusBadRequest && c.timedOut.Load() {
		// net/http's 400 for a header line cut off by ReadHeaderTimeout
		status, reason = http.StatusRequestTimeout, []byte("Request Timeout")
	}
	if err := c.refuse(status, string(reason), string(bytes.TrimSpace(message))); err != nil {
		return 0, err
	}
	return len(b), nil
}

// refuse writes the problem document for a request net/http refused (message: what net/http said,
// empty for a timeout) and logs it with the problem's request id.
func (c *apiConn) refuse(status int, reason, message string) error {
	code, ok := netHTTPCodes[status]
	if !ok {
		code = hensachi.EHTTPError
	}
	detail := "The request was refused before it reached the API: " + message + "."
	if status == http.StatusRequestTimeout {
		detail = "The request's headers did not arrive within the time the server waits for them; send it again, without pauses."
	}
	id := newRequestID()
	body, _ := json.Marshal(problem{Type: "/problems/" + code, Title: hensachi.KindOf(code).Title, Status: status,
		Detail: detail, Code: code, RequestID: id})
	var out bytes.Buffer
	out.WriteString("HTTP/1.1 " + strconv.Itoa(status) + " " + reason + "\r\n")
	out.WriteString("Content-Type: application/problem+json\r\nCache-Control: no-store\r\nConnection: close\r\n")
	out.WriteString("X-Request-Id: " + id + "\r\n")
	out.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n")
	out.Write(body)
	c.answered.Store(true)
	slog.Info("refused before the API", "status", status, "code", code, "request_id", id, "remote", c.RemoteAddr().String())
	_, err := c.Conn.Write(out.Bytes())
	return err
}
