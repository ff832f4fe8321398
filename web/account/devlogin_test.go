package account

import (
	"context"
	"crypto/rand"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/devidp"
	"github.com/hensachi/hensachi/internal/testrig/webclient"
)

// newDevLoginEnv is the account pages with the development login, as `hensachi serve -dev-login`
// (`make serve`) configures them, without the command's refusals (tested in cmd/hensachi): the
// development identity provider on a loopback port of its own, terms version "dev", no mail. deps,
// when not nil, changes the pages' dependencies (withFaces).
func newDevLoginEnv(t testing.TB, deps func(*loginEnv, *Deps)) *loginEnv {
	t.Helper()
	env, ln := newEnv(t)
	secret := rand.Text()
	idp, err := devidp.Start(devidp.Config{ClientID: "hensachi-dev", ClientSecret: secret,
		RedirectURIs: []string{env.URL + "/auth/callback"}})
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { idp.Close() })
	env.serve(t, ln, Config{Issuer: idp.URL, ClientID: "hensachi-dev", ClientSecret: secret, Development: true, TermsVersion: "dev"}, deps)
	return env
}

// usedOnAPI stands for a call on the API with the key from a login, which serve's
// TestLoginKeyOnAPI and TestBrowserNewcomer make: the key is the account's active one in the
// store, and the call is in the quota's memory, where the account page reads it.
func (env *loginEnv) usedOnAPI(t testing.TB, key, email string) bool {
	t.Helper()
	active, a := env.keyState(t, key)
	if !active || a.Email != email {
		return false
	}
	env.usage.set(a.ID, hensachi.ServiceTown, env.usage.Used(a.ID, hensachi.ServiceTown)+1)
	return true
}

// TestDevLogin walks a newcomer's first visit with the development login through HTTP, as a
// browser does (cookies kept, redirects followed): the login page says "development only", the
// development provider's form logs in as the typed address through the pages' relying party,
// the key shown is the account's (usable on the API), and the account page shows a call.
func TestDevLogin(t *testing.T) {
	env := newDevLoginEnv(t, nil)
	b := webclient.New(t)
	lp := b.Follow(env.URL + "/login")
	for _, want := range []string{`id="dev-login"`, "開発用です。", "開発用プロバイダー でログイン", "バージョン dev"} {
		if !strings.Contains(lp.Body, want) {
			t.Errorf("login page lacks %q:\n%s", want, lp.Body)
		}
	}

	form, first := b.DevLogin(env.URL, "newcomer@localhost.test")
	idp, _ := url.Parse(form.URL)
	if form.Status != http.StatusOK || idp.Host == strings.TrimPrefix(env.URL, "http://") || !strings.HasPrefix(idp.Host, "127.0.0.1:") ||
		!strings.Contains(form.Body, "Development only — not a real identity provider") {
		t.Fatalf("the provider's login form (%s): %d\n%s", form.URL, form.Status, form.Body)
	}
	key := webclient.KeyFrom(t, first)
	if first.URL != env.URL+"/account/key" || !strings.Contains(first.Body, "newcomer@localhost.test のアカウントができました") {
		t.Errorf("key page at %s:\n%s", first.URL, first.Body)
	}

	if !env.usedOnAPI(t, key, "newcomer@localhost.test") {
		t.Fatalf("the key from the development login is not newcomer@localhost.test's active key")
	}
	// without SMTP the pages say the key is not mailed, never that it was
	if !strings.Contains(first.Body, "このサーバーはメールを送りません") || strings.Contains(first.Body, "メールで送りました") {
		t.Errorf("key page without SMTP does not say the key is not mailed:\n%s", first.Body)
	}
	acct := b.Follow(env.URL + "/account")
	if !strings.Contains(acct.Body, "このサーバーはメールを送らない") || strings.Contains(acct.Body, "メールでも送ります") {
		t.Errorf("account page without SMTP says the new key is mailed:\n%s", acct.Body)
	}
	for _, want := range []string{`id="email">newcomer@localhost.test<`, `id="used-town">1<`, "hsk_…" + key[len(key)-4:], "バージョン dev"} {
		if !strings.Contains(acct.Body, want) {
			t.Errorf("account page lacks %q:\n%s", want, acct.Body)
		}
	}
	a, err := env.store.AccountByEmail(context.Background(), "newcomer@localhost.test")
	if err != nil || a.TermsVersion != "dev" {
		t.Errorf("account %+v, %v: want terms version dev", a, err)
	}
}
