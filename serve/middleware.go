package serve

import (
	"encoding/binary"
	"encoding/hex"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/reqinfo"
)

// validRequestID accepts a client's X-Request-Id only if it is short and plain, so it is safe to log.
func validRequestID(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// newRequestID returns 96 random bits in hex. An id has to be unique, not secret, so it comes from
// the runtime's generator (ChaCha8, per thread), a fraction of the cost of crypto/rand.
func newRequestID() string {
	var b [12]byte
	binary.LittleEndian.PutUint64(b[:8], rand.Uint64())
	binary.LittleEndian.PutUint32(b[8:], rand.Uint32())
	return hex.EncodeToString(b[:])
}

// statusRecorder remembers the status a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// ReadFrom passes a body read from a file on to net/http's ResponseWriter, whose ReadFrom sends it
// with sendfile (the long table's export): io.Copy looks for ReadFrom on the writer it is given.
func (r *statusRecorder) ReadFrom(src io.Reader) (int64, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if rf, ok := r.ResponseWriter.(io.ReaderFrom); ok {
		return rf.ReadFrom(src)
	}
	return io.Copy(struct{ io.Writer }{r.ResponseWriter}, src)
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// requestState is what instrument keeps for one request, in one allocation: its context with its
// info, its recorder, its id header.
type requestState struct {
	ctx      reqinfo.Context
	rec      statusRecorder
	idHeader [1]string
}

// headerValue is h.Get(key) for a key already in canonical form: Get canonicalises its key on every
// call (allocating for one such as "X-API-Key"), and the API's fields are read on every request.
func headerValue(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// instrument gives each request an id, recovers panics into a 500 problem, and records the
// request in the metrics and, when enabled, the access log. route is the registered pattern, so
// metric labels stay few.
func (s *Server) instrument(route string, next httprouter.Handle) httprouter.Handle {
	m := s.metrics.route(route)
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		start := time.Now()
		id := headerValue(r.Header, "X-Request-Id")
		if !validRequestID(id) {
			id = newRequestID()
		}
		st := &requestState{ctx: reqinfo.Context{Context: r.Context(), Info: reqinfo.Info{ID: id}},
			rec: statusRecorder{ResponseWriter: w}}
		st.idHeader[0] = id
		rec := &st.rec
		r = r.WithContext(&st.ctx)
		w.Header()["X-Request-Id"] = st.idHeader[:]
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				slog.ErrorContext(r.Context(), "panic", "panic", p, "path", r.URL.Path)
				if rec.status == 0 {
					writeError(rec, r, hensachi.Errorf(hensachi.EInternal, "panic"))
				}
			}
			elapsed := time.Since(start)
			m.observe(r.Method, rec.status, elapsed)
			if s.cfg.AccessLog {
				// the log's handler (reqinfo.Handler) adds the request id and the account from the context
				slog.LogAttrs(r.Context(), slog.LevelInfo, "request",
					slog.String("method", r.Method), slog.String("route", route), slog.String("path", r.URL.Path),
					slog.Int("status", rec.status), slog.Duration("took", elapsed))
			}
		}()
		next(rec, r, ps)
	}
}
