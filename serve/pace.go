package serve

import (
	"context"
	"io"
	"math"
	"time"

	"golang.org/x/time/rate"
)

// The export bodies share one budget of bytes per second (Config.ExportRate). Sending a file is
// cheap for the server (sendfile), but not free for the machine: the kernel's network stack, and on
// loopback the client's copy, take a core for every few hundred MB/s, and three downloads of the
// national long table back to back took both of this machine's cores, which the API's other calls
// then waited for (docs/development.md, The long tables under load). Paced, a download takes a
// bounded share of the machine however many run at once, and the others share the budget: each
// chunk waits its turn in the order it asked.

// DefaultExportRate is the export bodies' budget unless Config.ExportRate says otherwise: 64 MiB/s,
// half a gigabit, which keeps the API's p99 within twice its idle p99 on two cores under three
// downloads without pause, and sends the national long table gzipped (33 MB) in half a second.
const DefaultExportRate = 64 << 20

const (
	// paceChunk is the most bytes a body writes at a time: small enough that writers take turns
	// many times a second, large enough that a chunk is a few packets' worth of sendfile.
	paceChunk = 64 << 10
	// paceBurst is what the budget lends at once after a pause, so that a small export is sent
	// without waiting.
	paceBurst = 4 * paceChunk
)

// pacer is the budget the export bodies share.
type pacer struct {
	limiter *rate.Limiter
	now     func() time.Time
	// sleep waits d or until ctx ends (ctx's error); tests replace it with a clock of their own.
	sleep func(ctx context.Context, d time.Duration) error
}

// newPacer returns a budget of bytesPerSecond; nil, which paces nothing, for a negative rate.
func newPacer(bytesPerSecond int64) *pacer {
	if bytesPerSecond < 0 {
		return nil
	}
	return &pacer{limiter: rate.NewLimiter(rate.Limit(bytesPerSecond), paceBurst), now: time.Now, sleep: sleepCtx}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// writer returns w paced by p for a body sent within ctx (the request's: a client gone stops the
// wait); w itself for a nil pacer.
func (p *pacer) writer(ctx context.Context, w io.Writer) io.Writer {
	if p == nil {
		return w
	}
	return &pacedWriter{w: w, ctx: ctx, p: p}
}

// wait takes n bytes (at most paceBurst) from the budget, sleeping until they are there.
func (p *pacer) wait(ctx context.Context, n int) error {
	now := p.now()
	r := p.limiter.ReserveN(now, n)
	d := r.DelayFrom(now)
	if d == 0 {
		return nil
	}
	if err := p.sleep(ctx, d); err != nil {
		r.CancelAt(p.now()) // the bytes were not sent: give them back
		return err
	}
	return nil
}

// pacedWriter writes to w a chunk at a time, each once the budget has it.
type pacedWriter struct {
	w   io.Writer
	ctx context.Context
	p   *pacer
}

func (pw *pacedWriter) Write(b []byte) (int, error) {
	var n int
	for len(b) > 0 {
		k := min(len(b), paceChunk)
		if err := pw.p.wait(pw.ctx, k); err != nil {
			return n, err
		}
		m, err := pw.w.Write(b[:k])
		n += m
		if err != nil {
			return n, err
		}
		b = b[k:]
	}
	return n, nil
}

// ReadFrom copies r to w a chunk at a time, each through w's ReadFrom when it has one. A chunk of
// an io.LimitedReader of a file is a LimitedReader of that file, which net/http's ResponseWriter
// sends with sendfile as it would the whole.
func (pw *pacedWriter) ReadFrom(r io.Reader) (int64, error) {
	lr, ok := r.(*io.LimitedReader)
	if !ok {
		lr = &io.LimitedReader{R: r, N: math.MaxInt64}
	}
	var n int64
	for lr.N > 0 {
		k := min(lr.N, paceChunk)
		if err := pw.p.wait(pw.ctx, int(k)); err != nil {
			return n, err
		}
		m, err := io.Copy(pw.w, &io.LimitedReader{R: lr.R, N: k})
		n += m
		lr.N -= m
		if err != nil || m < k { // an error, or the end of r
			return n, err
		}
	}
	return n, nil
}
