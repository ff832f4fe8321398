// Package page is what the two sides of the web front (package web/site, the public pages, and
// package web/account, the login and account pages) share: the layout, the message page, and
// writing a page with the headers every page carries.
//
// Every page is marked not to be framed or to leak its address in a Referer (the login callback's
// address carries the authorization code, and two account pages show a key), carries a strict
// content security policy, and is compressed when the client accepts gzip.
package page

import (
	"bytes"
	"compress/gzip"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/negotiate"
	"github.com/hensachi/hensachi/internal/reqinfo"
)

//go:embed templates/*.html
var files embed.FS

// layout holds site-head and site-foot (the public pages' frame), head and foot (the same frame
// with the title as heading) and the message page.
var layout = template.Must(template.ParseFS(files, "templates/*.html"))

// Parse returns the layout with a package's own pages added; a template that does not parse is a
// bug, so it panics.
func Parse(fsys fs.FS, patterns ...string) *template.Template {
	return template.Must(template.Must(layout.Clone()).ParseFS(fsys, patterns...))
}

// Base is what the layout of every page needs.
type Base struct {
	Title, Description, Canonical string
	Credit                        hensachi.Link // the dataset's source, in the footer when known
}

// Render writes a page that must not be stored (it shows an account or a failure); a template
// failure is a bug and answers a bare 500.
func Render(w http.ResponseWriter, r *http.Request, t *template.Template, status int, name string, data any) {
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, name, data); err != nil {
		slog.ErrorContext(r.Context(), "render page", "page", name, "err", err)
		http.Error(w, "internal error; request id "+reqinfo.ID(r.Context()), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Add("Vary", "Cookie")
	Write(w, r, status, buf.Bytes())
}

// Write writes an HTML page with the headers every page carries: a strict content security
// policy (no script, inline styles only, forms to this site, no framing), no referrer, no type
// sniffing, and HSTS when the page was reached over https (directly or through a proxy that says so).
func Write(w http.ResponseWriter, r *http.Request, status int, page []byte) {
	WriteWithPolicy(w, r, status, page, Policy)
}

// Policy is the content security policy of the pages: no script, no framing, forms, styles and
// images of this site only. connect-src lets crawlers' in-page checks (e.g. of robots.txt) reach this site;
// without script nothing else can use it.
const Policy = "default-src 'none'; " + ImageSources + "; style-src 'unsafe-inline'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// ImageSources is Policy's img-src directive: the site's own favicon. A page that shows more (the
// face demo's photo) replaces it in Policy rather than adding a second img-src, which browsers
// ignore with a console error.
const ImageSources = "img-src 'self'"

// WriteWithPolicy is Write with a content security policy that allows more than Policy.
func WriteWithPolicy(w http.ResponseWriter, r *http.Request, status int, page []byte, policy string) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Add("Vary", "Accept-Encoding")
	if len(page) > minCompressed && negotiate.AcceptsGzip(r.Header) {
		if z, err := gzipped(page); err == nil {
			page = z
			h.Set("Content-Encoding", "gzip")
		}
	}
	h.Set("Content-Length", strconv.Itoa(len(page)))
	h.Set("Content-Security-Policy", policy)
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	if r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https" {
		h.Set("Strict-Transport-Security", "max-age=31536000")
	}
	w.WriteHeader(status)
	w.Write(page)
}

// minCompressed is the smallest page worth compressing.
const minCompressed = 1 << 10

var gzipWriters = sync.Pool{New: func() any {
	z, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return z
}}

// gzipped compresses a page; pages are small, so it is done whole, with pooled writers.
func gzipped(page []byte) ([]byte, error) {
	var b bytes.Buffer
	z := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(z)
	z.Reset(&b)
	if _, err := z.Write(page); err != nil {
		return nil, err
	}
	if err := z.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

type messagePage struct {
	Base
	Message, RequestID string
	Again              bool // offer to log in again
}

// Message renders a short page with the request id, for failures: the log has the cause. again
// offers to log in again.
func Message(w http.ResponseWriter, r *http.Request, status int, title, msg string, again bool) {
	Render(w, r, layout, status, "message", messagePage{Base: Base{Title: title}, Message: msg,
		RequestID: reqinfo.ID(r.Context()), Again: again})
}

// Error answers a page that failed with the message page: the status and heading of err's code
// (hensachi.Kinds), and the message of a hensachi.Error, which is written for the page's reader. Any
// other error is internal: the reader sees a general message and the log gets the error.
func Error(w http.ResponseWriter, r *http.Request, err error) {
	kind := hensachi.KindOf(hensachi.ErrorCode(err))
	var e *hensachi.Error
	if !errors.As(err, &e) || kind.Code == hensachi.EInternal {
		slog.ErrorContext(r.Context(), "page failed", "err", err, "path", r.URL.Path)
		Message(w, r, kind.Status, kind.Heading, "このページを表示できませんでした。", false)
		return
	}
	if e.Cause != nil {
		slog.WarnContext(r.Context(), "page refused", "code", kind.Code, "cause", e.Cause, "path", r.URL.Path)
	}
	if e.RetryAfter > 0 {
		RetryAfter(w, e.RetryAfter)
	}
	msg := e.Japanese
	if msg == "" {
		msg = e.Message
	}
	Message(w, r, kind.Status, kind.Heading, msg, false)
}

// Fail logs why a page failed, with the request id, and shows the user a message without it.
func Fail(w http.ResponseWriter, r *http.Request, status int, title, msg, logMsg string, err error) {
	fail(w, r, status, title, msg, logMsg, err, false)
}

// FailLogin is Fail for a step of logging in: the message offers to log in again.
func FailLogin(w http.ResponseWriter, r *http.Request, status int, title, msg, logMsg string, err error) {
	fail(w, r, status, title, msg, logMsg, err, true)
}

func fail(w http.ResponseWriter, r *http.Request, status int, title, msg, logMsg string, err error, again bool) {
	level := slog.LevelWarn
	if status >= 500 && status != http.StatusBadGateway && status != http.StatusServiceUnavailable {
		level = slog.LevelError
	}
	slog.Log(r.Context(), level, logMsg, "err", err, "status", status, "path", r.URL.Path)
	Message(w, r, status, title, msg, again && status != http.StatusTooManyRequests)
}

// RetryAfter sets Retry-After in whole seconds, at least one.
func RetryAfter(w http.ResponseWriter, d time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int((d+time.Second-1)/time.Second))))
}
