package account

import (
	"context"
	"crypto/rand"
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
	"sync"
	"testing"
	"time"

	"github.com/julienschmidt/httprouter"
	"golang.org/x/time/rate"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/reqinfo"
	"github.com/hensachi/hensachi/internal/testrig/testidp"
	"github.com/hensachi/hensachi/internal/testrig/testsmtp"
	"github.com/hensachi/hensachi/mail"
	"github.com/hensachi/hensachi/quota"
	"github.com/hensachi/hensachi/sqlite"
)

// loginEnv is the account pages with login configured against a test identity provider, mailing
// keys through a test SMTP server (STARTTLS and AUTH, as a real submission server), over a real
// SQLite store; the server's quota and key cache are fakes that record what the pages tell them.
// newDevLoginEnv configures it with the development provider instead, and withFaces gives it the
// face demo over a real quota.
type loginEnv struct {
	URL     string
	store   *sqlite.Store
	idp     *testidp.IDP
	smtp    *testsmtp.Server
	usage   *usageCounts
	revoked *revocations
	quota   quota.Enforcer // withFaces: the quota the demo's calls count on
}

const termsVersion = "2026-11"

func newLoginEnv(t testing.TB, mods ...func(*Config)) *loginEnv {
	t.Helper()
	return newLoginEnvWith(t, nil, mods...)
}

// newLoginEnvWith is newLoginEnv with the pages' dependencies changed by deps (withFaces) before
// the pages are built.
func newLoginEnvWith(t testing.TB, deps func(*loginEnv, *Deps), mods ...func(*Config)) *loginEnv {
	t.Helper()
	env, ln := newEnv(t)
	env.idp = testidp.New(t, "hensachi-test", "test-secret")
	env.idp.AllowRedirect(env.URL + "/auth/callback")
	env.smtp = testsmtp.Start(t, testsmtp.Options{Mode: testsmtp.StartTLS, Username: "mailer", Password: "mail-secret"})
	sender, err := mail.NewSMTP(mail.SMTPConfig{Addr: env.smtp.Addr(), Username: "mailer", Password: "mail-secret",
		From: "hensachi <noreply@hensachi.example>", TLS: mail.StartTLS, TLSConfig: &tls.Config{RootCAs: env.smtp.Roots}})
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	cfg := Config{Issuer: env.idp.URL, ClientID: "hensachi-test", ClientSecret: "test-secret",
		SessionSecret: []byte("0123456789abcdef0123456789abcdef"), TermsVersion: termsVersion, Mailer: sender,
		LoginRate: rate.Inf}
	for _, m := range mods {
		m(&cfg)
	}
	env.serve(t, ln, cfg, deps)
	return env
}

// newEnv is an environment without pages yet: a store, the fakes, and a listener whose address is
// the public URL, so that the redirect URI is known before the pages exist.
func newEnv(t testing.TB) (*loginEnv, net.Listener) {
	t.Helper()
	store := newStore(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return &loginEnv{URL: "http://" + ln.Addr().String(), store: store, usage: &usageCounts{}, revoked: &revocations{}}, ln
}

// serve builds the pages from cfg over env's store and fakes, the dependencies changed by deps
// when it is not nil, and serves them on ln until the test ends.
func (env *loginEnv) serve(t testing.TB, ln net.Listener, cfg Config, deps func(*loginEnv, *Deps)) {
	t.Helper()
	d := Deps{PublicURL: env.URL, Accounts: hensachi.Accounts{Store: env.store, Now: time.Now}, Usage: env.usage,
		Limits: hensachi.DefaultLimits(), KeysRevoked: env.revoked.add, Now: time.Now}
	if deps != nil {
		deps(env, &d)
	}
	pages, err := New(cfg, d)
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	router := httprouter.New()
	pages.Routes(withRequestID(router))
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: router}}
	srv.Start()
	t.Cleanup(func() { srv.Close(); pages.Close() })
}

// withRequestID registers the pages as the server's instrumented handle does, for what they show:
// each request has an id, which failure pages quote.
func withRequestID(router *httprouter.Router) func(method, path string, h httprouter.Handle) {
	return func(method, path string, h httprouter.Handle) {
		router.Handle(method, path, func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
			h(w, r.WithContext(&reqinfo.Context{Context: r.Context(), Info: reqinfo.Info{ID: rand.Text()}}), ps)
		})
	}
}

func newStore(t testing.TB) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "hensachi.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// usageCounts is the server's quota as the pages see it: the day's calls not yet in the store.
type usageCounts struct {
	mu     sync.Mutex
	counts map[hensachi.UsageKey]int64
}

