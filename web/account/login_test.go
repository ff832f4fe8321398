package account

import (
	"context"
	"crypto/rand"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/julienschmidt/httprouter"
	"golang.org/x/time/rate"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/reqinfo"
	"github.com/hensachi/hensachi/internal/testrig/storetest"
	"github.com/hensachi/hensachi/internal/testrig/testidp"
	"github.com/hensachi/hensachi/internal/testrig/testsmtp"
	"github.com/hensachi/hensachi/internal/testrig/webclient"
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
	t.Cleanup(func() { ln.Close() }) // when the providers fail to start (the server closes it otherwise)
	providers := webclient.NewProviders(t, env.URL)
	env.idp, env.smtp = providers.IDP, providers.SMTP
	cfg := Config{Issuer: env.idp.URL, ClientID: webclient.ClientID, ClientSecret: webclient.ClientSecret,
		SessionSecret: []byte("0123456789abcdef0123456789abcdef"), TermsVersion: termsVersion, Mailer: providers.Mailer,
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
		Limits: hensachi.DefaultLimits(), ForgetKeys: env.revoked.add, Now: time.Now}
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

// TestLogin is the newcomer's path: the first login creates the account with the terms accepted
// and shows the key once, the mail brings the same key, the key works, and a later login (another
// browser) shows the account page with the usage.
func TestLogin(t *testing.T) {
	env := newLoginEnv(t)
	b := webclient.New(t)
	lp := b.Get(env.URL + "/login")
	if lp.Status != http.StatusOK || !strings.Contains(lp.Body, "バージョン "+termsVersion) || !strings.Contains(lp.Body, `href="/login/start"`) {
		t.Fatalf("login page: %d\n%s", lp.Status, lp.Body)
	}
	before := time.Now()
	cb := b.CallbackURL(env.URL)
	first := b.Follow(cb)
	key := webclient.KeyFrom(t, first)
	for h, want := range map[string]string{"Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"} {
		if got := first.Header.Get(h); got != want {
			t.Errorf("key page %s: %q, want %q", h, got, want)
		}
	}
	if !strings.Contains(first.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Errorf("key page CSP %q", first.Header.Get("Content-Security-Policy"))
	}

	a, err := env.store.AccountByEmail(context.Background(), "newcomer@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if a.Plan != hensachi.PlanFree || a.TermsVersion != termsVersion || a.TermsAcceptedAt.Before(before.Add(-time.Second)) || a.TermsAcceptedAt.After(time.Now()) {
		t.Errorf("account %+v: want free, terms %s accepted just now", a, termsVersion)
	}
	mailed, m := webclient.MailedKey(t, env.smtp, "newcomer@example.com")
	if mailed != key || m.Header("Subject") != "Your hensachi API key" {
		t.Errorf("mailed key %s (subject %q), shown %s", mailed, m.Header("Subject"), key)
	}

	// the key is shown at a stable address, which a reload (or the history) leads to the account
	// page, not to the spent login nor to the key again
	if first.URL != env.URL+"/account/key" {
		t.Errorf("the first login shows its key at %s, want /account/key", first.URL)
	}
	if reload := b.Get(env.URL + "/account/key"); reload.Status != http.StatusSeeOther || reload.Header.Get("Location") != "/account" ||
		webclient.AnyKey.MatchString(reload.Body) {
		t.Errorf("key page reloaded: %d to %q\n%s", reload.Status, reload.Header.Get("Location"), reload.Body)
	}
	// the callback cannot be replayed to show the key again
	if again := b.Get(cb); again.Status != http.StatusBadRequest || webclient.AnyKey.MatchString(again.Body) {
		t.Errorf("callback replayed: %d\n%s", again.Status, again.Body)
	}

	if active, owner := env.keyState(t, key); !active || owner.ID != a.ID {
		t.Fatalf("the new key: active %v, account %d, want %d", active, owner.ID, a.ID)
	}
	env.usage.set(a.ID, hensachi.ServiceTown, 1) // one call with it, still in the quota's memory

	// an account whose accepted terms are older accepts the current ones at its next login
	if err := env.store.AcceptTerms(context.Background(), a.ID, "2025-01", time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	other := webclient.New(t)
	acct := other.Follow(other.CallbackURL(env.URL))
	if acct.Status != http.StatusOK || !strings.HasSuffix(acct.URL, "/account") {
		t.Fatalf("second login ended at %s with %d", acct.URL, acct.Status)
	}
	for _, want := range []string{`id="email">newcomer@example.com<`, `id="plan">無料プラン<`, `hsk_…` + key[len(key)-4:],
		`id="used-town">1<`, `id="limit-town">100<`, `id="used-face">0<`, `id="limit-face">20<`, "バージョン " + termsVersion} {
		if !strings.Contains(acct.Body, want) {
			t.Errorf("account page lacks %q:\n%s", want, acct.Body)
		}
	}
	if webclient.AnyKey.MatchString(acct.Body) {
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
	if p := other.Get(env.URL + "/login"); p.Status != http.StatusSeeOther || p.Header.Get("Location") != "/account" {
		t.Errorf("login page while logged in: %d %s", p.Status, p.Header.Get("Location"))
	}
}

// TestOperatorAccountLogin: an account the operator made accepts the terms at its first login and
// keeps its key; nothing new is issued.
func TestOperatorAccountLogin(t *testing.T) {
	env := newLoginEnv(t)
	key, a := storetest.CreateAccount(t, env.store, "newcomer@example.com", hensachi.PlanPro)
	b := webclient.New(t)
	p := b.Follow(b.CallbackURL(env.URL))
	if !strings.HasSuffix(p.URL, "/account") || !strings.Contains(p.Body, `id="plan">プロプラン<`) || !strings.Contains(p.Body, "hsk_…"+key[len(key)-4:]) {
		t.Fatalf("operator account's login: %s %d\n%s", p.URL, p.Status, p.Body)
	}
	got, _ := env.store.Account(context.Background(), a.ID)
	if got.TermsVersion != termsVersion || got.TermsAcceptedAt.IsZero() {
		t.Errorf("terms after login: %+v", got)
	}
	env.smtp.None(t, 100*time.Millisecond)
}

// login logs a new browser in as newcomer@example.com and returns it with the key shown, which
// the mail brings too.
func login(t testing.TB, env *loginEnv) (*webclient.Browser, string) {
	t.Helper()
	return webclient.Login(t, env.URL, env.smtp, "newcomer@example.com")
}

// TestRotate: the account page's rotation revokes the old key at once, even with a long key
// cache, and shows and mails the new one.
func TestRotate(t *testing.T) {
	env := newLoginEnv(t)
	b, oldKey := login(t, env)
	if active, _ := env.keyState(t, oldKey); !active {
		t.Fatal("old key inactive before rotation")
	}
	acct := b.Get(env.URL + "/account")
	rotated := b.Post(env.URL+"/account/rotate", url.Values{"csrf": {webclient.CSRFFrom(t, acct)}})
	if rotated.Status != http.StatusSeeOther || rotated.Header.Get("Location") != "/account/key" {
		t.Fatalf("rotation answered %d to %q, want 303 to the key page", rotated.Status, rotated.Header.Get("Location"))
	}
	newKey := webclient.KeyFrom(t, b.Follow(env.URL+"/account/key"))
	if newKey == oldKey {
		t.Fatal("rotation showed the old key")
	}
	mailed, m := webclient.MailedKey(t, env.smtp, "newcomer@example.com")
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
	if p := b.Get(env.URL + "/account"); !strings.Contains(p.Body, "hsk_…"+newKey[len(newKey)-4:]+" <") {
		t.Errorf("account page after rotation:\n%s", p.Body)
	}
}

// TestLogout: logging out clears the session; the account page then asks to log in.
func TestLogout(t *testing.T) {
	env := newLoginEnv(t)
	b, _ := login(t, env)
	acct := b.Get(env.URL + "/account")
	if acct.Status != http.StatusOK {
		t.Fatalf("account page: %d", acct.Status)
	}
	out := b.Post(env.URL+"/logout", url.Values{"csrf": {webclient.CSRFFrom(t, acct)}})
	if out.Status != http.StatusSeeOther || out.Header.Get("Location") != "/login" {
		t.Fatalf("logout: %d %s", out.Status, out.Header.Get("Location"))
	}
	if p := b.Get(env.URL + "/account"); p.Status != http.StatusSeeOther || p.Header.Get("Location") != "/login" {
		t.Errorf("account page after logout: %d %s", p.Status, p.Header.Get("Location"))
	}
}

// TestCSRF: a state-changing form without this session's token, or sent cross-site, changes
// nothing.
func TestCSRF(t *testing.T) {
	env := newLoginEnv(t)
	b, key := login(t, env)
	token := webclient.CSRFFrom(t, b.Get(env.URL+"/account"))
	other := webclient.New(t) // another session of the same account
	otherToken := webclient.CSRFFrom(t, other.Follow(other.CallbackURL(env.URL)))
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
			p := b.Post(env.URL+path, c.form, c.header...)
			if p.Status != http.StatusForbidden || webclient.AnyKey.MatchString(p.Body) {
				t.Errorf("%s to %s: %d", c.name, path, p.Status)
			}
		}
	}
	if active, _ := env.keyState(t, key); !active || len(env.revoked.keys) != 0 {
		t.Errorf("the key after refused rotations: active %v, %d revoked", active, len(env.revoked.keys))
	}
	if p := b.Get(env.URL + "/account"); p.Status != http.StatusOK {
		t.Errorf("session after refused logouts: %d", p.Status)
	}
	env.smtp.None(t, 100*time.Millisecond)
}

// TestCallbackRefused: callbacks that do not belong to the browser's login are refused before
// the code is used, and one whose code was issued for another login fails at the provider,
// which checks the PKCE verifier.
func TestCallbackRefused(t *testing.T) {
	env := newLoginEnv(t)
	t.Run("state of an earlier login", func(t *testing.T) {
		b := webclient.New(t)
		first := b.CallbackURL(env.URL)
		b.CallbackURL(env.URL) // a second login replaces the login cookie
		if p := b.Get(first); p.Status != http.StatusBadRequest {
			t.Errorf("callback with the first login's state: %d", p.Status)
		}
	})
	t.Run("another browser", func(t *testing.T) {
		cb := webclient.New(t).CallbackURL(env.URL)
		if p := webclient.New(t).Get(cb); p.Status != http.StatusBadRequest {
			t.Errorf("callback in a browser that did not start the login: %d", p.Status)
		}
	})
	t.Run("forged login cookie", func(t *testing.T) {
		b := webclient.New(t)
		cb := b.CallbackURL(env.URL)
		u, _ := url.Parse(env.URL)
		for _, c := range b.Client.Jar.Cookies(u) {
			if c.Name == "hensachi_login" {
				c.Value = strings.Replace(c.Value, ".", "x.", 1)
				b.Client.Jar.SetCookies(u, []*http.Cookie{c})
			}
		}
		if p := b.Get(cb); p.Status != http.StatusBadRequest {
			t.Errorf("callback with a tampered login cookie: %d", p.Status)
		}
	})
	t.Run("stolen code", func(t *testing.T) {
		victim := webclient.New(t).CallbackURL(env.URL)
		code := mustQuery(t, victim).Get("code")
		attacker := webclient.New(t)
		own := mustQuery(t, attacker.CallbackURL(env.URL))
		p := attacker.Get(env.URL + "/auth/callback?" + url.Values{"state": {own.Get("state")}, "code": {code}}.Encode())
		if p.Status != http.StatusBadGateway {
			t.Errorf("callback with a code issued to another login: %d", p.Status)
		}
		if _, last := env.idp.TokenCalls(); last != "invalid_grant" {
			t.Errorf("the provider answered %q, want invalid_grant (PKCE)", last)
		}
	})
	t.Run("cancelled at the provider", func(t *testing.T) {
		env.idp.SetDeny(true)
		defer env.idp.SetDeny(false)
		b := webclient.New(t)
		if p := b.Follow(b.CallbackURL(env.URL)); p.Status != http.StatusForbidden || !strings.Contains(p.Body, "取り消されました") {
			t.Errorf("denied login: %d\n%s", p.Status, p.Body)
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

// shownRequestID is the request id as an error page shows it.
var shownRequestID = regexp.MustCompile(`リクエスト ID <code>[^<]*</code>`)

// TestBadTokensRefused: each kind of bad ID token ends the login with no session, no account and
// no mail, and the page says nothing of why (the log does).
func TestBadTokensRefused(t *testing.T) {
	env := newLoginEnv(t)
	for _, f := range testidp.Faults {
		t.Run(f.String(), func(t *testing.T) {
			env.idp.SetFault(f)
			defer env.idp.SetFault(testidp.NoFault)
			b := webclient.New(t)
			p := b.Follow(b.CallbackURL(env.URL))
			if p.Status != http.StatusForbidden || webclient.AnyKey.MatchString(p.Body) {
				t.Fatalf("login with a token with %s: %d\n%s", f, p.Status, p.Body)
			}
			// the request id is 26 random letters and digits, which may spell one of the words
			page := strings.ToLower(shownRequestID.ReplaceAllString(p.Body, ""))
			for _, leak := range []string{"oidc", "jwt", "token", "signature", "nonce", "audience"} {
				if strings.Contains(page, leak) {
					t.Errorf("the page mentions %q:\n%s", leak, p.Body)
				}
			}
			if !strings.Contains(p.Body, "リクエスト ID <code>") {
				t.Errorf("no request id on the page:\n%s", p.Body)
			}
			if a := b.Get(env.URL + "/account"); a.Status != http.StatusSeeOther {
				t.Errorf("account page after the refused login: %d", a.Status)
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
	b := webclient.New(t)
	if p := b.Follow(b.CallbackURL(env.URL)); !strings.HasSuffix(p.URL, "/account") || p.Status != http.StatusOK {
		t.Fatalf("login after the provider rotated its key: %s %d\n%s", p.URL, p.Status, p.Body)
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
	b := webclient.New(t)
	from := func(path, addr string) webclient.Page {
		req, _ := http.NewRequest(http.MethodGet, env.URL+path, nil)
		req.Header.Set("X-Forwarded-For", "203.0.113.9, "+addr) // the proxy appended the last one
		return b.Do(req)
	}
	for i, path := range []string{"/login", "/login/start", "/auth/callback"} {
		if p := from(path, "198.51.100.1"); p.Status == http.StatusTooManyRequests {
			t.Fatalf("request %d (%s) limited", i+1, path)
		}
	}
	p := from("/login", "198.51.100.1")
	if p.Status != http.StatusTooManyRequests || p.Header.Get("Retry-After") == "" {
		t.Errorf("fourth request: %d, Retry-After %q", p.Status, p.Header.Get("Retry-After"))
	}
	if p := from("/login", "198.51.100.2"); p.Status != http.StatusOK {
		t.Errorf("another address: %d", p.Status)
	}
	// the account page is not a login endpoint
	if p := from("/account", "198.51.100.1"); p.Status == http.StatusTooManyRequests {
		t.Error("account page rate limited")
	}
}

// TestOrigins: the account page sets the account's origin allow-list, tells the server to forget
// the account's keys so the list applies at once, keeps a refused list in the form with the
// reason, and clears the list when it is emptied.
func TestOrigins(t *testing.T) {
	env := newLoginEnv(t)
	b, key := login(t, env)
	acct := b.Get(env.URL + "/account")
	if !strings.Contains(acct.Body, "メールでも送ります") || !strings.Contains(acct.Body, `id="origin-list">制限なし`) {
		t.Fatalf("account page with SMTP:\n%s", acct.Body)
	}
	csrf := webclient.CSRFFrom(t, acct)
	a, _ := env.store.AccountByEmail(context.Background(), "newcomer@example.com")
	for _, c := range []struct {
		name, text string
		status     int
		want       []string // the stored list after the post
		page       []string // on the page the post leads to
	}{
		{"set", "https://App.example.com\nhttp://localhost:5173", http.StatusOK, []string{"https://app.example.com", "http://localhost:5173"},
			[]string{"<code>https://app.example.com</code>、<code>http://localhost:5173</code>"}},
		{"refused", "https://ok.example\napp.example.com/path", http.StatusBadRequest, []string{"https://app.example.com", "http://localhost:5173"},
			[]string{`id="origins-error"`, "app.example.com/path", "not a web origin"}},
		{"cleared", " ", http.StatusOK, nil, []string{`id="origin-list">制限なし`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			env.revoked.mu.Lock()
			env.revoked.keys = nil
			env.revoked.mu.Unlock()
			p := b.Post(env.URL+"/account/origins", url.Values{"csrf": {csrf}, "origins": {c.text}})
			if c.status == http.StatusOK {
				if p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Header.Get("Location"), "/account") {
					t.Fatalf("saving answered %d to %q", p.Status, p.Header.Get("Location"))
				}
				p = b.Follow(env.URL + "/account")
			}
			if p.Status != c.status {
				t.Errorf("status %d, want %d", p.Status, c.status)
			}
			for _, want := range c.page {
				if !strings.Contains(p.Body, want) {
					t.Errorf("the page lacks %q:\n%s", want, p.Body)
				}
			}
			got, _ := env.store.Account(context.Background(), a.ID)
			if !slices.Equal(got.Origins, c.want) {
				t.Errorf("stored origins %q, want %q", got.Origins, c.want)
			}
			if told := env.revoked.told(key); told != (c.status == http.StatusOK) {
				t.Errorf("server told to forget the key: %v", told)
			}
		})
	}
	if p := b.Post(env.URL+"/account/origins", url.Values{"origins": {"https://evil.example"}}); p.Status != http.StatusForbidden {
		t.Errorf("a post without the CSRF token: %d", p.Status)
	}
}
