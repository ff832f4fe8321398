package serve_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/storetest"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

// slowUploader sends face calls of a declared 10 MB at rate bytes a second over raw connections,
// one after another, until ctx ends, and records how each ended: the answer's status, or "closed".
func slowUploader(ctx context.Context, addr, key string, rate int, record func(outcome string)) {
	const tick = 100 * time.Millisecond
	chunk := make([]byte, rate/int(time.Second/tick))
	for ctx.Err() == nil {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			record("dial: " + err.Error())
			time.Sleep(tick) // time under test: the attacker's pace, which redials no faster than it sends
			continue
		}
		answered := make(chan string, 1)
		go func() {
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				answered <- "closed"
				return
			}
			resp.Body.Close()
			answered <- resp.Status
		}()
		io.WriteString(conn, uploadHead(key, 10_000_000, "")+filePartHead)
		outcome := ""
		for outcome == "" {
			select {
			case <-ctx.Done():
				outcome = "stopped"
			case outcome = <-answered:
			case <-time.After(tick):
				conn.Write(chunk)
			}
		}
		conn.Close()
		if outcome != "stopped" {
			record(outcome)
		}
	}
}

// TestSlowAccountsCannotLockOut is a slow-upload attack against a server with the real models,
// served as ListenAndServe serves it: three free accounts send uploads at 1 KB/s, two connections
// each, sending again whenever they are cut. Meanwhile a paying account's uploads — portraits and a
// 3-megapixel photo, one after another — must all succeed within 10 s, and the slow uploads are
// cut by the pace (408) and never analysed. (With slots taken before the body, the six slow
// uploads held all six of a 2-core server's slots: the paying account's first upload was a 503.) The
// figures go to the reliability table of docs/operating.md.
func TestSlowAccountsCannotLockOut(t *testing.T) {
	testenv.Slow(t, "a 25 s upload attack against the real models")
	ts := newTestServer(t, withFaces(t))
	addr := ts.listen(t)
	photos := [][]byte{scutImage(t, "CF100.jpg"), scutImage(t, "AM100.jpg"), smoothJPEG(t, 2000, 1500)}

	ctx, stop := context.WithCancel(context.Background())
	var attack sync.WaitGroup
	var mu sync.Mutex
	outcomes := map[string]int{}
	for i := range 3 {
		key, _ := storetest.CreateAccount(t, ts.store, fmt.Sprintf("slow%d@example.com", i), hensachi.PlanFree)
		for range 2 {
			attack.Go(func() {
				slowUploader(ctx, addr, key, 1000, func(o string) { mu.Lock(); outcomes[o]++; mu.Unlock() })
			})
		}
	}
	defer func() { stop(); attack.Wait() }()
	// time under test: the slow uploads have held their connections for 2 s, as an attack has when
	// a paying call comes, before the calls measure what that costs them
	time.Sleep(2 * time.Second)

	client := &http.Client{Timeout: 10 * time.Second}
	var took []time.Duration
	for end := time.Now().Add(22 * time.Second); time.Now().Before(end); { // past the first cut, at 20 s
		img := photos[len(took)%len(photos)]
		ct, body := multipartBody(t, [2]string{"file", string(img)})
		req, _ := http.NewRequest("POST", "http://"+addr+"/face/v1/predict", body)
		req.Header.Set("Content-Type", ct)
		req.Header.Set("X-API-Key", ts.proKey)
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("upload %d of the paying account (%d bytes) during the attack: %v", len(took)+1, len(img), err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		took = append(took, time.Since(start))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("upload %d of the paying account (%d bytes) during the attack: %d %s", len(took), len(img), resp.StatusCode, b)
		}
	}
	stop()
	attack.Wait()
	slices.Sort(took)
	t.Logf("paying account: %d uploads during the attack, median %v, slowest %v; the slow uploads ended %v",
		len(took), took[len(took)/2].Round(time.Millisecond), took[len(took)-1].Round(time.Millisecond), outcomes)
	if outcomes["408 Request Timeout"] == 0 {
		t.Errorf("no slow upload was cut by the pace: %v", outcomes)
	}
	for o := range outcomes {
		if o != "408 Request Timeout" {
			t.Errorf("a slow upload ended %q, want only 408s: %v", o, outcomes)
		}
	}
}

// smoothJPEG is a w×h JPEG of smooth gradients, the size a phone photo of that many pixels has.
func smoothJPEG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x * 255 / w), uint8(y * 255 / h), uint8((x + y) % 256), 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