func (u *usageCounts) Used(accountID int64, service hensachi.Service) int64 {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.counts[hensachi.UsageKey{AccountID: accountID, Service: service}]
}

func (u *usageCounts) set(accountID int64, service hensachi.Service, n int64) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.counts == nil {
		u.counts = map[hensachi.UsageKey]int64{}
	}
	u.counts[hensachi.UsageKey{AccountID: accountID, Service: service}] = n
}

// revocations records the keys the pages tell the server to stop accepting.
type revocations struct {
	mu   sync.Mutex
	keys []hensachi.APIKey
}

func (r *revocations) add(keys []hensachi.APIKey) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keys = append(r.keys, keys...)
}

// told reports whether the server was told to stop accepting key.
func (r *revocations) told(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range r.keys {
		if k.Hash == hensachi.HashAPIKey(key) {
			return true
		}
	}
	return false
}

// keyState says whether the store holds key, and whether it is revoked.
func (env *loginEnv) keyState(t testing.TB, key string) (active bool, a hensachi.Account) {
	t.Helper()
	k, a, err := env.store.KeyByHash(context.Background(), hensachi.HashAPIKey(key))
	if err != nil {
		t.Fatalf("key hsk_…%s: %v", key[len(key)-4:], err)
	}
	return !k.Revoked(), a
}

