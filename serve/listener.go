package serve

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"regexp"
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

// netHTTPError is the shape of net/http's own error responses (server.go, "HTTP/1.1 " + publicErr).
var netHTTPError = regexp.MustCompile(`\AHTTP/1\.1 ([0-9]{3}) ([^\r\n]*)\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n`)

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
	m := netHTTPError.FindSubmatch(b)
	if m == nil {
		return c.Conn.Write(b)
	}
	status, _ := strconv.Atoi(string(m[1]))
	code, ok := netHTTPCodes[status]
	if !ok {
		code = codeHTTPError
	}
	detail := string(bytes.TrimSpace(b[len(m[0]):]))
	body, _ := json.Marshal(problem{Type: "/problems/" + code, Title: http.StatusText(status), Status: status,
		Detail: "The request was refused before it reached the API: " + detail + ".", Code: code})
	var out bytes.Buffer
	out.WriteString("HTTP/1.1 " + string(m[1]) + " " + string(m[2]) + "\r\n")
	out.WriteString("Content-Type: application/problem+json\r\nCache-Control: no-store\r\nConnection: close\r\n")
	out.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n")
	out.Write(body)
	if _, err := c.Conn.Write(out.Bytes()); err != nil {
		return 0, err
	}
	return len(b), nil
}
