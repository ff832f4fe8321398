package devidp

import (
	"bytes"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
)

// loginForm is the provider's only page: a banner that says what it is, and an address to log in
// as. Server-rendered, no script.
var loginForm = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Development login — not a real identity provider</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1d2433}
.dev{background:#fff3cd;border:2px solid #8a6d00;padding:.6rem 1rem;border-radius:4px}
label{display:block;margin:1rem 0 .3rem;font-weight:600}input[type=email]{box-sizing:border-box;width:100%;padding:.5rem;font:inherit;border:1px solid #4a5366;border-radius:4px}
button{font:inherit;padding:.45rem 1rem;border-radius:4px;border:1px solid #1f4fa3;background:#1f4fa3;color:#fff;cursor:pointer;margin:1rem .5rem 0 0}
button.quiet{background:#fff;color:#1f4fa3}.error{color:#9a3a00}</style></head>
<body><main>
<p id="dev-banner" class="dev" role="note"><strong>Development only — not a real identity provider.</strong>
This provider is built into the server for local development: it logs you in as any address you type, with no
password and no check that the address is yours.</p>
<h1>Log in to {{.Client}}</h1>
<form method="post" action="/authorize">
{{range .Params}}<input type="hidden" name="{{.Name}}" value="{{.Value}}">
{{end}}<label for="email">E-mail address</label>
<input id="email" type="email" name="email" value="{{.Email}}" required autocomplete="email"{{if .Error}} aria-describedby="email-error" aria-invalid="true"{{end}}>
{{if .Error}}<p id="email-error" class="error">{{.Error}}</p>{{end}}
<button id="approve" type="submit">Log in</button><button id="cancel" class="quiet" type="submit" name="cancel" value="1" formnovalidate>Cancel</button>
</form>
</main></body></html>`))

type formParam struct{ Name, Value string }

// showForm renders the login form for an authorization request (already checked), carrying its
// parameters to the POST.
func (p *Provider) showForm(w http.ResponseWriter, q url.Values, email, problem string, status int) {
	data := struct {
		Client, Email, Error string
		Params               []formParam
	}{Client: p.cfg.ClientID, Email: email, Error: problem}
	for _, name := range authParams {
		data.Params = append(data.Params, formParam{name, q.Get(name)})
	}
	var buf bytes.Buffer
	if err := loginForm.Execute(&buf, data); err != nil {
		http.Error(w, "render the login form: "+err.Error(), http.StatusInternalServerError)
		return
	}
	// the form may send the browser on to the client's redirect URI, which form-action must allow
	// (browsers apply it to the redirect after the POST)
	target, _ := url.Parse(q.Get("redirect_uri"))
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' "+
		target.Scheme+"://"+target.Host+"; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}
