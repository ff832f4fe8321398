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

	"github.com/hensachi/hensachi/internal/reqinfo"
)

// Log is the lines logged since Capture; the server's goroutines write to it while the test reads it.
type Log struct {
	mu sync.Mutex
	b  bytes.Buffer
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
	return l.b.Write(p)
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