func createAccount(t testing.TB, store hensachi.Store, email string, plan hensachi.Plan) (string, hensachi.Account) {
	t.Helper()
	key, stored := hensachi.NewAPIKey()
	a, _, err := store.CreateAccount(context.Background(), hensachi.Account{Email: email, Plan: plan}, stored)
	if err != nil {
		t.Fatal(err)
	}
	return key, a
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

type visit struct {
	status int
	url    string
	header http.Header
	body   string
}

func (b *browser) do(req *http.Request) visit {
	b.t.Helper()
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return visit{status: resp.StatusCode, url: req.URL.String(), header: resp.Header, body: string(body)}
}

func (b *browser) get(u string) visit {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	return b.do(req)
}

func (b *browser) post(u string, form url.Values, header ...string) visit {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return b.do(req)
}

// follow gets u and follows redirects, as a browser does, until a page that is not one.
func (b *browser) follow(u string) visit {
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
	return visit{}
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

func keyFrom(t testing.TB, p visit) string {
	t.Helper()
	m := keyOnPage.FindStringSubmatch(p.body)
	if m == nil || !hensachi.CheckAPIKey(m[1]) {
		t.Fatalf("no key on the page (%d %s):\n%s", p.status, p.url, p.body)
	}
	return m[1]
}

func csrfFrom(t testing.TB, p visit) string {
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

// TestLogin is the newcomer's path: the first login creates the account with the terms accepted
// and shows the key once, the mail brings the same key, the key works, and a later login (another
// browser) shows the account page with the usage.
func TestLogin(t *testing.T) {
	env := newLoginEnv(t)
	b := newBrowser(t)
	lp := b.get(env.URL + "/login")
	if lp.status != http.StatusOK || !strings.Contains(lp.body, "version "+termsVersion) || !strings.Contains(lp.body, `href="/login/start"`) {
		t.Fatalf("login page: %d\n%s", lp.status, lp.body)
	}
	before := time.Now()
	cb := b.callbackURL(env)
	first := b.follow(cb)
	key := keyFrom(t, first)
	for h, want := range map[string]string{"Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"} {
		if got := first.header.Get(h); got != want {
			t.Errorf("key page %s: %q, want %q", h, got, want)
		}
	}
	if !strings.Contains(first.header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Errorf("key page CSP %q", first.header.Get("Content-Security-Policy"))
	}

	a, err := env.store.AccountByEmail(context.Background(), "newcomer@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if a.Plan != hensachi.PlanFree || a.TermsVersion != termsVersion || a.TermsAcceptedAt.Before(before.Add(-time.Second)) || a.TermsAcceptedAt.After(time.Now()) {
		t.Errorf("account %+v: want free, terms %s accepted just now", a, termsVersion)
	}
	mailed, m := env.mailedKey(t, "newcomer@example.com")
	if mailed != key || m.Header("Subject") != "Your hensachi API key" {
		t.Errorf("mailed key %s (subject %q), shown %s", mailed, m.Header("Subject"), key)
	}

	// the callback cannot be replayed to show the key again
	if again := b.get(cb); again.status != http.StatusBadRequest || anyKey.MatchString(again.body) {
		t.Errorf("callback replayed: %d\n%s", again.status, again.body)
	}

	if active, owner := env.keyState(t, key); !active || owner.ID != a.ID {
		t.Fatalf("the new key: active %v, account %d, want %d", active, owner.ID, a.ID)
	}
	env.usage.set(a.ID, hensachi.ServiceTown, 1) // one call with it, still in the quota's memory

	// an account whose accepted terms are older accepts the current ones at its next login
	if err := env.store.AcceptTerms(context.Background(), a.ID, "2025-01", time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	other := newBrowser(t)
	acct := other.follow(other.callbackURL(env))
	if acct.status != http.StatusOK || !strings.HasSuffix(acct.url, "/account") {
		t.Fatalf("second login ended at %s with %d", acct.url, acct.status)
	}
	for _, want := range []string{`id="email">newcomer@example.com<`, `id="plan">free<`, `hsk_…` + key[len(key)-4:],
		`id="used-town">1<`, `id="limit-town">100<`, `id="used-face">0<`, `id="limit-face">20<`, "version " + termsVersion} {
		if !strings.Contains(acct.body, want) {
			t.Errorf("account page lacks %q:\n%s", want, acct.body)
		}
	}
	if anyKey.MatchString(acct.body) {
		t.Error("the account page shows a whole key")
	}
	if a, _ = env.store.Account(context.Background(), a.ID); a.TermsVersion != termsVersion || a.TermsAcceptedAt.Year() == 2025 {
		t.Errorf("after the second login: terms %s at %s", a.TermsVersion, a.TermsAcceptedAt)
	}
	env.smtp.None(t, 100*time.Millisecond) // a later login mails nothing
	if n, _ := env.store.Accounts(context.Background()); len(n) != 1 {
		t.Errorf("%d accounts after two logins", len(n))
	}
	// logged in, the login page goes to the account
	if p := other.get(env.URL + "/login"); p.status != http.StatusSeeOther || p.header.Get("Location") != "/account" {
		t.Errorf("login page while logged in: %d %s", p.status, p.header.Get("Location"))
	}
}

// TestOperatorAccountLogin: an account the operator made accepts the terms at its first login and
// keeps its key; nothing new is issued.
func TestOperatorAccountLogin(t *testing.T) {
	env := newLoginEnv(t)
	key, a := createAccount(t, env.store, "newcomer@example.com", hensachi.PlanPro)
	b := newBrowser(t)
	p := b.follow(b.callbackURL(env))
	if !strings.HasSuffix(p.url, "/account") || !strings.Contains(p.body, `id="plan">pro<`) || !strings.Contains(p.body, "hsk_…"+key[len(key)-4:]) {
		t.Fatalf("operator account's login: %s %d\n%s", p.url, p.status, p.body)
	}
	got, _ := env.store.Account(context.Background(), a.ID)
	if got.TermsVersion != termsVersion || got.TermsAcceptedAt.IsZero() {
		t.Errorf("terms after login: %+v", got)
	}
	env.smtp.None(t, 100*time.Millisecond)
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

// TestRotate: the account page's rotation revokes the old key at once, even with a long key
// cache, and shows and mails the new one.
func TestRotate(t *testing.T) {
	env := newLoginEnv(t)
	b, oldKey := login(t, env)
	if active, _ := env.keyState(t, oldKey); !active {
		t.Fatal("old key inactive before rotation")
	}
	acct := b.get(env.URL + "/account")
	rotated := b.post(env.URL+"/account/rotate", url.Values{"csrf": {csrfFrom(t, acct)}})
	newKey := keyFrom(t, rotated)
	if newKey == oldKey {
		t.Fatal("rotation showed the old key")
	}
	mailed, m := env.mailedKey(t, "newcomer@example.com")
	if mailed != newKey || m.Header("Subject") != "Your new hensachi API key" {
		t.Errorf("mail after rotation: key %s subject %q, want %s", mailed, m.Header("Subject"), newKey)
	}
	// the server forgets the old key at once, whatever its key cache holds (see serve's TestLoginKeyOnAPI)
	if active, _ := env.keyState(t, oldKey); active || !env.revoked.told(oldKey) {
		t.Errorf("old key after rotation: active %v, server told %v", active, env.revoked.told(oldKey))
	}
	if active, _ := env.keyState(t, newKey); !active {
		t.Error("new key inactive")
	}
	if p := b.get(env.URL + "/account"); !strings.Contains(p.body, "hsk_…"+newKey[len(newKey)-4:]+" <") {
		t.Errorf("account page after rotation:\n%s", p.body)
	}
}

// TestLogout: logging out clears the session; the account page then asks to log in.
func TestLogout(t *testing.T) {
	env := newLoginEnv(t)
	b, _ := login(t, env)
	acct := b.get(env.URL + "/account")
	if acct.status != http.StatusOK {
		t.Fatalf("account page: %d", acct.status)
	}
	out := b.post(env.URL+"/logout", url.Values{"csrf": {csrfFrom(t, acct)}})
	if out.status != http.StatusSeeOther || out.header.Get("Location") != "/login" {
		t.Fatalf("logout: %d %s", out.status, out.header.Get("Location"))
	}
	if p := b.get(env.URL + "/account"); p.status != http.StatusSeeOther || p.header.Get("Location") != "/login" {
		t.Errorf("account page after logout: %d %s", p.status, p.header.Get("Location"))
	}
}

// TestCSRF: a state-changing form without this session's token, or sent cross-site, changes
// nothing.
func TestCSRF(t *testing.T) {
	env := newLoginEnv(t)
	b, key := login(t, env)
	token := csrfFrom(t, b.get(env.URL+"/account"))
	other := newBrowser(t) // another session of the same account
	otherToken := csrfFrom(t, other.follow(other.callbackURL(env)))
	if otherToken == token {
		t.Fatal("two sessions share a CSRF token")
	}
	cases := []struct {
		name   string
		form   url.Values
		header []string
	}{
		{"no token", url.Values{}, nil},
		{"wrong token", url.Values{"csrf": {"x" + token[1:]}}, nil},
		{"another session's token", url.Values{"csrf": {otherToken}}, nil},
		{"cross-site", url.Values{"csrf": {token}}, []string{"Sec-Fetch-Site", "cross-site"}},
		{"foreign origin", url.Values{"csrf": {token}}, []string{"Origin", "https://evil.example"}},
	}
	for _, c := range cases {
		for _, path := range []string{"/account/rotate", "/logout"} {
			p := b.post(env.URL+path, c.form, c.header...)
			if p.status != http.StatusForbidden || anyKey.MatchString(p.body) {
				t.Errorf("%s to %s: %d", c.name, path, p.status)
			}
		}
	}
	if active, _ := env.keyState(t, key); !active || len(env.revoked.keys) != 0 {
		t.Errorf("the key after refused rotations: active %v, %d revoked", active, len(env.revoked.keys))
	}
	if p := b.get(env.URL + "/account"); p.status != http.StatusOK {
		t.Errorf("session after refused logouts: %d", p.status)
	}
	env.smtp.None(t, 100*time.Millisecond)
}

// TestCallbackRefused: callbacks that do not belong to the browser's login are refused before
// the code is used, and one whose code was issued for another login fails at the provider,
// which checks the PKCE verifier.
func TestCallbackRefused(t *testing.T) {
	env := newLoginEnv(t)
	t.Run("state of an earlier login", func(t *testing.T) {
		b := newBrowser(t)
		first := b.callbackURL(env)
		b.callbackURL(env) // a second login replaces the login cookie
		if p := b.get(first); p.status != http.StatusBadRequest {
			t.Errorf("callback with the first login's state: %d", p.status)
		}
	})
	t.Run("another browser", func(t *testing.T) {
		cb := newBrowser(t).callbackURL(env)
		if p := newBrowser(t).get(cb); p.status != http.StatusBadRequest {
			t.Errorf("callback in a browser that did not start the login: %d", p.status)
		}
	})
	t.Run("forged login cookie", func(t *testing.T) {
		b := newBrowser(t)
		cb := b.callbackURL(env)
		u, _ := url.Parse(env.URL)
		for _, c := range b.client.Jar.Cookies(u) {
			if c.Name == "hensachi_login" {
				c.Value = strings.Replace(c.Value, ".", "x.", 1)
				b.client.Jar.SetCookies(u, []*http.Cookie{c})
			}
		}
		if p := b.get(cb); p.status != http.StatusBadRequest {
			t.Errorf("callback with a tampered login cookie: %d", p.status)
		}
	})
	t.Run("stolen code", func(t *testing.T) {
		victim := newBrowser(t).callbackURL(env)
		code := mustQuery(t, victim).Get("code")
		attacker := newBrowser(t)
		own := mustQuery(t, attacker.callbackURL(env))
		p := attacker.get(env.URL + "/auth/callback?" + url.Values{"state": {own.Get("state")}, "code": {code}}.Encode())
		if p.status != http.StatusBadGateway {
			t.Errorf("callback with a code issued to another login: %d", p.status)
		}
		if _, last := env.idp.TokenCalls(); last != "invalid_grant" {
			t.Errorf("the provider answered %q, want invalid_grant (PKCE)", last)
		}
	})
	t.Run("cancelled at the provider", func(t *testing.T) {
		env.idp.SetDeny(true)
		defer env.idp.SetDeny(false)
		b := newBrowser(t)
		if p := b.follow(b.callbackURL(env)); p.status != http.StatusForbidden || !strings.Contains(p.body, "cancelled") {
			t.Errorf("denied login: %d\n%s", p.status, p.body)
		}
	})
	if a, _ := env.store.Accounts(context.Background()); len(a) != 0 {
		t.Errorf("refused callbacks created %d accounts", len(a))
	}
}

func mustQuery(t testing.TB, u string) url.Values {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return p.Query()
}

// TestBadTokensRefused: each kind of bad ID token ends the login with no session, no account and
// no mail, and the page says nothing of why (the log does).
func TestBadTokensRefused(t *testing.T) {
	env := newLoginEnv(t)
	for _, f := range testidp.Faults {
		t.Run(f.String(), func(t *testing.T) {
			env.idp.SetFault(f)
			defer env.idp.SetFault(testidp.NoFault)
			b := newBrowser(t)
			p := b.follow(b.callbackURL(env))
			if p.status != http.StatusForbidden || anyKey.MatchString(p.body) {
				t.Fatalf("login with a token with %s: %d\n%s", f, p.status, p.body)
			}
			for _, leak := range []string{"oidc", "jwt", "token", "signature", "nonce", "audience"} {
				if strings.Contains(strings.ToLower(p.body), leak) {
					t.Errorf("the page mentions %q:\n%s", leak, p.body)
				}
			}
			if !strings.Contains(p.body, "Request id <code>") {
				t.Errorf("no request id on the page:\n%s", p.body)
			}
			if a := b.get(env.URL + "/account"); a.status != http.StatusSeeOther {
				t.Errorf("account page after the refused login: %d", a.status)
			}
		})
	}
	if a, _ := env.store.Accounts(context.Background()); len(a) != 0 {
		t.Errorf("bad tokens created %d accounts", len(a))
	}
	env.smtp.None(t, 100*time.Millisecond)
	login(t, env) // and a good token still logs in
}

// TestProviderKeyRotation: the provider replaces its signing key; the next login still works
// because the key cache fetches the key set when a token names an unknown key.
func TestProviderKeyRotation(t *testing.T) {
	env := newLoginEnv(t)
	login(t, env)
	env.idp.Rotate(t, false)
	b := newBrowser(t)
	if p := b.follow(b.callbackURL(env)); !strings.HasSuffix(p.url, "/account") || p.status != http.StatusOK {
		t.Fatalf("login after the provider rotated its key: %s %d\n%s", p.url, p.status, p.body)
	}
	if n := env.idp.JWKSFetches(); n != 2 {
		t.Errorf("%d key set fetches, want 2", n)
	}
}

// TestLoginRateLimit: the login endpoints allow a burst per client address, then 429 with
// Retry-After; other addresses are not affected.
func TestLoginRateLimit(t *testing.T) {
	env := newLoginEnv(t, func(c *Config) {
		c.LoginRate, c.LoginBurst, c.ClientIPHeader = rate.Every(time.Minute), 3, "X-Forwarded-For"
	})
	b := newBrowser(t)
	from := func(path, addr string) visit {
		req, _ := http.NewRequest(http.MethodGet, env.URL+path, nil)
		req.Header.Set("X-Forwarded-For", "203.0.113.9, "+addr) // the proxy appended the last one
		return b.do(req)
	}
	for i, path := range []string{"/login", "/login/start", "/auth/callback"} {
		if p := from(path, "198.51.100.1"); p.status == http.StatusTooManyRequests {
			t.Fatalf("request %d (%s) limited", i+1, path)
		}
	}
	p := from("/login", "198.51.100.1")
	if p.status != http.StatusTooManyRequests || p.header.Get("Retry-After") == "" {
		t.Errorf("fourth request: %d, Retry-After %q", p.status, p.header.Get("Retry-After"))
	}
	if p := from("/login", "198.51.100.2"); p.status != http.StatusOK {
		t.Errorf("another address: %d", p.status)
	}
	// the account page is not a login endpoint
	if p := from("/account", "198.51.100.1"); p.status == http.StatusTooManyRequests {
		t.Error("account page rate limited")
	}
}
