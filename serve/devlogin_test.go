package serve

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hensachi/hensachi/webui"
)

// newDevLoginEnv is a server with the development login, as `make serve` runs it, on a loopback
// port, on the real dataset.
func newDevLoginEnv(t testing.TB, opts ...serverOption) *loginEnv {
	t.Helper()
	ln, publicURL := listenLoopback(t)
	env := &loginEnv{URL: publicURL, store: newMemStore(t)}
	cfg := Config{Addr: ln.Addr().String(), PublicURL: publicURL, DatasetPath: realDataset(t, t.TempDir()),
		Store: env.store, WatchInterval: time.Hour, DevLogin: true}
	for _, o := range opts {
		o(&cfg)
	}
	env.Server = serveOn(t, ln, cfg)
	return env
}

var (
	formTag     = regexp.MustCompile(`<form method="post" action="([^"]+)">`)
	hiddenInput = regexp.MustCompile(`<input type="hidden" name="([a-z_]+)" value="([^"]*)">`)
)

// TestDevLogin walks a newcomer's first visit with the development login through HTTP, as a
// browser does (cookies kept, redirects followed): the login page says "development only", the
// development provider's form logs in as the typed address through the server's relying party,
// the key shown works on the API, and the account page shows the call.
func TestDevLogin(t *testing.T) {
	env := newDevLoginEnv(t)
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	visit := func(resp *http.Response, err error) page {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return page{status: resp.StatusCode, url: resp.Request.URL.String(), header: resp.Header, body: string(body)}
	}

	lp := visit(client.Get(env.URL + "/login"))
	for _, want := range []string{`id="dev-login"`, "Development only.", "Log in with development provider", "version dev"} {
		if !strings.Contains(lp.body, want) {
			t.Errorf("login page lacks %q:\n%s", want, lp.body)
		}
	}

	form := visit(client.Get(env.URL + "/login/start"))
	idp, _ := url.Parse(form.url)
	if form.status != http.StatusOK || idp.Host == strings.TrimPrefix(env.URL, "http://") || !strings.HasPrefix(idp.Host, "127.0.0.1:") ||
		!strings.Contains(form.body, "Development only — not a real identity provider") {
		t.Fatalf("the provider's login form (%s): %d\n%s", form.url, form.status, form.body)
	}
	action := formTag.FindStringSubmatch(form.body)
	if action == nil {
		t.Fatalf("no form on the provider's page:\n%s", form.body)
	}
	values := url.Values{"email": {"newcomer@localhost.test"}}
	for _, m := range hiddenInput.FindAllStringSubmatch(form.body, -1) {
		values.Set(m[1], html.UnescapeString(m[2]))
	}
	target, _ := idp.Parse(html.UnescapeString(action[1]))
	first := visit(client.PostForm(target.String(), values))
	key := keyFrom(t, first)
	if !strings.HasPrefix(first.url, env.URL+"/auth/callback?") || !strings.Contains(first.body, "newcomer@localhost.test is ready") {
		t.Errorf("key page at %s:\n%s", first.url, first.body)
	}

	if status, e, _ := env.call(t, key); status != http.StatusOK || e.Usage.UsedToday != 1 {
		t.Fatalf("GET /town/v1/meta with the key from the development login: %d %+v", status, e.Usage)
	}
	acct := visit(client.Get(env.URL + "/account"))
	for _, want := range []string{`id="email">newcomer@localhost.test<`, `id="used-town">1<`, "hsk_…" + key[len(key)-4:], "version dev"} {
		if !strings.Contains(acct.body, want) {
			t.Errorf("account page lacks %q:\n%s", want, acct.body)
		}
	}
	a, err := env.store.AccountByEmail(context.Background(), "newcomer@localhost.test")
	if err != nil || a.TermsVersion != "dev" {
		t.Errorf("account %+v, %v: want terms version dev", a, err)
	}
}

// TestDevLoginRefused: the development login does not start beside a real identity provider, or
// where others could reach the server.
func TestDevLoginRefused(t *testing.T) {
	cases := []struct {
		name      string
		cfg       Config
		wantError string
	}{
		{"real issuer", Config{Addr: "127.0.0.1:8080", Login: webui.LoginConfig{Issuer: "https://accounts.google.com"}}, "real identity provider"},
		{"real client id", Config{Addr: "localhost:8080", Login: webui.LoginConfig{ClientID: "1234.apps.googleusercontent.com"}}, "real identity provider"},
		{"real client secret", Config{Addr: "localhost:8080", Login: webui.LoginConfig{ClientSecret: "s"}}, "real identity provider"},
		{"every interface", Config{Addr: ":8080"}, `listen address ":8080" is not a loopback address`},
		{"every interface, explicitly", Config{Addr: "0.0.0.0:8080", PublicURL: "http://localhost:8080"}, "not a loopback address"},
		{"every IPv6 interface", Config{Addr: "[::]:8080", PublicURL: "http://localhost:8080"}, "not a loopback address"},
		{"another interface", Config{Addr: "192.0.2.10:8080"}, "not a loopback address"},
		{"a host name", Config{Addr: "hensachi.example:8080"}, "not a loopback address"},
		{"no listen address", Config{PublicURL: "http://localhost:8080"}, "not a loopback address"},
		{"public URL elsewhere", Config{Addr: "127.0.0.1:8080", PublicURL: "https://hensachi.example"}, `public URL "https://hensachi.example" is not on a loopback address`},
		{"public URL on the LAN", Config{Addr: "localhost:8080", PublicURL: "http://192.168.1.20:8080"}, "is not on a loopback address"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg
			// refused before the dataset is opened or the store used
			cfg.DevLogin, cfg.DatasetPath = true, "/nonexistent/dataset.arrow"
			s, err := New(context.Background(), cfg)
			if err == nil {
				s.Close()
				t.Fatal("started")
			}
			if !strings.Contains(err.Error(), c.wantError) {
				t.Errorf("error %q, want %q", err, c.wantError)
			}
		})
	}
	// and it starts on each kind of loopback address
	dataset := realDataset(t, t.TempDir())
	for _, cfg := range []Config{{Addr: "localhost:8080"}, {Addr: "127.0.0.1:8080"}, {Addr: "[::1]:8080", PublicURL: "http://[::1]:8080"}} {
		cfg.DevLogin, cfg.DatasetPath, cfg.Store = true, dataset, newMemStore(t)
		s, err := New(context.Background(), cfg)
		if err != nil {
			t.Errorf("%s: %v", cfg.Addr, err)
			continue
		}
		s.Close()
	}
}
