package serve_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/app"
	"github.com/hensachi/hensachi/internal/testrig/realdata"
	"github.com/hensachi/hensachi/internal/testrig/testidp"
	"github.com/hensachi/hensachi/internal/testrig/testsmtp"
	"github.com/hensachi/hensachi/internal/testrig/webclient"
	"github.com/hensachi/hensachi/serve"
	"github.com/hensachi/hensachi/sqlite"
	"github.com/hensachi/hensachi/web/account"
)

// loginEnv is a server with login configured against a test identity provider, mailing keys
// through a test SMTP server (STARTTLS and AUTH, as a real submission server), on the real dataset.
type loginEnv struct {
	*app.App
	URL   string
	store *sqlite.Store
	idp   *testidp.IDP
	smtp  *testsmtp.Server
}

const termsVersion = "2026-11"

func newLoginEnv(t testing.TB, mods ...func(*app.Config)) *loginEnv {
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
	providers := webclient.NewProviders(t, env.URL)
	env.idp, env.smtp = providers.IDP, providers.SMTP
	cfg := app.Config{Server: serve.Config{PublicURL: env.URL, Store: store, WatchInterval: time.Hour}, DatasetPath: dataset,
		// a long key cache: rotation from the account page must not depend on it expiring
		KeyCacheTTL: time.Hour,
		Login: account.Config{Issuer: env.idp.URL, ClientID: webclient.ClientID, ClientSecret: webclient.ClientSecret,
			SessionSecret: []byte("0123456789abcdef0123456789abcdef"), TermsVersion: termsVersion, Mailer: providers.Mailer,
			LoginRate: rate.Inf}}
	for _, m := range mods {
		m(&cfg)
	}
	env.App = serveOn(t, ln, cfg)
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

// serveOn runs a server built from cfg on ln, with its background work, until the test ends.
func serveOn(t testing.TB, ln net.Listener, cfg app.Config) *app.App {
	t.Helper()
	s, err := app.Build(context.Background(), cfg)
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
	return s
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

// TestLoginKeyOnAPI is the newcomer's path across the server: the key the first login shows works
// on the API, the account page counts the call, and rotating from the account page revokes the old
// key on the API at once, even with a long key cache. The pages' own behaviour (terms, mails,
// cookies, CSRF, refused callbacks) is tested beside them, in package web/account.
func TestLoginKeyOnAPI(t *testing.T) {
	t.Parallel()
	env := newLoginEnv(t)
	b, oldKey := webclient.Login(t, env.URL, env.smtp, "newcomer@example.com")
	status, e, _ := env.call(t, oldKey)
	if status != http.StatusOK || e.Usage.UsedToday != 1 {
		t.Fatalf("the new key on /town/v1/meta: %d, %+v", status, e.Usage) // and now it is in the key cache
	}
	acct := b.Get(env.URL + "/account")
	for _, want := range []string{`id="used-town">1<`, `id="limit-town">100<`, `id="used-face">0<`, `id="limit-face">20<`} {
		if !strings.Contains(acct.Body, want) {
			t.Errorf("account page lacks %q:\n%s", want, acct.Body)
		}
	}
	b.Post(env.URL+"/account/rotate", url.Values{"csrf": {webclient.CSRFFrom(t, acct)}}) // to the key page
	newKey := webclient.KeyFrom(t, b.Follow(env.URL+"/account/key"))
	if mailed, _ := webclient.MailedKey(t, env.smtp, "newcomer@example.com"); mailed != newKey {
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
	t.Parallel()
	ts := newTestServer(t)
	if r := ts.do(t, http.MethodGet, "/login"); r.status != http.StatusServiceUnavailable {
		t.Errorf("GET /login: %d", r.status)
	}
	if r := ts.get(t, "/town/v1/meta"); r.status != http.StatusOK {
		t.Errorf("API without login: %d", r.status)
	}
}
