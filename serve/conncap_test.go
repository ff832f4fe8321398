package serve

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hensachi/hensachi/internal/testrig/logtest"
)

// TestConnectionCap opens raw connections to a server capped at 3: a fourth and a fifth are not
// answered while three are open, the fourth is once one of them closes, and the cap is logged once
// for the burst, not once per waiting connection, and its end once.
func TestConnectionCap(t *testing.T) {
	logs := logtest.Capture(t)
	srv := NewAPITestServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }),
		func(srv *httptest.Server) { srv.Listener = newCappedListener(srv.Listener, 3) })
	defer srv.Close()
	addr := srv.Listener.Addr().String()

	const request = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
	dial := func() (net.Conn, *bufio.Reader) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if _, err := io.WriteString(c, request); err != nil {
			t.Fatal(err)
		}
		return c, bufio.NewReader(c)
	}
	answered := func(c net.Conn, r *bufio.Reader, wait time.Duration) bool {
		c.SetReadDeadline(time.Now().Add(wait))
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	}
	var open []net.Conn
	for i := range 3 {
		c, r := dial()
		if !answered(c, r, 5*time.Second) {
			t.Fatalf("connection %d of 3 not answered", i+1)
		}
		open = append(open, c) // kept alive: each holds its slot
	}
	fourth, r4 := dial()
	fifth, r5 := dial()
	if answered(fourth, r4, 300*time.Millisecond) || answered(fifth, r5, 300*time.Millisecond) {
		t.Fatal("a connection past the cap was answered while 3 were open")
	}
	open[0].Close()
	if !answered(fourth, r4, 5*time.Second) {
		t.Fatal("the waiting connection was not answered once a slot was free")
	}
	if n := strings.Count(logs.String(), "connection cap reached"); n != 1 {
		t.Errorf("cap logged %d times, want once:\n%s", n, logs.String())
	}
	for _, c := range append(open[1:], fourth, fifth) {
		c.Close()
	}
	logs.WaitFor("connections below the cap again", 5*time.Second)
	if !strings.Contains(logs.String(), "max_conns=3") || strings.Count(logs.String(), "connections below the cap again") != 1 {
		t.Errorf("log:\n%s", logs.String())
	}
}
