package serve

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/reqinfo"
)

// problem is an RFC 9457 problem document with the members every error of this API carries:
// success false, the stable code, the request id, and the parameter at fault if one is.
type problem struct {
	Success   bool   `json:"success"`
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Detail    string `json:"detail"`
	Code      string `json:"code"`
	RequestID string `json:"request_id"`
	Param     string `json:"param,omitempty"`
}

// writeError answers with the problem document for err. Errors that are not hensachi.Error are
// internal: the client sees a generic message, the log gets the error with the request id.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	kind := hensachi.KindOf(hensachi.ErrorCode(err))
	code, status := kind.Code, kind.Status
	p := problem{Type: "/problems/" + code, Title: kind.Title, Status: status, Code: code,
		RequestID: reqinfo.ID(r.Context())}
	var e *hensachi.Error
	if errors.As(err, &e) && code != hensachi.EInternal {
		p.Detail, p.Param = e.Message, e.Param
		if e.Cause != nil {
			slog.InfoContext(r.Context(), "refused", "code", code, "cause", e.Cause)
		}
	} else {
		p.Detail = "The server failed to answer this request; quote the request id when reporting it."
		slog.ErrorContext(r.Context(), "internal error", "err", err, "path", r.URL.Path)
	}
	h := w.Header()
	switch status {
	case http.StatusUnauthorized:
		h.Set("WWW-Authenticate", `Bearer realm="hensachi"`)
	}
	if e != nil && e.RetryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(wholeSeconds(e.RetryAfter)))
	}
	body, _ := json.Marshal(p)
	h.Set("Content-Type", "application/problem+json")
	h.Set("Cache-Control", "no-store")
	h.Del("ETag")
	w.WriteHeader(status)
	w.Write(body)
}

// wholeSeconds rounds a wait up to whole seconds, at least one, as Retry-After and RateLimit's t
// are written: a client that waits that long is never early.
func wholeSeconds(d time.Duration) int {
	return max(1, int((d+time.Second-1)/time.Second))
}
