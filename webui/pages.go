package webui

import (
	"bytes"
	"compress/gzip"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/hensachi/hensachi/internal/reqinfo"
)

// The login and account pages (templates/account.html) share the public pages' layout. Every
// page is marked not to be cached, framed or to leak its address in a Referer (the callback's
// address carries the authorization code, and two pages show a key).
var webTemplates = siteTemplates

// pageBase is the layout's data of the login and account pages, which are in English.
type pageBase = sitePage

type loginPage struct {
	pageBase
	Provider, TermsVersion, TermsURL string
	Development                      bool
	Mails                            bool // keys are mailed as well as shown
}

type keyPage struct {
	pageBase
	First                 bool
	Email, Key, PublicURL string
	Mailed, MailOff       bool
}

type usageRow struct {
	Service, Label string
	Used, Limit    int64
}

type accountPage struct {
	pageBase
	Email, Plan, TermsVersion, TermsAccepted, Day, CSRF string
	Hints                                               []string
	Usage                                               []usageRow
}

type messagePage struct {
	pageBase
	Message, RequestID string
	Again              bool // offer to log in again
}

// render writes a page; a template failure is a bug and answers a bare 500.
func render(w http.ResponseWriter, r *http.Request, status int, name string, data any) {
	var buf bytes.Buffer
	if err := webTemplates.ExecuteTemplate(&buf, name, data); err != nil {
		slog.ErrorContext(r.Context(), "render page", "page", name, "err", err, "request_id", reqinfo.ID(r.Context()))
		http.Error(w, "internal error; request id "+reqinfo.ID(r.Context()), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Add("Vary", "Cookie")
	writePage(w, r, status, buf.Bytes())
}

// writePage writes an HTML page with the headers every page carries: a strict content security
// policy (no script, inline styles only, forms to this site, no framing), no referrer, no type
// sniffing, and HSTS when the page was reached over https (directly or through a proxy that says so).
func writePage(w http.ResponseWriter, r *http.Request, status int, page []byte) {
	writePageWithPolicy(w, r, status, page, pagePolicy)
}

// pagePolicy is the content security policy of the pages: no script, no framing, forms and
// styles of this site only. connect-src lets crawlers' in-page checks (e.g. of robots.txt) reach
// this site; without script nothing else can use it.
const pagePolicy = "default-src 'none'; style-src 'unsafe-inline'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// writePageWithPolicy is writePage with a content security policy that allows more than pagePolicy.
func writePageWithPolicy(w http.ResponseWriter, r *http.Request, status int, page []byte, policy string) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Add("Vary", "Accept-Encoding")
	if len(page) > minCompressed && acceptsGzip(r) {
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

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			return strings.ReplaceAll(params, " ", "") != "q=0"
		}
	}
	return false
}

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

// message renders a short page with the request id, for failures: the log has the cause.
func message(w http.ResponseWriter, r *http.Request, status int, title, msg string, again bool) {
	// the public pages' messages are in Japanese, the login pages' in English; the title says which
	english := strings.IndexFunc(title, func(r rune) bool { return r > unicode.MaxASCII }) < 0
	render(w, r, status, "message", messagePage{pageBase: pageBase{Title: title, English: english}, Message: msg,
		RequestID: reqinfo.ID(r.Context()), Again: again && english})
}

// retryAfter sets Retry-After in whole seconds, at least one.
func retryAfter(w http.ResponseWriter, d time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int((d+time.Second-1)/time.Second))))
}
