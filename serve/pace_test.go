package serve

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// fakeClock is the pacer's clock in a test: a sleep moves it on at once.
type fakeClock struct {
	t     time.Time
	slept time.Duration
}

func (c *fakeClock) pacer(bytesPerSecond int64) *pacer {
	p := newPacer(bytesPerSecond)
	p.now = func() time.Time { return c.t }
	p.sleep = func(ctx context.Context, d time.Duration) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		c.t = c.t.Add(d)
		c.slept += d
		return nil
	}
	return p
}

// chunkRecorder records the writes and ReadFroms it is given.
type chunkRecorder struct {
	bytes.Buffer
	writes, readFroms []int
	sources           []io.Reader // the R of each LimitedReader ReadFrom was given
}

func (r *chunkRecorder) Write(b []byte) (int, error) {
	r.writes = append(r.writes, len(b))
	return r.Buffer.Write(b)
}

func (r *chunkRecorder) ReadFrom(src io.Reader) (int64, error) {
	if lr, ok := src.(*io.LimitedReader); ok {
		r.sources = append(r.sources, lr.R)
	}
	n, err := r.Buffer.ReadFrom(src)
	r.readFroms = append(r.readFroms, int(n))
	return n, err
}

// TestPacedWrite: bodies written through one budget, one after the other, take the time their
// bytes cost at its rate, less the burst it lends at first, and go in chunks of paceChunk at most.
func TestPacedWrite(t *testing.T) {
	clock := &fakeClock{t: time.Unix(0, 0)}
	const rate = 1 << 20
	p := clock.pacer(rate)
	body := bytes.Repeat([]byte("x"), 3<<20)
	var out chunkRecorder
	for _, b := range [][]byte{body[:1<<20], body[1<<20:]} {
		if n, err := p.writer(context.Background(), &out).Write(b); err != nil || n != len(b) {
			t.Fatalf("%d, %v", n, err)
		}
	}
	if !bytes.Equal(out.Bytes(), body) {
		t.Fatal("the body changed")
	}
	if want := time.Duration(len(body)-paceBurst) * time.Second / rate; clock.slept != want {
		t.Errorf("slept %v, want %v", clock.slept, want)
	}
	if len(out.writes) != len(body)/paceChunk || out.writes[0] != paceChunk {
		t.Errorf("writes %v", out.writes)
	}
}

// TestPacedReadFrom: a LimitedReader copied through the pacer reaches the writer's ReadFrom in
// chunks that are LimitedReaders of the same reader (a file stays a file for sendfile), paced,
// and one that is not a LimitedReader is copied to its end.
func TestPacedReadFrom(t *testing.T) {
	clock := &fakeClock{t: time.Unix(0, 0)}
	const rate = 1 << 20
	p := clock.pacer(rate)
	src := strings.NewReader(strings.Repeat("y", 2<<20+5))
	var out chunkRecorder
	n, err := io.Copy(p.writer(context.Background(), &out), &io.LimitedReader{R: src, N: 2 << 20})
	if err != nil || n != 2<<20 || out.Len() != 2<<20 {
		t.Fatalf("%d, %v, %d bytes", n, err, out.Len())
	}
	if len(out.readFroms) != (2<<20)/paceChunk || out.readFroms[0] != paceChunk {
		t.Errorf("ReadFrom calls %v", out.readFroms)
	}
	for _, r := range out.sources {
		if r != src {
			t.Fatalf("a chunk of %T, not of the file", r)
		}
	}
	if want := time.Duration(2<<20-paceBurst) * time.Second / rate; clock.slept != want {
		t.Errorf("slept %v, want %v", clock.slept, want)
	}
	out.Reset()
	if n, err := io.Copy(p.writer(context.Background(), &out), strings.NewReader("rest")); err != nil || n != 4 || out.String() != "rest" {
		t.Errorf("%d, %v, %q", n, err, out.String())
	}
}

// TestPacedGoneClient: a body whose request has ended stops at its next chunk, and the budget it
// did not use goes to the next body.
func TestPacedGoneClient(t *testing.T) {
	clock := &fakeClock{t: time.Unix(0, 0)}
	p := clock.pacer(1 << 20)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out chunkRecorder
	// the burst goes without waiting; past it, the wait sees the request gone
	n, err := p.writer(ctx, &out).Write(make([]byte, paceBurst+paceChunk))
	if err != context.Canceled || n != paceBurst {
		t.Fatalf("%d, %v", n, err)
	}
	if p.limiter.TokensAt(clock.t) != 0 {
		t.Errorf("%v tokens left, want 0: the cancelled chunk's were given back", p.limiter.TokensAt(clock.t))
	}
}

// TestUnpaced: a negative rate paces nothing.
func TestUnpaced(t *testing.T) {
	var out bytes.Buffer
	if w := newPacer(-1).writer(context.Background(), &out); w != io.Writer(&out) {
		t.Errorf("%T, want the writer itself", w)
	}
}
