// Package logtest captures what a test's server logs through the default logger, as cmd/hensachi
// logs it: text lines, and the request id and account of a record logged with a request's context
// (reqinfo.Handler).
package logtest

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hensachi/hensachi/internal/reqinfo"
)

// Log is the lines logged since Capture; the server's goroutines write to it while the test reads it.
type Log struct {
	mu      sync.Mutex
	b       bytes.Buffer
	written chan struct{} // closed by the next Write, for WaitFor
}

// Capture makes the default logger write to a new Log until the test ends, through
// reqinfo.Handler as cmd/hensachi's does.
func Capture(t testing.TB) *Log {
	t.Helper()
	l := &Log{}
	prev := slog.Default()
	slog.SetDefault(slog.New(reqinfo.NewHandler(slog.NewTextHandler(l, nil))))
	t.Cleanup(func() { slog.SetDefault(prev) })
	return l
}

func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.written != nil {
		close(l.written)
		l.written = nil
	}
	return l.b.Write(p)
}

// WaitFor waits until the log holds text, woken by each line written instead of polling, for at
// most wait; it reports whether text came.
func (l *Log) WaitFor(text string, wait time.Duration) bool {
	timeout := time.After(wait)
	for {
		l.mu.Lock()
		if strings.Contains(l.b.String(), text) {
			l.mu.Unlock()
			return true
		}
		if l.written == nil {
			l.written = make(chan struct{})
		}
		written := l.written
		l.mu.Unlock()
		select {
		case <-written:
		case <-timeout:
			return false
		}
	}
}

func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Line returns the first line that holds every one of parts, or "".
func (l *Log) Line(parts ...string) string {
next:
	for line := range strings.Lines(l.String()) {
		for _, p := range parts {
			if !strings.Contains(line, p) {
				continue next
			}
		}
		return line
	}
	return ""
}
