package face

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/jpegtest"
)

// cpuTime is the CPU time the process has used.
func cpuTime(t testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestManyScans: a progressive JPEG whose AC scan is repeated 1,000 or 20,000 times, small files that
// would keep a decoder busy for minutes, is refused by Inspect, before any decoding, in well under a
// second; so are many passes over a large image, while an ordinary progressive photo and a file at
// the limit decode.
func TestManyScans(t *testing.T) {
	for _, c := range []struct {
		name  string
		data  []byte
		scans int
		want  string // in the message; "" for a file that decodes
	}{
		{"1,000 scans", jpegtest.ManyScans(2000, 2000, 1000), 1001, "1001 scans; the service decodes up to 100"},
		{"20,000 scans", jpegtest.ManyScans(2000, 2000, 20_000), 20_001, "20001 scans; the service decodes up to 100"},
		{"20,000 scans of 16×16", jpegtest.ManyScans(16, 16, 20_000), 20_001, "20001 scans"},
		{"41 passes over 24 MP", jpegtest.ManyScans(6000, 4000, 40), 41, "pixels 41 times over"},
		{"libjpeg's script", jpegtest.Progressive(640, 480, 3, jpegtest.LibjpegScript), 10, ""},
		{"at the scan limit", jpegtest.ManyScans(1000, 1000, MaxScans-1), MaxScans, ""},
		{"33 passes over 24 MP", jpegtest.ManyScans(6000, 4000, 32), 33, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			start, cpu := time.Now(), cpuTime(t)
			_, err := Inspect(c.data)
			took, used := time.Since(start), cpuTime(t)-cpu
			t.Logf("%d bytes: Inspect %v, %v CPU", len(c.data), took, used)
			if got := jpegScanCost(c.data, 1, 1).scans; got != c.scans {
				t.Errorf("counted %d scans, want %d", got, c.scans)
			}
			if c.want == "" {
				if err != nil {
					t.Fatalf("Inspect: %v", err)
				}
				for _, off := range []bool{false, true} {
					turbo.off.Store(off)
					p, err := DecodePhoto(c.data)
					if err == nil {
						_, err = p.pixels(1)
					}
					turbo.off.Store(false)
					if err != nil {
						t.Fatalf("DecodePhoto (libjpeg-turbo off: %v): %v", off, err)
					}
				}
				return
			}
			if hensachi.ErrorCode(err) != hensachi.EInvalidImage || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Inspect: %v, want %s saying %q", err, hensachi.EInvalidImage, c.want)
			}
			if took > 100*time.Millisecond {
				t.Errorf("refused after %v", took)
			}
			for _, off := range []bool{false, true} {
				turbo.off.Store(off)
				_, err := DecodePhoto(c.data)
				turbo.off.Store(false)
				if hensachi.ErrorCode(err) != hensachi.EInvalidImage {
					t.Errorf("DecodePhoto (libjpeg-turbo off: %v): %v", off, err)
				}
			}
			if _, err := Decode(c.data); hensachi.ErrorCode(err) != hensachi.EInvalidImage {
				t.Errorf("Decode: %v", err)
			}
		})
	}
}

// TestScanCost: the samples of each scan, subsampled chroma counting its own.
func TestScanCost(t *testing.T) {
	if got := jpegScanCost(jpegtest.Progressive(64, 32, 3, jpegtest.LibjpegScript), 64, 32); got.scans != 10 || got.samples != 14*64*32 {
		t.Errorf("libjpeg's script of 64×32: %+v, want 10 scans, 14 passes", got)
	}
	// a baseline file whose scan is repeated costs a decode each time
	one := jpegtest.ManyScans(64, 64, 0)
	if got := jpegScanCost(one, 64, 64); got.scans != 1 || got.samples != 64*64 {
		t.Errorf("one scan: %+v", got)
	}
	// what follows the end of the image is not decoded, and stuffed bytes, restarts and fill
	// bytes are not markers
	tail := append(append([]byte{}, one...), jpegtest.ManyScans(64, 64, 500)[2:]...)
	if got := jpegScanCost(tail, 64, 64); got.scans != 1 {
		t.Errorf("scans after the end of the image: %d", got.scans)
	}
	junk := append(append([]byte{}, one[:len(one)-2]...), 0xFF, 0x00, 0xFF, 0xD3, 0x12, 0xFF, 0xFF, 0xDA, 0x00, 0x02, 0xFF, 0xD9)
	if got := jpegScanCost(junk, 64, 64); got.scans != 2 {
		t.Errorf("a scan after junk, fill bytes and a restart: %d, want 2", got.scans)
	}
}

// TestTurboCostNotFallenBack: a file libjpeg-turbo refuses for its scans is not decoded by
// image/jpeg instead, even when Inspect did not stop it.
func TestTurboCostNotFallenBack(t *testing.T) {
	if turboFactors() == nil {
		t.Skip("no libjpeg-turbo")
	}
	data := jpegtest.ManyScans(512, 512, 600)
	p := &Photo{W: 512, H: 512, Format: JPEG, jpeg: data, storedW: 512, storedH: 512, orientation: 1}
	start := time.Now()
	_, err := p.pixels(1)
	if hensachi.ErrorCode(err) != hensachi.EInvalidImage || !errors.Is(err, errTooCostly) || p.decodes != 0 {
		t.Fatalf("%v (%d decodes), want %s refused for its cost, not decoded", err, p.decodes, hensachi.EInvalidImage)
	}
	t.Logf("refused by libjpeg-turbo after %v", time.Since(start))
}

// TestDecodeStopsWithContext: nothing is decoded for a request that has ended, neither the first
// level nor a finer one.
func TestDecodeStopsWithContext(t *testing.T) {
	data := jpegtest.Progressive(4000, 3000, 3, jpegtest.LibjpegScript) // decoded at 1/4 first
	h, err := Inspect(data)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := DecodePhotoContext(ctx, data, h); !errors.Is(err, context.Canceled) {
		t.Fatalf("DecodePhotoContext after the end: %v", err)
	}
	if turboFactors() == nil {
		return
	}
	ctx, cancel = context.WithCancel(t.Context())
	p, err := DecodePhotoContext(ctx, data, h)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	decodes := p.decodes
	if _, err := p.pixels(1); !errors.Is(err, context.Canceled) || p.decodes != decodes {
		t.Fatalf("finer pixels after the end: %v, %d decodes (was %d)", err, p.decodes, decodes)
	}
}
