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
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/negotiate"
	"github.com/hensachi/hensachi/internal/reqinfo"
)

//go:embed templates/*.html
var files embed.FS

// layout holds site-head and site-foot (the public pages' frame), head and foot (the same frame
// with the title as heading) and the message page, and the pages' one function, nowrap.
var layout = template.Must(template.New("layout").Funcs(template.FuncMap{"nowrap": Nowrap}).ParseFS(files, "templates/*.html"))

// Nowrap is a value and its unit as the pages print them: one piece that a line does not break
// inside (the layout's class nb), so that a phone never shows 3.2 店/1 at a line's end and 万人 on
// the next. Every value printed with its unit goes through it, in a template ({{nowrap .}}) or in
// HTML a page builds, and so does a unit printed alone (（店/1万人）). A bare number (0.72, −3,
// —) or a single character has nowhere to break and is left as it is, which keeps the heaviest
// pages lighter.
func Nowrap(s string) template.HTML {
	if strings.Trim(s, "0123456789,.+-−—") == "" || utf8.RuneCountInString(s) == 1 {
		return template.HTML(template.HTMLEscapeString(s))
	}
	return template.HTML(`<span class=nb>` + template.HTMLEscapeString(s) + `</span>`)
}

// Parse returns the layout with a package's own pages added; a template that does not parse is a
// bug, so it panics.
func Parse(fsys fs.FS, patterns ...string) *template.Template {
	return template.Must(template.Must(layout.Clone()).ParseFS(fsys, patterns...))
}

// Base is what the layout of every page needs.
type Base struct {
	Title, Description, Canonical string
	Credit                        hensachi.Link // the dataset's source, in the footer when known
	// NoLogin leaves out the links to the account and login pages: the server takes no logins,
	// and they would only answer that.
	NoLogin bool
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
	if len(page) > negotiate.MinCompressed && negotiate.AcceptsGzip(r.Header) {
		page = negotiate.Gzip(page)
		h.Set("Content-Encoding", "gzip")
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

type messagePage struct {
	Base
	Message, RequestID string
	Again              bool // offer to log in again
	// Search offers the search box and the way back to the top: the reader looked for something
	// not there (404) or asked in a way the site does not read (400: a page number of abc), but not
	// in the middle of logging in, where the way on is to log in again
	Search bool
}

// message renders a short page with the request id in the layout of base, for failures: the log
// has the cause. again offers to log in again.
func message(w http.ResponseWriter, r *http.Request, base Base, status int, heading, msg string, again bool) {
	base.Title, base.Description, base.Canonical = heading, "", ""
	Render(w, r, layout, status, "message", messagePage{Base: base, Message: msg,
		RequestID: reqinfo.ID(r.Context()), Again: again, Search: status == http.StatusNotFound || status == http.StatusBadRequest && !again})
}

// Failure gives a failed page words of its own where its code's would say less: a heading in place
// of the code's (hensachi.Kinds), and a link to log in again. Err is the failure itself, which
// Error answers: a hensachi.Error, whose code gives the status and whose message the page shows.
type Failure struct {
	Heading string // "": the code's
	Again   bool   // offer to log in again
	Err     error
}

func (f *Failure) Error() string { return f.Err.Error() }

func (f *Failure) Unwrap() error { return f.Err }

// Error answers a page that failed with the message page: the status and heading of err's code
// (hensachi.Kinds), or a Failure's heading; the message of a hensachi.Error (its Japanese one when it
// has one), which is written for the page's reader, and its cause in the log. Any other error is
// internal: the reader sees a general message and the log gets the error. The page has the layout
// of base (its NoLogin and Credit; the title is the failure's heading), so that a server without
// login links no login page from its failures either.
func Error(w http.ResponseWriter, r *http.Request, base Base, err error) {
	kind := hensachi.KindOf(hensachi.ErrorCode(err))
	heading, again := kind.Heading, false
	var f *Failure
	if errors.As(err, &f) {
		again = f.Again
		if f.Heading != "" {
			heading = f.Heading
		}
	}
	msg, cause := "このページを表示できませんでした。", err
	var e *hensachi.Error
	if errors.As(err, &e) {
		msg, cause = e.Japanese, e.Cause
		if msg == "" {
			msg = e.Message
		}
		if e.RetryAfter > 0 {
			RetryAfter(w, e.RetryAfter)
		}
	}
	switch {
	case kind.Code == hensachi.EInternal:
		if cause == nil {
			cause = err
		}
		slog.ErrorContext(r.Context(), "page failed", "err", cause, "path", r.URL.Path)
	case cause != nil:
		slog.WarnContext(r.Context(), "page refused", "code", kind.Code, "cause", cause, "path", r.URL.Path)
	}
	message(w, r, base, kind.Status, heading, msg, again)
}

// RetryAfter sets Retry-After in whole seconds, at least one.
func RetryAfter(w http.ResponseWriter, d time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int((d+time.Second-1)/time.Second))))
}
