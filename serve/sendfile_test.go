package serve

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
)

// readFromConn is the server's TCP connection, counting the bytes that reached its ReadFrom: the
// TCP connection's own, which sends a file's bytes with sendfile.
type readFromConn struct {
	*net.TCPConn
	n *atomic.Int64
}

func (c readFromConn) ReadFrom(r io.Reader) (int64, error) {
	n, err := c.TCPConn.ReadFrom(r)
	c.n.Add(n)
	return n, err
}

type readFromListener struct {
	net.Listener
	n *atomic.Int64
}

func (l readFromListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return readFromConn{c.(*net.TCPConn), l.n}, nil
}

// TestFileBodyReachesTheSocket: a body copied from a file by a handler behind the API's middleware
// (statusRecorder) and connections (apiConn, cappedConn) reaches the TCP connection's ReadFrom
// (sendfile), all but the first 512 bytes net/http copies itself to sniff them.
func TestFileBodyReachesTheSocket(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789abcdef"), 1<<14)
	f, err := os.CreateTemp(t.TempDir(), "body")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.Write(body)
	var sent atomic.Int64
	srv := NewAPITestServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		rec := &statusRecorder{ResponseWriter: w}
		rec.Header().Set("Content-Length", strconv.Itoa(len(body)))
		rec.WriteHeader(http.StatusOK)
		f.Seek(0, io.SeekStart)
		io.Copy(rec, &io.LimitedReader{R: f, N: int64(len(body))})
	}), func(srv *httptest.Server) {
		srv.Listener = newCappedListener(readFromListener{srv.Listener, &sent}, 3)
	})
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("%v: %d bytes of %d", err, len(got), len(body))
	}
	if n := sent.Load(); n != int64(len(body)-512) {
		t.Errorf("%d bytes reached the connection's ReadFrom, want %d", n, len(body)-512)
	}
}
