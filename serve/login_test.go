package serve

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/realdata"
	"github.com/hensachi/hensachi/internal/testrig/testidp"
	"github.com/hensachi/hensachi/internal/testrig/testsmtp"
	"github.com/hensachi/hensachi/mail"
	"github.com/hensachi/hensachi/sqlite"
	"github.com/hensachi/hensachi/web/account"
)

// loginEnv is a server with login configured against a test identity provider, mailing keys
// through a test SMTP server (STARTTLS and AUTH, as a real submission server), on the real dataset.
type loginEnv struct {
	*Server
	URL   string
	store *sqlite.Store
	idp   *testidp.IDP
	smtp  *testsmtp.Server
}

const termsVersion = "2026-11"

func newLoginEnv(t testing.TB, mods ...func(*wiring)) *loginEnv {
	t.Helper()
	dir := t.TempDir()
	dataset := realdata.Write(t, dir)
	store, err := sqlite.Open(context.Background(), filepath.Join(dir, "hensachi.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	ln, publicURL := listenLoopback(t)
	env := &loginEnv{URL: publicURL, store: store}
	env.idp = testidp.New(t, "hensachi-test", "test-secret")
	env.idp.AllowRedirect(env.URL + "/auth/callback")
	env.smtp = testsmtp.Start(t, testsmtp.Options{Mode: testsmtp.StartTLS, Username: "mailer", Password: "mail-secret"})
	sender, err := mail.NewSMTP(mail.SMTPConfig{Addr: env.smtp.Addr(), Username: "mailer", Password: "mail-secret",
		From: "hensachi <noreply@hensachi.example>", TLS: mail.StartTLS, TLSConfig: &tls.Config{RootCAs: env.smtp.Roots}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := wiring{Config: Config{PublicURL: env.URL, Store: store, WatchInterval: time.Hour}, DatasetPath: dataset,
		// a long key cache: rotation from the account page must not depend on it expiring
		KeyCacheTTL: time.Hour,
		Login: account.Config{Issuer: env.idp.URL, ClientID: "hensachi-test", ClientSecret: "test-secret",
			SessionSecret: []byte("0123456789abcdef0123456789abcdef"), TermsVersion: termsVersion, Mailer: sender,
			LoginRate: rate.Inf}}
	for _, m := range mods {
		m(&cfg)
	}
	env.Server = serveOn(t, ln, cfg)
	return env
}

// listenLoopback listens on a free loopback port. The public URL is the listener's, so the
// redirect URI is known before the server exists.
func listenLoopback(t testing.TB) (net.Listener, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln, "http://" + ln.Addr().String()
}

// serveOn runs a server wired from cfg on ln, with its background work, until the test ends.
func serveOn(t testing.TB, ln net.Listener, cfg wiring) *Server {
	t.Helper()
	s, err := newWired(cfg)
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: s.Handler()}}
	srv.Start()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	t.Cleanup(func() { srv.Close(); cancel(); <-done; s.Close() })
	return s.Server
}

// browser is a cookie-keeping HTTP client that does not follow redirects by itself, so each step
// of a login can be looked at or tampered with.
type browser struct {
	t      testing.TB
	client *http.Client
}

func newBrowser(t testing.TB) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, client: &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

type page struct {
	status int
	url    string
	header http.Header
	body   string
}

func (b *browser) do(req *http.Request) page {
	b.t.Helper()
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return page{status: resp.StatusCode, url: req.URL.String(), header: resp.Header, body: string(body)}
}

func (b *browser) get(u string) page {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	return b.do(req)
}

func (b *browser) post(u string, form url.Values, header ...string) page {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return b.do(req)
}

// follow gets u and follows redirects, as a browser does, until a page that is not one.
func (b *browser) follow(u string) page {
	b.t.Helper()
	for range 10 {
		p := b.get(u)
		if p.status < 300 || p.status > 399 {
			return p
		}
		next, err := url.Parse(p.header.Get("Location"))
		if err != nil {
			b.t.Fatal(err)
		}
		base, _ := url.Parse(u)
		u = base.ResolveReference(next).String()
	}
	b.t.Fatal("too many redirects")
	return page{}
}

// callbackURL runs a login up to the identity provider's redirect back, without visiting it.
func (b *browser) callbackURL(env *loginEnv) string {
	b.t.Helper()
	start := b.get(env.URL + "/login/start")
	if start.status != http.StatusSeeOther {
		b.t.Fatalf("/login/start: %d %s", start.status, start.body)
	}
	back := b.get(start.header.Get("Location"))
	if back.status != http.StatusFound {
		b.t.Fatalf("provider: %d %s", back.status, back.body)
	}
	return back.header.Get("Location")
}

var (
	keyOnPage = regexp.MustCompile(`<code id="api-key" class="key">(hsk_[0-9A-Za-z]{38})</code>`)
	anyKey    = regexp.MustCompile(`hsk_[0-9A-Za-z]{38}`)
	csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
)

func keyFrom(t testing.TB, p page) string {
	t.Helper()
	m := keyOnPage.FindStringSubmatch(p.body)
	if m == nil || !hensachi.CheckAPIKey(m[1]) {
		t.Fatalf("no key on the page (%d %s):\n%s", p.status, p.url, p.body)
	}
	return m[1]
}

func csrfFrom(t testing.TB, p page) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no CSRF token on the page (%d):\n%s", p.status, p.body)
	}
	return m[1]
}

