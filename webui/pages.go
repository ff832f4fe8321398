package webui

import (
	"bytes"
	"compress/gzip"
	"html/template"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hensachi/hensachi/internal/reqinfo"
)

// The login and account pages: server-rendered, no script, one inline style sheet. Every page
// is marked not to be cached, framed or to leak its address in a Referer (the callback's address
// carries the authorization code, and two pages show a key).
var webTemplates = template.Must(template.New("").Parse(`
{{define "head"}}<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>{{.Title}} — hensachi</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;line-height:1.5}
code.key{display:block;font-size:1.1rem;padding:.6rem;background:#f3f3f3;border:1px solid #ccc;word-break:break-all;user-select:all}
table{border-collapse:collapse}td,th{padding:.25rem .8rem;text-align:left;border-bottom:1px solid #ddd}td.n{text-align:right}
.button,button{display:inline-block;padding:.45rem 1rem;border:1px solid #335;border-radius:4px;background:#335;color:#fff;text-decoration:none;font:inherit;cursor:pointer}
button.quiet{background:#fff;color:#335}form{display:inline}.note{color:#555}.warn{color:#a40}</style></head>
<body><main>
<h1>{{.Title}}</h1>{{end}}

{{define "foot"}}</main></body></html>{{end}}

{{define "login"}}{{template "head" .}}
<p>Get an API key for the municipality statistics and face analysis APIs by logging in with your
{{.Provider}} account. There is no password here: the key is shown once and sent to your
verified e-mail address.</p>
<p class="note">Logging in means you accept the
{{if .TermsURL}}<a href="{{.TermsURL}}">terms of use</a>{{else}}terms of use{{end}} (version {{.TermsVersion}}).</p>
<p><a id="login" class="button" href="/login/start">Log in with {{.Provider}}</a></p>
{{template "foot" .}}{{end}}

{{define "key"}}{{template "head" .}}
<p>{{if .First}}Your account {{.Email}} is ready.{{else}}The previous key of {{.Email}} is revoked.{{end}}
This is its API key, <strong>shown this once</strong>:</p>
<code id="api-key" class="key">{{.Key}}</code>
{{if .Mailed}}<p id="mail-status">It has also been sent to {{.Email}}.</p>
{{else if .MailOff}}<p id="mail-status" class="warn">This server sends no mail: copy the key now.</p>
{{else}}<p id="mail-status" class="warn">The mail with the key could not be sent: copy the key now.</p>{{end}}
<p>Send it in the <code>X-API-Key</code> header (or <code>Authorization: Bearer</code>), never in a URL:</p>
<pre>curl -H "X-API-Key: $KEY" {{.PublicURL}}/town/v1/meta</pre>
<p><a id="to-account" class="button" href="/account">Your account</a></p>
{{template "foot" .}}{{end}}

{{define "account"}}{{template "head" .}}
<table>
<tr><th>E-mail</th><td id="email">{{.Email}}</td></tr>
<tr><th>Plan</th><td id="plan">{{.Plan}}</td></tr>
<tr><th>API key</th><td id="key-hint">{{range .Hints}}hsk_…{{.}} {{else}}none active{{end}}</td></tr>
<tr><th>Terms accepted</th><td>{{if .TermsVersion}}version {{.TermsVersion}}, {{.TermsAccepted}}{{else}}—{{end}}</td></tr>
</table>
<h2>Today's calls</h2>
<p class="note">{{.Day}} (the count restarts at 00:00 Asia/Tokyo)</p>
<table><tr><th>API</th><th>Used</th><th>Daily limit</th></tr>
{{range .Usage}}<tr><th>{{.Label}}</th><td class="n" id="used-{{.Service}}">{{.Used}}</td><td class="n" id="limit-{{.Service}}">{{.Limit}}</td></tr>
{{end}}</table>
<h2>Key</h2>
<p>A new key revokes the current one at once; it is shown once and mailed to you.</p>
<form method="post" action="/account/rotate"><input type="hidden" name="csrf" value="{{.CSRF}}">
<button id="rotate" type="submit">{{if .Hints}}Rotate key{{else}}Issue a key{{end}}</button></form>
<form method="post" action="/logout"><input type="hidden" name="csrf" value="{{.CSRF}}">
<button id="logout" class="quiet" type="submit">Log out</button></form>
{{template "foot" .}}{{end}}

{{define "message"}}{{template "head" .}}
<p id="message">{{.Message}}</p>
{{if .RequestID}}<p class="note">Request id <code>{{.RequestID}}</code>; quote it when reporting a problem.</p>{{end}}
{{if .Again}}<p><a class="button" href="/login">Log in</a></p>{{end}}
{{template "foot" .}}{{end}}
`))

type pageBase struct{ Title string }

type loginPage struct {
	pageBase
	Provider, TermsVersion, TermsURL string
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
	render(w, r, status, "message", messagePage{pageBase: pageBase{Title: title}, Message: msg, RequestID: reqinfo.ID(r.Context()), Again: again})
}

// retryAfter sets Retry-After in whole seconds, at least one.
func retryAfter(w http.ResponseWriter, d time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int((d+time.Second-1)/time.Second))))
}
