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
)

// newDevLoginEnv is a server with the development login, as `make serve` runs it, on a loopback
// port, on the real dataset.
func newDevLoginEnv(t testing.TB, opts ...serverOption) *loginEnv {
	t.Helper()
	ln, publicURL := listenLoopback(t)
	env := &loginEnv{URL: publicURL, store: newMemStore(t)}
	cfg := wiring{Config: Config{Addr: ln.Addr().String(), PublicURL: publicURL, Store: env.store, WatchInterval: time.Hour},
		DatasetPath: realDataset(t, t.TempDir()), DevLogin: true}
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
