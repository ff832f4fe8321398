package serve

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
)

// problemListener hands out connections that turn the errors net/http writes by itself, before any
// handler runs (431 for oversized headers, 400 for a request without Host or malformed, 505 for an
// unsupported protocol version), into problem documents like every other error of the API.
// net/http writes each such error in one Write of a fixed shape, which no handler's response has
// (those always carry a Date header first), so the rewrite cannot touch a real response. What it
// cannot reach: failures below HTTP (TLS handshakes, connections cut mid-request), which get no
// response at all.
type problemListener struct{ net.Listener }

func (l problemListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return problemConn{c}, nil
}

type problemConn struct{ net.Conn }

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

func (c problemConn) Write(b []byte) (int, error) {
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