// mailedKey waits for the next mail and returns the key in it.
func (env *loginEnv) mailedKey(t testing.TB, to string) (string, testsmtp.Message) {
	t.Helper()
	m := env.smtp.Next(t, 10*time.Second)
	if len(m.To) != 1 || m.To[0] != to || !m.TLS || m.AuthUser != "mailer" {
		t.Errorf("mail to %v, TLS %v, login %q", m.To, m.TLS, m.AuthUser)
	}
	body, err := m.Text()
	if err != nil {
		t.Fatal(err)
	}
	key := anyKey.FindString(body)
	if key == "" {
		t.Fatalf("no key in the mail:\n%s", body)
	}
	return key, m
}

// call makes an API call with a key and returns the status and the problem code, if any.
func (env *loginEnv) call(t testing.TB, key string) (int, envelope, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, env.URL+"/town/v1/meta", nil)
	req.Header.Set("X-API-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, envelope{}, decode[problem](t, body).Code
	}
	return resp.StatusCode, decode[envelope](t, body), ""
}

func login(t testing.TB, env *loginEnv) (*browser, string) {
	t.Helper()
	b := newBrowser(t)
	key := keyFrom(t, b.follow(b.callbackURL(env)))
	if mailed, _ := env.mailedKey(t, "newcomer@example.com"); mailed != key {
		t.Fatalf("mailed %s, shown %s", mailed, key)
	}
	return b, key
}

// TestLoginKeyOnAPI is the newcomer's path across the server: the key the first login shows works
// on the API, the account page counts the call, and rotating from the account page revokes the old
// key on the API at once, even with a long key cache. The pages' own behaviour (terms, mails,
// cookies, CSRF, refused callbacks) is tested beside them, in package web/account.
func TestLoginKeyOnAPI(t *testing.T) {
	env := newLoginEnv(t)
	b, oldKey := login(t, env)
	status, e, _ := env.call(t, oldKey)
	if status != http.StatusOK || e.Usage.UsedToday != 1 {
		t.Fatalf("the new key on /town/v1/meta: %d, %+v", status, e.Usage) // and now it is in the key cache
	}
	acct := b.get(env.URL + "/account")
	for _, want := range []string{`id="used-town">1<`, `id="limit-town">100<`, `id="used-face">0<`, `id="limit-face">20<`} {
		if !strings.Contains(acct.body, want) {
			t.Errorf("account page lacks %q:\n%s", want, acct.body)
		}
	}
	newKey := keyFrom(t, b.post(env.URL+"/account/rotate", url.Values{"csrf": {csrfFrom(t, acct)}}))
	if mailed, _ := env.mailedKey(t, "newcomer@example.com"); mailed != newKey {
		t.Errorf("mailed %s after rotation, shown %s", mailed, newKey)
	}
	if status, _, code := env.call(t, oldKey); status != http.StatusForbidden || code != hensachi.ERevokedAPIKey {
		t.Errorf("old key after rotation: %d %s, want 403 %s", status, code, hensachi.ERevokedAPIKey)
	}
	if status, _, _ := env.call(t, newKey); status != http.StatusOK {
		t.Errorf("new key: %d", status)
	}
}

// TestAPIWithoutLogin: without a client id the API works with the operator's keys (the login
// pages saying so is tested in package web/account).
func TestAPIWithoutLogin(t *testing.T) {
	ts := newTestServer(t)
	if r := ts.do(t, http.MethodGet, "/login"); r.status != http.StatusServiceUnavailable {
		t.Errorf("GET /login: %d", r.status)
	}
	if r := ts.get(t, "/town/v1/meta"); r.status != http.StatusOK {
		t.Errorf("API without login: %d", r.status)
	}
}
