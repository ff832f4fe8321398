package account

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/testidp"
)

// TestLoginNotConfigured: without a client id the login routes say so.
func TestLoginNotConfigured(t *testing.T) {
	pages, err := New(Config{}, Deps{PublicURL: "https://hensachi.example", Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	router := httprouter.New()
	pages.Routes(router.Handle)
	for _, path := range []string{"/login", "/login/start", "/auth/callback?code=x&state=y", "/account"} {
		w := httptest.NewRecorder()
		router.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), "ログインは設定されていません") {
			t.Errorf("GET %s: %d\n%s", path, w.Code, w.Body)
		}
	}
}

// TestCookies: over https the cookies are __Host-, Secure, HttpOnly and SameSite=Lax; over plain
// http (development) they cannot be Secure.
func TestCookies(t *testing.T) {
	for _, public := range []string{"https://hensachi.example", "http://localhost:8080"} {
		t.Run(public, func(t *testing.T) {
			idp := testidp.New(t, "c", "s")
			idp.AllowRedirect(public + "/auth/callback")
			pages, err := New(Config{Issuer: idp.URL, ClientID: "c", ClientSecret: "s", TermsVersion: "1"},
				Deps{PublicURL: public, Accounts: hensachi.Accounts{Store: newStore(t), Now: time.Now}, Now: time.Now})
			if err != nil {
				t.Fatal(err)
			}
			defer pages.Close()
			router := httprouter.New()
			pages.Routes(router.Handle)
			rec := httptest.NewRecorder()
			router.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/login/start", nil))
			cookies := rec.Result().Cookies()
			if rec.Code != http.StatusSeeOther || len(cookies) != 1 {
				t.Fatalf("/login/start: %d, cookies %v", rec.Code, cookies)
			}
			c := cookies[0]
			secure := strings.HasPrefix(public, "https")
			if c.Secure != secure || strings.HasPrefix(c.Name, "__Host-") != secure || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || c.Domain != "" {
				t.Errorf("login cookie %s", rec.Header().Get("Set-Cookie"))
			}
			target, _ := url.Parse(rec.Header().Get("Location"))
			q := target.Query()
			if q.Get("redirect_uri") != public+"/auth/callback" || q.Get("code_challenge_method") != "S256" || q.Get("nonce") == "" || q.Get("state") == "" || q.Get("scope") != "openid email" {
				t.Errorf("authorization request %s", target)
			}
		})
	}
}

func TestLoginConfig(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
	}{
		{"no terms version", Config{ClientID: "c"}},
		{"short session secret", Config{ClientID: "c", TermsVersion: "1", SessionSecret: []byte("short")}},
		{"plain http issuer", Config{ClientID: "c", TermsVersion: "1", Issuer: "http://idp.example"}},
	}
	for _, c := range cases {
		if pages, err := New(c.cfg, Deps{PublicURL: "http://localhost:8080", Accounts: hensachi.Accounts{Store: newStore(t)}, Now: time.Now}); err == nil {
			pages.Close()
			t.Errorf("%s: accepted", c.name)
		}
	}
}
