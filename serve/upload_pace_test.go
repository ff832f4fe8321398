package serve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/app"
	"github.com/hensachi/hensachi/serve"
)

// noisePNG is a w×h PNG of random pixels, which do not compress: about 4 bytes a pixel.
func noisePNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = byte(rng.Uint32())
	}
	var b strings.Builder
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return []byte(b.String())
}

// listen serves the test server as ListenAndServe does — its http.Server and its listener with
// the connection cap — on a loopback port, and returns the address.
func (ts *testServer) listen(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := serve.ServeAsListenAndServe(ts.Server, ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// dialRaw opens a raw connection to addr for at most 10 s, closed when the test ends.
func dialRaw(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	return conn
}

// uploadHead is the head of a face call with a multipart body of the declared length, and the
// body's first bytes: the part named file begins.
func uploadHead(key string, length int, extra string) string {
	return "POST /face/v1/predict HTTP/1.1\r\nHost: x\r\nX-API-Key: " + key + "\r\n" + extra +
		"Content-Type: multipart/form-data; boundary=x\r\nContent-Length: " + fmt.Sprint(length) + "\r\n\r\n"
}

const filePartHead = "--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.png\"\r\n\r\n"

// multipartFile is a whole body of one part named file.
func multipartFile(img []byte) string { return filePartHead + string(img) + "\r\n--x--\r\n" }

// sendAtPace writes body in chunks every interval until it is sent or a write fails (the server
// answered and closed).
func sendAtPace(conn net.Conn, body string, chunk int, interval time.Duration) {
	for len(body) > 0 {
		n := min(chunk, len(body))
		if _, err := io.WriteString(conn, body[:n]); err != nil {
			return
		}
		body = body[n:]
		time.Sleep(interval) // time under test: the pace an upload is judged by
	}
}

// readProblem reads an answer from a raw connection: its status line, header and problem.
func readProblem(t *testing.T, r *bufio.Reader) (*http.Response, problem) {
	t.Helper()
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	defer resp.Body.Close()
	var p problem
	if resp.StatusCode >= 400 {
		if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
			t.Fatalf("status %d: %v", resp.StatusCode, err)
		}
	}
	return resp, p
}

// TestSlowUploadIs408: an upload that falls behind the pace is answered 408 request_timeout, a
// problem with a request id, as soon as it falls behind — while the client still sends — and its
// call gives back the account's share; an upload at a phone's pace, longer than the grace, succeeds.
func TestSlowUploadIs408(t *testing.T) {
	t.Parallel()
	pace := serve.UploadPace{Grace: 300 * time.Millisecond, Window: 300 * time.Millisecond, Bytes: 4 << 10, Limit: 10 * time.Second}
	ts := newTestServer(t, func(c *app.Config) {
		c.Faces.Analyzer, c.Faces.SlotsPerAccount, c.Server.UploadPace = &scriptedAnalyzer{}, 1, pace
	})
	addr := ts.listen(t)
	body := multipartFile(noisePNG(t, 100, 100)) // about 40 KB

	// 1 KB/s: 100 bytes every 100 ms, a quarter of the pace
	conn := dialRaw(t, addr)
	start := time.Now()
	io.WriteString(conn, uploadHead(ts.freeKey, len(body), ""))
	go sendAtPace(conn, body, 100, 100*time.Millisecond)
	resp, p := readProblem(t, bufio.NewReader(conn))
	took := time.Since(start)
	if resp.StatusCode != http.StatusRequestTimeout || p.Code != hensachi.ERequestTimeout || p.RequestID == "" ||
		p.RequestID != resp.Header.Get("X-Request-Id") || resp.Header.Get("Content-Type") != "application/problem+json" {
		t.Errorf("a body at 1 KB/s: %d %+v", resp.StatusCode, p)
	}
	// due at the end of the first window after the grace: 0.6 s, well before the body (7 s) is sent
	if took < 500*time.Millisecond || took > 3*time.Second {
		t.Errorf("408 after %v, want about 0.6 s", took)
	}

	// the same account's next call is admitted (its share came back), sent at 40 KB/s for longer
	// than the grace: it keeps the pace and succeeds
	conn2 := dialRaw(t, addr)
	start = time.Now()
	io.WriteString(conn2, uploadHead(ts.freeKey, len(body), ""))
	go sendAtPace(conn2, body, 2000, 50*time.Millisecond)
	resp, p = readProblem(t, bufio.NewReader(conn2))
	if resp.StatusCode != http.StatusOK || time.Since(start) < pace.Grace {
		t.Errorf("a body at 40 KB/s (%d bytes): %d %+v after %v", len(body), resp.StatusCode, p, time.Since(start))
	}
	if used := ts.Quota.Used(ts.freeID, hensachi.ServiceFace); used != 1 {
		t.Errorf("%d calls counted, want the one that arrived", used)
	}
}

// TestExpectContinueRefusedAtLimit: a client that asks to continue (Expect: 100-continue) is told
// to send its body only when the call will read it. Past the daily limit it gets no 100 Continue
// but the 429 at once, with the RateLimit fields; under the limit it gets the 100 Continue and,
// after its body, its answer.
func TestExpectContinueRefusedAtLimit(t *testing.T) {
	t.Parallel()
	limits := hensachi.DefaultLimits()
	limits[hensachi.PlanFree][hensachi.ServiceFace] = 1
	ts := newTestServer(t, func(c *app.Config) { c.Faces.Analyzer, c.Server.Limits = &scriptedAnalyzer{}, limits })
	free, err := ts.store.Account(context.Background(), ts.freeID)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ts.Quota.Reserve(context.Background(), free, hensachi.ServiceFace)
	if err != nil {
		t.Fatal(err)
	}
	res.Commit() // the day's one call
	addr := ts.listen(t)
	body := multipartFile(encodePNGImage(t, 64, 64))

	conn := dialRaw(t, addr)
	start := time.Now()
	io.WriteString(conn, uploadHead(ts.freeKey, len(body), "Expect: 100-continue\r\n"))
	conn.SetReadDeadline(start.Add(2 * time.Second))
	r := bufio.NewReader(conn)
	line, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "HTTP/1.1 429 ") {
		t.Fatalf("past the limit, the first line is %q (%v), want a 429 and no 100 Continue", line, err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("429 after %v", took)
	}
	resp, err := http.ReadResponse(bufio.NewReader(io.MultiReader(strings.NewReader(line), r)), nil)
	if err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(resp.Body)
	if resp.Header.Get("RateLimit") == "" || resp.Header.Get("RateLimit-Policy") == "" || resp.Header.Get("Retry-After") == "" ||
		!strings.Contains(string(rest), hensachi.EDailyLimitExceeded) {
		t.Errorf("429 without its fields: %v %s", resp.Header, rest)
	}
	if more, _ := io.ReadAll(r); strings.Contains(string(more), "100 Continue") {
		t.Errorf("a 100 Continue after the 429: %q", more)
	}

	// under the limit the client is asked for its body
	conn2 := dialRaw(t, addr)
	io.WriteString(conn2, uploadHead(ts.proKey, len(body), "Expect: 100-continue\r\n"))
	r2 := bufio.NewReader(conn2)
	if line, err := r2.ReadString('\n'); err != nil || !strings.HasPrefix(line, "HTTP/1.1 100 ") {
		t.Fatalf("under the limit, the first line is %q (%v), want 100 Continue", line, err)
	}
	r2.ReadString('\n') // the blank line after it
	io.WriteString(conn2, body)
	if resp, p := readProblem(t, r2); resp.StatusCode != http.StatusOK {
		t.Errorf("under the limit, after the body: %d %+v", resp.StatusCode, p)
	}
}
