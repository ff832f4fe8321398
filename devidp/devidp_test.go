package devidp

import (
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

const (
	clientID = "client"
	secret   = "secret"
	redirect = "http://localhost:8080/auth/callback"
)

// rp is the relying party's side of one login, done by hand so that every step can be checked.
type rp struct {
	t        *testing.T
	idp      *Server
	client   *http.Client // follows no redirects
	verifier string
}

func start(t *testing.T) *rp {
	t.Helper()
	s, err := Start(Config{ClientID: clientID, ClientSecret: secret, RedirectURIs: []string{redirect}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &rp{t: t, idp: s, verifier: strings.Repeat("v", 43),
		client: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (c *rp) authRequest() url.Values {
	sum := sha256.Sum256([]byte(c.verifier))
	return url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect}, "scope": {"openid email"},
		"state": {"the-state"}, "nonce": {"the-nonce"}, "code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])},
		"code_challenge_method": {"S256"}}
}

func (c *rp) do(req *http.Request) (*http.Response, string) {
	c.t.Helper()
	resp, err := c.client.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

func (c *rp) get(u string) (*http.Response, string) {
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	return c.do(req)
}

func (c *rp) post(u string, form url.Values, user, pass string) (*http.Response, string) {
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	return c.do(req)
}

var hiddenField = regexp.MustCompile(`<input type="hidden" name="([a-z_]+)" value="([^"]*)">`)

// logIn shows the form, sends it back as the browser would with the address typed, and returns
// where the provider sends the browser.
func (c *rp) logIn(email string) url.Values {
	c.t.Helper()
	resp, body := c.get(c.idp.URL + "/authorize?" + c.authRequest().Encode())
	if resp.StatusCode != http.StatusOK {
		c.t.Fatalf("authorize: %d %s", resp.StatusCode, body)
	}
	form := url.Values{"email": {email}}
	for _, m := range hiddenField.FindAllStringSubmatch(body, -1) {
		form.Set(m[1], html.UnescapeString(m[2]))
	}
	resp, body = c.post(c.idp.URL+"/authorize", form, "", "")
	loc, err := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusFound || err != nil || !strings.HasPrefix(loc.String(), redirect+"?") {
		c.t.Fatalf("form sent: %d, Location %q\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	return loc.Query()
}

func (c *rp) redeem(code, verifier string) (int, map[string]any) {
	c.t.Helper()
	resp, body := c.post(c.idp.URL+"/token", url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"code_verifier": {verifier}, "redirect_uri": {redirect}}, clientID, secret)
	var answer map[string]any
	if err := json.Unmarshal([]byte(body), &answer); err != nil {
		c.t.Fatalf("token answer %d %q: %v", resp.StatusCode, body, err)
	}
	return resp.StatusCode, answer
}

// TestDiscovery: the document names this issuer and endpoints under it, and what the relying
// party requires (RS256, S256 PKCE).
func TestDiscovery(t *testing.T) {
	c := start(t)
	resp, body := c.get(c.idp.URL + "/.well-known/openid-configuration")
	var doc struct {
		Issuer                string   `json:"issuer"`
		Authorization         string   `json:"authorization_endpoint"`
		Token                 string   `json:"token_endpoint"`
		JWKS                  string   `json:"jwks_uri"`
		Algorithms            []string `json:"id_token_signing_alg_values_supported"`
		CodeChallengeMethods  []string `json:"code_challenge_methods_supported"`
		TokenEndpointAuthKind []string `json:"token_endpoint_auth_methods_supported"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s: %v", resp.StatusCode, body, err)
	}
	if !strings.HasPrefix(c.idp.URL, "http://127.0.0.1:") || doc.Issuer != c.idp.URL || doc.Authorization != c.idp.URL+"/authorize" ||
		doc.Token != c.idp.URL+"/token" || doc.JWKS != c.idp.URL+"/jwks" {
		t.Errorf("issuer %s, document %+v", c.idp.URL, doc)
	}
	if strings.Join(doc.Algorithms, ",") != "RS256" || strings.Join(doc.CodeChallengeMethods, ",") != "S256" {
		t.Errorf("algorithms %v, PKCE methods %v", doc.Algorithms, doc.CodeChallengeMethods)
	}
}

// TestLogin: the form says what the provider is and suggests an address; the address sent
// comes back in an RS256 ID token that verifies with a key of the JWKS and carries the client,
// the login's nonce and a stable subject.
func TestLogin(t *testing.T) {
	c := start(t)
	resp, body := c.get(c.idp.URL + "/authorize?" + c.authRequest().Encode())
	for _, want := range []string{"Development only — not a real identity provider", `value="` + DefaultEmail + `"`, `<label for="email">`} {
		if !strings.Contains(body, want) {
			t.Errorf("the form lacks %q:\n%s", want, body)
		}
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "form-action 'self' http://localhost:8080;") {
		t.Errorf("CSP %q does not let the form go on to the client", csp)
	}

	subjects := map[string]string{}
	for _, email := range []string{"newcomer@localhost.test", "Newcomer@localhost.test", "other@localhost.test"} {
		back := c.logIn(email)
		if back.Get("state") != "the-state" || back.Get("iss") != c.idp.URL || back.Get("code") == "" {
			t.Fatalf("back to the client with %v", back)
		}
		status, answer := c.redeem(back.Get("code"), c.verifier)
		raw, _ := answer["id_token"].(string)
		if status != http.StatusOK || raw == "" {
			t.Fatalf("token: %d %v", status, answer)
		}
		claims := jwt.MapClaims{}
		if _, err := jwt.ParseWithClaims(raw, claims, c.jwksKey, jwt.WithValidMethods([]string{"RS256"}),
			jwt.WithIssuer(c.idp.URL), jwt.WithAudience(clientID), jwt.WithExpirationRequired()); err != nil {
			t.Fatalf("ID token does not verify with the JWKS: %v", err)
		}
		if claims["email"] != email || claims["email_verified"] != true || claims["nonce"] != "the-nonce" || claims["azp"] != clientID {
			t.Errorf("claims %v", claims)
		}
		subjects[email], _ = claims["sub"].(string)
	}
	if s := subjects["newcomer@localhost.test"]; s == "" || s != subjects["Newcomer@localhost.test"] || s == subjects["other@localhost.test"] {
		t.Errorf("subjects %v: want one per address, whatever its case", subjects)
	}
}

// jwksKey finds the token's key in the provider's published key set, as a relying party does.
func (c *rp) jwksKey(tok *jwt.Token) (any, error) {
	_, body := c.get(c.idp.URL + "/jwks")
	var set struct {
		Keys []struct{ Kid, Kty, N, E string }
	}
	if err := json.Unmarshal([]byte(body), &set); err != nil {
		return nil, err
	}
	for _, k := range set.Keys {
		if k.Kid == tok.Header["kid"] && k.Kty == "RSA" {
			n, err1 := base64.RawURLEncoding.DecodeString(k.N)
			e, err2 := base64.RawURLEncoding.DecodeString(k.E)
			if err1 != nil || err2 != nil {
				return nil, jwt.ErrTokenUnverifiable
			}
			return &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}, nil
		}
	}
	return nil, jwt.ErrTokenUnverifiable
}

// TestPKCE: a code redeemed with another verifier, or none, is refused, and the code is spent
// by the attempt.
func TestPKCE(t *testing.T) {
	c := start(t)
	for _, verifier := range []string{strings.Repeat("w", 43), ""} {
		code := c.logIn(DefaultEmail).Get("code")
		if status, answer := c.redeem(code, verifier); status != http.StatusBadRequest || answer["error"] != "invalid_grant" {
			t.Errorf("verifier %q: %d %v", verifier, status, answer)
		}
		if status, answer := c.redeem(code, c.verifier); answer["error"] != "invalid_grant" {
			t.Errorf("the code after a wrong verifier: %d %v", status, answer)
		}
	}
	noPKCE := c.authRequest()
	noPKCE.Del("code_challenge")
	resp, _ := c.get(c.idp.URL + "/authorize?" + noPKCE.Encode())
	if loc, _ := url.Parse(resp.Header.Get("Location")); loc == nil || loc.Query().Get("error") != "invalid_request" {
		t.Errorf("authorization without PKCE: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// TestFormRefusals: what the form does not log in with.
func TestFormRefusals(t *testing.T) {
	c := start(t)
	form := c.authRequest()
	form.Set("email", "not an address")
	if resp, body := c.post(c.idp.URL+"/authorize", form, "", ""); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "is not an e-mail address") {
		t.Errorf("bad address: %d\n%s", resp.StatusCode, body)
	}
	form.Set("cancel", "1")
	resp, _ := c.post(c.idp.URL+"/authorize", form, "", "")
	if loc, _ := url.Parse(resp.Header.Get("Location")); loc == nil || loc.Query().Get("error") != "access_denied" || loc.Query().Get("state") != "the-state" {
		t.Errorf("cancelled: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	other := c.authRequest()
	other.Set("redirect_uri", "https://evil.example/cb")
	other.Set("email", DefaultEmail)
	if resp, _ := c.post(c.idp.URL+"/authorize", other, "", ""); resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Location") != "" {
		t.Errorf("unregistered redirect URI: %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	// a form posted from another site (a browser says so) never logs anyone in
	cross := c.authRequest()
	cross.Set("email", DefaultEmail)
	req, _ := http.NewRequest(http.MethodPost, c.idp.URL+"/authorize", strings.NewReader(cross.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	if resp, _ := c.do(req); resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-site form: %d", resp.StatusCode)
	}
}
