package oidc_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/hensachi/hensachi/internal/testrig/testidp"
	"github.com/hensachi/hensachi/oidc"
)

func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	os.Exit(m.Run())
}

const redirect = "https://rp.example/auth/callback"

func setup(t *testing.T, mod ...func(*oidc.Config)) (*oidc.Provider, *testidp.IDP) {
	t.Helper()
	idp := testidp.New(t, "client-1", "secret-1")
	idp.AllowRedirect(redirect)
	cfg := oidc.Config{Issuer: idp.URL, ClientID: "client-1", ClientSecret: "secret-1", RedirectURL: redirect}
	for _, m := range mod {
		m(&cfg)
	}
	p, err := oidc.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p, idp
}

// authorize follows the flow to the provider and returns what it sends back to the callback.
func authorize(t *testing.T, p *oidc.Provider, f oidc.Flow) url.Values {
	t.Helper()
	u, err := p.AuthURL(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || resp.StatusCode != http.StatusFound || !strings.HasPrefix(loc.String(), redirect+"?") {
		t.Fatalf("authorize answered %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	return loc.Query()
}

func login(t *testing.T, p *oidc.Provider) (oidc.Identity, error) {
	t.Helper()
	f := oidc.NewFlow()
	back := authorize(t, p, f)
	if !f.CheckState(back.Get("state")) || !p.AcceptsIssuer(back.Get("iss")) {
		t.Fatalf("callback state %q iss %q", back.Get("state"), back.Get("iss"))
	}
	return p.Exchange(context.Background(), f, back.Get("code"))
}

func TestLogin(t *testing.T) {
	p, idp := setup(t)
	id, err := login(t, p)
	if err != nil {
		t.Fatal(err)
	}
	if id.Email != "newcomer@example.com" || id.Subject != "1001" || id.Issuer != idp.URL {
		t.Errorf("identity %+v", id)
	}
	// the key set is cached: a second login fetches nothing
	if _, err := login(t, p); err != nil {
		t.Fatal(err)
	}
	if n := idp.JWKSFetches(); n != 1 {
		t.Errorf("%d key set fetches for two logins, want 1", n)
	}
}

// TestBadTokens: each kind of bad ID token is refused, for its own reason.
func TestBadTokens(t *testing.T) {
	want := map[testidp.Fault]error{
		testidp.ForgedSignature:      jwt.ErrTokenSignatureInvalid,
		testidp.Expired:              jwt.ErrTokenExpired,
		testidp.WrongAudience:        jwt.ErrTokenInvalidAudience,
		testidp.WrongIssuer:          oidc.ErrIssuer,
		testidp.WrongNonce:           oidc.ErrNonce,
		testidp.AlgNone:              jwt.ErrTokenSignatureInvalid,
		testidp.HS256PublicKey:       jwt.ErrTokenSignatureInvalid,
		testidp.EmailUnverified:      oidc.ErrEmailNotVerified,
		testidp.OtherAuthorizedParty: oidc.ErrAuthorizedParty,
	}
	p, idp := setup(t)
	for _, f := range testidp.Faults {
		t.Run(f.String(), func(t *testing.T) {
			idp.SetFault(f)
			defer idp.SetFault(testidp.NoFault)
			id, err := login(t, p)
			if !errors.Is(err, want[f]) {
				t.Fatalf("login with a token with %s: %+v, %v; want %v", f, id, err, want[f])
			}
		})
	}
	if _, err := login(t, p); err != nil {
		t.Errorf("a good token after the bad ones: %v", err)
	}
}

// TestIssuerSpellings: another accepted spelling of iss is taken, and Google's issuer accepts
// both of its documented spellings and nothing that merely resembles them.
func TestIssuerSpellings(t *testing.T) {
	p, idp := setup(t, func(c *oidc.Config) { c.ExtraIssuers = []string{"alt.issuer.example"} })
	idp.SetIssuerClaim("alt.issuer.example")
	if id, err := login(t, p); err != nil || id.Issuer != "alt.issuer.example" {
		t.Errorf("token with the other spelling: %+v, %v", id, err)
	}
	idp.SetIssuerClaim("alt.issuer.example.evil")
	if _, err := login(t, p); !errors.Is(err, oidc.ErrIssuer) {
		t.Errorf("token with an unlisted issuer: %v", err)
	}

	g, err := oidc.New(oidc.Config{Issuer: oidc.GoogleIssuer, ClientID: "c", RedirectURL: redirect})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for iss, ok := range map[string]bool{"https://accounts.google.com": true, "accounts.google.com": true,
		"http://accounts.google.com": false, "https://accounts.google.com.evil": false, "": false} {
		if g.AcceptsIssuer(iss) != ok {
			t.Errorf("Google issuer accepts %q: %v, want %v", iss, !ok, ok)
		}
	}
}

// TestPKCE: a code is worth nothing without the verifier of the flow that asked for it.
func TestPKCE(t *testing.T) {
	p, idp := setup(t)
	mine, theirs := oidc.NewFlow(), oidc.NewFlow()
	stolen := authorize(t, p, theirs).Get("code")
	if _, err := p.Exchange(context.Background(), mine, stolen); !errors.Is(err, oidc.ErrExchange) {
		t.Fatalf("exchange of another flow's code: %v", err)
	}
	if _, last := idp.TokenCalls(); last != "invalid_grant" {
		t.Errorf("provider's answer %q, want invalid_grant", last)
	}
}

// TestKeyRotation: after the provider replaces its key, the first token signed with the new key
// makes the cache fetch the key set again; a further unknown key within the refresh bound is
// refused without another fetch, so forged key ids cannot make this server hammer the provider.
func TestKeyRotation(t *testing.T) {
	p, idp := setup(t, func(c *oidc.Config) { c.UnknownKeyRefresh = time.Hour })
	if _, err := login(t, p); err != nil {
		t.Fatal(err)
	}
	idp.Rotate(t, false)
	if _, err := login(t, p); err != nil {
		t.Fatalf("login after the provider rotated its key: %v", err)
	}
	if n := idp.JWKSFetches(); n != 2 {
		t.Errorf("%d key set fetches, want 2 (start, unknown kid)", n)
	}
	idp.Rotate(t, false)
	start := time.Now()
	if _, err := login(t, p); !errors.Is(err, oidc.ErrToken) {
		t.Errorf("second rotation within the refresh bound: %v, want a refused token", err)
	}
	if n := idp.JWKSFetches(); n != 2 || time.Since(start) > 3*time.Second {
		t.Errorf("%d key set fetches after %s, want 2 and no wait", n, time.Since(start))
	}
}

func TestDiscovery(t *testing.T) {
	other := testidp.New(t, "client-1", "secret-1")
	cases := []struct {
		name string
		doc  string
	}{
		{"another issuer", `{"issuer":"` + other.URL + `","authorization_endpoint":"https://a.example/a","token_endpoint":"https://a.example/t","jwks_uri":"https://a.example/j"}`},
		{"plain http endpoint", `{"issuer":"ISSUER","authorization_endpoint":"http://a.example/a","token_endpoint":"https://a.example/t","jwks_uri":"https://a.example/j"}`},
		{"no PKCE", `{"issuer":"ISSUER","authorization_endpoint":"https://a.example/a","token_endpoint":"https://a.example/t","jwks_uri":"https://a.example/j","code_challenge_methods_supported":["plain"]}`},
		{"not JSON", `<html>`},
		// a document that would do, but past the size bound on what is read from the issuer
		{"too large", `{"issuer":"ISSUER","authorization_endpoint":"IDP/authorize","token_endpoint":"IDP/token","jwks_uri":"IDP/jwks","padding":"` +
			strings.Repeat("x", 1<<20) + `"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var srv *httptest.Server
			srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, strings.NewReplacer("ISSUER", srv.URL, "IDP", other.URL).Replace(c.doc))
			}))
			defer srv.Close()
			p, err := oidc.New(oidc.Config{Issuer: srv.URL, ClientID: "c", RedirectURL: redirect})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if _, err := p.AuthURL(context.Background(), oidc.NewFlow()); !errors.Is(err, oidc.ErrDiscovery) {
				t.Errorf("AuthURL: %v, want a discovery error", err)
			}
		})
	}
	// the same document within the bound is fine, so the size is what failed above
	var small *httptest.Server
	small = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"issuer":"`+small.URL+`","authorization_endpoint":"`+other.URL+`/authorize","token_endpoint":"`+other.URL+`/token","jwks_uri":"`+other.URL+`/jwks","padding":"xx"}`)
	}))
	defer small.Close()
	ok, err := oidc.New(oidc.Config{Issuer: small.URL, ClientID: "c", RedirectURL: redirect})
	if err != nil {
		t.Fatal(err)
	}
	defer ok.Close()
	if _, err := ok.AuthURL(context.Background(), oidc.NewFlow()); err != nil {
		t.Errorf("a small document: %v", err)
	}

	// an unreachable issuer fails the login, not the start-up
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	p, err := oidc.New(oidc.Config{Issuer: srv.URL, ClientID: "c", RedirectURL: redirect})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := p.AuthURL(context.Background(), oidc.NewFlow()); !errors.Is(err, oidc.ErrDiscovery) {
		t.Errorf("unreachable issuer: %v", err)
	}
}

func TestConfig(t *testing.T) {
	cases := []struct {
		name string
		cfg  oidc.Config
	}{
		{"no client", oidc.Config{Issuer: oidc.GoogleIssuer, RedirectURL: redirect}},
		{"no redirect", oidc.Config{Issuer: oidc.GoogleIssuer, ClientID: "c"}},
		{"plain http issuer", oidc.Config{Issuer: "http://idp.example", ClientID: "c", RedirectURL: redirect}},
		{"alg none allowed", oidc.Config{Issuer: oidc.GoogleIssuer, ClientID: "c", RedirectURL: redirect, Algorithms: []string{"RS256", "none"}}},
		{"HMAC allowed", oidc.Config{Issuer: oidc.GoogleIssuer, ClientID: "c", RedirectURL: redirect, Algorithms: []string{"HS256"}}},
	}
	for _, c := range cases {
		if p, err := oidc.New(c.cfg); err == nil {
			p.Close()
			t.Errorf("%s: accepted", c.name)
		}
	}
}
