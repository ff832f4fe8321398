package serve_test

import (
	"bufio"
	"bytes"
	"context"
	"image"
	"image/png"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/app"
	"github.com/hensachi/hensachi/face"
	"github.com/hensachi/hensachi/internal/uploadbody"
)

// heldAnalyzer keeps every image until released, so a test can fill the face service.
type heldAnalyzer struct {
	entered chan struct{}
	release chan struct{}
}

func newHeldAnalyzer() *heldAnalyzer {
	return &heldAnalyzer{entered: make(chan struct{}, 16), release: make(chan struct{})}
}

func (a *heldAnalyzer) AnalyzePhoto(ctx context.Context, _ *face.Photo) ([]face.Face, error) {
	a.entered <- struct{}{}
	select {
	case <-a.release:
	case <-ctx.Done():
	}
	return nil, nil
}

// startHeld sends an upload that the analyzer holds, and returns once it is being analysed.
func startHeld(t *testing.T, ts *testServer, a *heldAnalyzer, key string, img []byte, done *sync.WaitGroup) {
	t.Helper()
	done.Go(func() {
		ct, body := multipartBody(t, [2]string{"file", string(img)})
		if r := ts.post(t, key, ct, body); r.status != 200 {
			t.Errorf("held call: %d %s", r.status, r.body)
		}
	})
	<-a.entered
}

