package serve

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"
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

type apiConn struct{ net.Conn }

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

// Codes of the statuses net/http answers by itself; /problems/<code> explains each.
const (
	codeBadRequest        = "bad_request"
	codeHeaderTooLarge    = "request_header_too_large"
	codeVersionNotHandled = "http_version_not_supported"
	codeHTTPError         = "http_error"
)

var netHTTPCodes = map[int]string{
	http.StatusBadRequest:                  codeBadRequest,
	http.StatusRequestHeaderFieldsTooLarge: codeHeaderTooLarge,
	http.StatusHTTPVersionNotSupported:     codeVersionNotHandled,
}

func (c *apiConn) Write(b []byte) (int, error) {
	status, reason, message, ok := netHTTPError(b)
	if !ok {
		return c.Conn.Write(b)
	}
	code, ok := netHTTPCodes[status]
	if !ok {
		code = codeHTTPError
	}
	detail := string(bytes.TrimSpace(message))
	body, _ := json.Marshal(problem{Type: "/problems/" + code, Title: http.StatusText(status), Status: status,
		Detail: "The request was refused before it reached the API: " + detail + ".", Code: code})
	var out bytes.Buffer
	out.WriteString("HTTP/1.1 " + strconv.Itoa(status) + " " + string(reason) + "\r\n")
	out.WriteString("Content-Type: application/problem+json\r\nCache-Control: no-store\r\nConnection: close\r\n")
	out.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n")
	out.Write(body)
	if _, err := c.Conn.Write(out.Bytes()); err != nil {
		return 0, err
	}
	return len(b), nil
}
