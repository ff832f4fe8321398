package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"image"
	"image/jpeg"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/zlib"

	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

// floodRSSCeiling is the peak resident memory the face service may reach under an upload flood:
// the upload bodies' budget (128 MiB), the decoding budget (512 MiB) and the models' memory stay
// within it because each is taken before the work it guards. Measured peaks are in docs/operating.md, What the server guarantees.
const floodRSSCeiling = 1200 << 20

// TestUploadFloodMemory floods a real face server (built without the race detector, as it runs in
// production) with large uploads from many accounts at once: every answer is a success or a 503
// asking to retry, work still gets done, the process stays up, and its peak resident memory stays
// under the ceiling. The flood lasts 15 s; HENSACHI_SOAK multiplies that.
func TestUploadFloodMemory(t *testing.T) {
	testenv.Slow(t, "builds the command and analyses hundreds of megapixels")
	bin := buildCommand(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "hensachi.db")
	const accounts, perAccount = 12, 4 // twice the per-account cap of parallel calls
	keys := make([]string, accounts)
	for i := range keys {
		var out strings.Builder
		if err := commandAt(bin, &out, "account", "create", "-db", db, "-email", fmt.Sprintf("flood%d@example.com", i)).Run(); err != nil {
			t.Fatalf("account create: %v\n%s", err, out.String())
		}
		keys[i] = keyPattern.FindString(out.String())
	}
	srv := startServer(t, bin, "-db", db, "-services", "face", "-access-log=false", "-uploads", "",
		"-onnxruntime", testenv.ONNXRuntime(t), "-models", testenv.Models(t), "-limits", "face.free=1000000")

	// a phone photo and the largest image the service decodes, 16 bits deep: the second costs most
	// of the decoding budget on its own
	photo := encodeJPEG(t, 4000, 3000)
	huge := encodePNG16(t, 7000, 5700)
	if r := upload(srv, keys[0], photo); r.status != http.StatusOK {
		t.Fatalf("warm-up upload: %d %s", r.status, r.code)
	}
	idle := memoryOf(t, srv, "VmRSS")

	deadline := time.Now().Add(time.Duration(testenv.Soak()) * 15 * time.Second)
	var mu sync.Mutex
	statuses := map[string]int{}
	var wg sync.WaitGroup
	start := time.Now()
	for a, key := range keys {
		for c := range perAccount {
			wg.Go(func() {
				for i := 0; time.Now().Before(deadline); i++ {
					img := photo
					if (a+c+i)%3 == 0 {
						img = huge
					}
					r := upload(srv, key, img)
					outcome := strconv.Itoa(r.status) + " " + r.code
					if r.err != nil {
						outcome = "error"
						t.Errorf("upload: %v", r.err)
					} else if r.status != http.StatusOK && (r.status != http.StatusServiceUnavailable || r.code != "overloaded" || r.retryAfter == "") {
						t.Errorf("upload: %d %s (Retry-After %q)", r.status, r.code, r.retryAfter)
					}
					mu.Lock()
					statuses[outcome]++
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	peak := memoryOf(t, srv, "VmHWM")
	t.Logf("%d clients for %v: %v; resident memory idle %d MiB, peak %d MiB (ceiling %d MiB)",
		accounts*perAccount, time.Since(start).Round(time.Millisecond), statuses, idle>>20, peak>>20, floodRSSCeiling>>20)
	if statuses["200 "] == 0 {
		t.Error("no upload succeeded during the flood")
	}
	if peak > floodRSSCeiling {
		t.Errorf("peak resident memory %d MiB, ceiling %d MiB", peak>>20, floodRSSCeiling>>20)
	}
	if !srv.ready() {
		t.Errorf("the server is not ready after the flood\n%s", srv.tail())
	}
}

// buildCommand builds the hensachi command without the race detector, whose shadow memory would
// make the process's own memory unmeasurable, with the tags of `make build`: the build cache makes
// it cheap after that.
func buildCommand(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "hensachi")
	if out, err := exec.Command("go", "build", "-tags", "arrow_json_stdlib", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// memoryOf reads a field of /proc/<pid>/status in bytes: VmRSS (resident now), VmHWM (peak).
func memoryOf(t *testing.T, r *replica, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", r.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kib << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, r.cmd.Process.Pid)
	return 0
}

func upload(r *replica, key string, img []byte) result {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	part, _ := w.CreateFormFile("file", "photo")
	part.Write(img)
	w.Close()
	req, _ := http.NewRequest(http.MethodPost, r.url+"/face/v1/predict", &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Expect", "100-continue")
	resp, err := uploadClient.Do(req)
	if err != nil {
		return result{err: err}
	}
	defer resp.Body.Close()
	var p struct {
		Code string `json:"code"`
	}
	if resp.StatusCode != http.StatusOK {
		json.NewDecoder(resp.Body).Decode(&p)
	}
	return result{status: resp.StatusCode, code: p.Code, retryAfter: resp.Header.Get("Retry-After")}
}

// uploadClient asks to continue before sending a body, as curl does for any body over 1 MiB: a call
// refused before its body is read then gets its 503 without the body crossing the wire. A client
// that sends at once may find the connection closed under its write (the server stops reading a
// refused body), and Go's transport then reports the write error instead of the answer it received.
var uploadClient = &http.Client{
	Timeout:   2 * time.Minute,
	Transport: &http.Transport{ExpectContinueTimeout: time.Minute, MaxIdleConnsPerHost: 64},
}

// encodeJPEG encodes a w×h photo-like picture: smooth gradients with fine texture.
func encodeJPEG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Pix[img.PixOffset(x, y)+0] = uint8(x * 255 / w)
			img.Pix[img.PixOffset(x, y)+1] = uint8(y*255/h) ^ uint8(x*y)&7
			img.Pix[img.PixOffset(x, y)+2] = 128
			img.Pix[img.PixOffset(x, y)+3] = 255
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 85}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// encodePNG16 writes a w×h 16-bit RGB PNG of a flat colour: a small file that decodes to w×h×8
// bytes. It is written chunk by chunk: image/png's encoder asks for every pixel through an
// interface, half a minute for these 40 megapixels under the race detector.
func encodePNG16(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(kind string, data []byte) {
		b.Write(binary.BigEndian.AppendUint32(nil, uint32(len(data))))
		crc := crc32.NewIEEE()
		io.MultiWriter(&b, crc).Write(append([]byte(kind), data...))
		b.Write(crc.Sum(nil))
	}
	header := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, uint32(w)), uint32(h))
	chunk("IHDR", append(header, 16, 2, 0, 0, 0))                                   // 16 bits, RGB, deflate, no filter, no interlace
	row := append([]byte{0}, bytes.Repeat([]byte{0x80, 0, 0x40, 0, 0x20, 0}, w)...) // filter 0, then the pixels
	var pixels bytes.Buffer
	z, _ := zlib.NewWriterLevel(&pixels, zlib.BestSpeed)
	for range h {
		z.Write(row)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	chunk("IDAT", pixels.Bytes())
	chunk("IEND", nil)
	return b.Bytes()
}