// TestFaceAdmissionBeforeTheBody: a call that admission refuses — its account's share of calls
// taken, or no room for its body in the bodies' budget — is refused before its body is read: the
// 503 arrives while the client is still sending. (The analyzer's slots are taken only once a body
// has arrived, so a full analyzer no longer refuses a body unread: a slow body holds no slot.)
func TestFaceAdmissionBeforeTheBody(t *testing.T) {
	t.Parallel()
	a := newHeldAnalyzer()
	// room for the held call's small body, not beside it for the first bytes of another
	ts := newTestServer(t, func(c *app.Config) {
		c.Faces.Analyzer, c.Faces.SlotsPerAccount, c.Faces.Bodies = a, 1, uploadbody.FirstHold
	})
	var held sync.WaitGroup
	startHeld(t, ts, a, ts.proKey, encodePNGImage(t, 32, 32), &held)
	for _, c := range []struct{ name, key string }{
		{"the account's share taken", ts.proKey},
		{"no room in the bodies' budget", ts.freeKey},
	} {
		t.Run(c.name, func(t *testing.T) {
			body, send := io.Pipe() // a body that never ends unless the test closes it
			defer send.Close()
			// a server that reads the body first never answers; the deadline turns that into a failure
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, "POST", ts.http.URL+"/face/v1/predict", body)
			req.Header.Set("Content-Type", "multipart/form-data; boundary=x")
			req.Header.Set("X-API-Key", c.key)
			go send.Write([]byte("--x\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n"))
			resp, err := ts.http.Client().Do(req)
			if err != nil {
				t.Fatalf("no answer while the body is still being sent: %v", err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
				t.Errorf("%d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
			}
		})
	}
	close(a.release)
	held.Wait()
	if used := ts.Quota.Used(ts.freeID, hensachi.ServiceFace); used != 0 {
		t.Errorf("the refused call counted: %d", used)
	}
}

// TestFacePerAccountCap: one account cannot take every slot; another account still gets in.
func TestFacePerAccountCap(t *testing.T) {
	t.Parallel()
	a := newHeldAnalyzer()
	ts := newTestServer(t, func(c *app.Config) { c.Faces.Analyzer, c.Faces.Slots, c.Faces.SlotsPerAccount = a, 4, 1 })
	img := encodePNGImage(t, 32, 32)
	var held sync.WaitGroup
	startHeld(t, ts, a, ts.freeKey, img, &held)
	ct, body := multipartBody(t, [2]string{"file", string(img)})
	r := ts.post(t, ts.freeKey, ct, body)
	if p := decode[problem](t, r.body); r.status != http.StatusServiceUnavailable || p.Code != hensachi.EOverloaded {
		t.Errorf("a second call of the same account: %d %s", r.status, r.body)
	}
	startHeld(t, ts, a, ts.proKey, img, &held) // another account is admitted
	close(a.release)
	held.Wait()
}

// TestFaceMemoryBudget: decoding needs its bytes from the budget, counted by bit depth: a 16-bit
// photo that does not fit while another is decoded waits its turn (503); one larger than the
// whole budget is refused for good.
func TestFaceMemoryBudget(t *testing.T) {
	t.Parallel()
	a := newHeldAnalyzer()
	// 200×200 16-bit RGBA costs 200·200·(8+3) = 440,000 bytes
	ts := newTestServer(t, func(c *app.Config) { c.Faces.Analyzer, c.Faces.Memory = a, 600_000 })
	deep := encodePNG16(t, 200, 200)
	var held sync.WaitGroup
	startHeld(t, ts, a, ts.proKey, deep, &held)
	ct, body := multipartBody(t, [2]string{"file", string(deep)})
	r := ts.post(t, ts.freeKey, ct, body)
	if p := decode[problem](t, r.body); r.status != http.StatusServiceUnavailable || p.Code != hensachi.EOverloaded {
		t.Errorf("a second 16-bit photo while the budget is taken: %d %s", r.status, r.body)
	}
	ct, body = multipartBody(t, [2]string{"file", string(encodePNG16(t, 300, 300))})
	if r := ts.post(t, ts.freeKey, ct, body); r.status != http.StatusBadRequest {
		t.Errorf("a photo larger than the whole budget: %d %s", r.status, r.body)
	}
	startHeld(t, ts, a, ts.freeKey, encodePNGImage(t, 40, 40), &held) // a small 8-bit photo fits beside it
	close(a.release)
	held.Wait()
}

// encodePNG16 encodes a w×h 16-bit RGBA image.
func encodePNG16(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA64(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 7)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestFaceBodiesBudgetCountsBytesSent: the bodies' budget holds what clients have sent, not what
// they announce: uploads announcing 10 MB that trickle in hold their first bytes only, and another
// account's upload still fits beside them; an upload that outgrows what is left is refused part-way
// (503) and leaves its bytes behind.
func TestFaceBodiesBudgetCountsBytesSent(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, func(c *app.Config) { c.Faces.Analyzer, c.Faces.Bodies = &scriptedAnalyzer{}, 4*uploadbody.FirstHold })
	addr := ts.listen(t)
	for range 2 {
		// the server asks for the body (100 Continue) once the call is admitted, holding
		// uploadbody.FirstHold of the budget
		conn := dialRaw(t, addr)
		io.WriteString(conn, uploadHead(ts.freeKey, 10_000_000, "Expect: 100-continue\r\n"))
		if line, err := bufio.NewReader(conn).ReadString('\n'); err != nil || !strings.HasPrefix(line, "HTTP/1.1 100 ") {
			t.Fatalf("a trickling upload is not asked for its body: %q (%v)", line, err)
		}
		io.WriteString(conn, filePartHead+"first bytes")
	}
	img := noisePNG(t, 80, 80) // about 25 KB, within its first 64 KiB; 128 KiB are left
	ct, body := multipartBody(t, [2]string{"file", string(img)})
	if r := ts.post(t, ts.proKey, ct, body); r.status != http.StatusOK {
		t.Errorf("beside two trickling 10 MB uploads: %d %s", r.status, r.body)
	}
	big := noisePNG(t, 200, 200) // about 160 KB: its buffer needs 256 KiB
	ct, body = multipartBody(t, [2]string{"file", string(big)})
	if r := ts.post(t, ts.proKey, ct, body); r.status != http.StatusServiceUnavailable || decode[problem](t, r.body).Code != hensachi.EOverloaded {
		t.Errorf("an upload larger than the budget left: %d %s", r.status, r.body)
	}
	ct, body = multipartBody(t, [2]string{"file", string(img)}) // fits only if the refused one gave its 128 KiB back
	if r := ts.post(t, ts.proKey, ct, body); r.status != http.StatusOK {
		t.Errorf("the refused upload's bytes were not given back: %d %s", r.status, r.body)
	}
}
