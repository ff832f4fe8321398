// Package devidp is an OpenID Connect identity provider for development, clearly marked as such:
// whoever reaches its authorization page logs in as any e-mail address they type, with no
// password. It is nonetheless a real provider — discovery document, RSA keys published as a JWKS,
// the authorization-code flow with a required S256 PKCE challenge, and a token endpoint that
// checks the client, the redirect URI and the verifier before it signs an RS256 ID token — so the
// server's ordinary relying party (package oidc) logs in through it on the production code path.
//
// Tests build their provider on it (internal/testrig/testidp) with the two hooks of Config: approving at
// once, and spoiling the tokens it signs.
package devidp

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/mail"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// User is who logs in.
type User struct {
	Subject       string
	Email         string
	EmailVerified bool
}

// Config configures a Provider for one client (relying party).
type Config struct {
	Issuer       string // the provider's own URL, as the client discovers it
	ClientID     string
	ClientSecret string
	RedirectURIs []string // the client's registered redirect URIs, matched exactly
	// Approve, when set, answers each valid authorization request at once instead of showing the
	// login form: with the user it returns, or with access_denied when ok is false.
	Approve func() (u User, ok bool)
	// Sign, when set, signs each ID token in place of key.Sign (a test spoils tokens with it).
	Sign func(claims jwt.MapClaims, key *SigningKey) (string, error)
}

// DefaultEmail is the address the login form suggests.
const DefaultEmail = "dev@localhost.test"

// codeTTL is how long an authorization code may wait to be redeemed.
const codeTTL = time.Minute

// Provider is the identity provider, an http.Handler.
type Provider struct {
	cfg     Config
	handler http.Handler

	mu           sync.Mutex
	redirectURIs []string
	keys         []*SigningKey // keys[0] signs; all are published
	codes        map[string]*grant
}

type grant struct {
	redirectURI, challenge, nonce string
	user                          User
	expires                       time.Time
}

// SigningKey is one of the provider's RSA keys, published in its JWKS under ID.
type SigningKey struct {
	ID  string
	key *rsa.PrivateKey
}

func newSigningKey() (*SigningKey, error) {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("devidp: signing key: %w", err)
	}
	return &SigningKey{ID: rand.Text()[:12], key: k}, nil
}

// Sign signs claims with RS256, naming the key in the header.
func (k *SigningKey) Sign(claims jwt.MapClaims) (string, error) {
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
	tok.Header["kid"] = k.ID
	return tok.SignedString(k.key)
}

// PublicKey is the key the JWKS publishes.
func (k *SigningKey) PublicKey() *rsa.PublicKey { return &k.key.PublicKey }

// New makes a provider with a fresh signing key.
func New(cfg Config) (*Provider, error) {
	if cfg.Issuer == "" || cfg.ClientID == "" {
		return nil, errors.New("devidp: an issuer and a client id are required")
	}
	key, err := newSigningKey()
	if err != nil {
		return nil, err
	}
	p := &Provider{cfg: cfg, redirectURIs: slices.Clone(cfg.RedirectURIs), keys: []*SigningKey{key}, codes: map[string]*grant{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("GET /jwks", p.jwks)
	mux.HandleFunc("GET /authorize", p.authorize)
	mux.HandleFunc("POST /authorize", p.authorize)
	mux.HandleFunc("POST /token", p.token)
	// the login form is posted from the provider's own page, never from another site
	p.handler = http.NewCrossOriginProtection().Handler(mux)
	return p, nil
}

func (p *Provider) ServeHTTP(w http.ResponseWriter, r *http.Request) { p.handler.ServeHTTP(w, r) }

// AllowRedirect registers another redirect URI of the client.
func (p *Provider) AllowRedirect(uri string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.redirectURIs = append(p.redirectURIs, uri)
}

// RotateKey makes a new signing key. With keepOld the old keys stay published (as real providers
// overlap keys); without, the key set lists only the new one.
func (p *Provider) RotateKey(keepOld bool) error {
	k, err := newSigningKey()
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if keepOld {
		p.keys = append([]*SigningKey{k}, p.keys...)
	} else {
		p.keys = []*SigningKey{k}
	}
	return nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (p *Provider) discovery(w http.ResponseWriter, _ *http.Request) {
	iss := p.cfg.Issuer
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                         iss,
		"authorization_endpoint":                         iss + "/authorize",
		"token_endpoint":                                 iss + "/token",
		"jwks_uri":                                       iss + "/jwks",
		"response_types_supported":                       []string{"code"},
		"subject_types_supported":                        []string{"public"},
		"id_token_signing_alg_values_supported":          []string{"RS256"},
		"scopes_supported":                               []string{"openid", "email"},
		"claims_supported":                               []string{"iss", "sub", "aud", "azp", "exp", "iat", "nonce", "email", "email_verified"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"client_secret_basic", "client_secret_post"},
		"authorization_response_iss_parameter_supported": true,
	})
}

func (p *Provider) jwks(w http.ResponseWriter, _ *http.Request) {
	p.mu.Lock()
	keys := []map[string]string{}
	for _, k := range p.keys {
		keys = append(keys, map[string]string{"kty": "RSA", "use": "sig", "alg": "RS256", "kid": k.ID,
			"n": b64(k.key.N.Bytes()), "e": b64(big.NewInt(int64(k.key.E)).Bytes())})
	}
	p.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"keys": keys})
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// authParams are the parameters of an authorization request that the login form carries from
// the GET that shows it to the POST that answers it.
var authParams = []string{"response_type", "client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge", "code_challenge_method"}

// authorize checks the request as a real provider does — client, exact redirect URI, response
// type, scope, an S256 PKCE challenge — then shows the login form (GET), or approves the address
// the form was sent with (POST). With Config.Approve it answers at once.
func (p *Provider) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if r.Method == http.MethodPost {
		r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
		if err := r.ParseForm(); err != nil {
			http.Error(w, "bad form", http.StatusBadRequest)
			return
		}
		q = r.PostForm
	}
	redirect := q.Get("redirect_uri")
	p.mu.Lock()
	registered := slices.Contains(p.redirectURIs, redirect)
	p.mu.Unlock()
	if q.Get("client_id") != p.cfg.ClientID || !registered {
		// never redirect to an address not registered for the client
		http.Error(w, "unknown client or unregistered redirect_uri", http.StatusBadRequest)
		return
	}
	back := func(params url.Values) {
		params.Set("state", q.Get("state"))
		params.Set("iss", p.cfg.Issuer) // RFC 9207
		http.Redirect(w, r, redirect+"?"+params.Encode(), http.StatusFound)
	}
	scopes := strings.Fields(q.Get("scope"))
	switch {
	case q.Get("response_type") != "code":
		back(url.Values{"error": {"unsupported_response_type"}})
		return
	case !slices.Contains(scopes, "openid") || !slices.Contains(scopes, "email"):
		back(url.Values{"error": {"invalid_scope"}})
		return
	case q.Get("code_challenge_method") != "S256" || len(q.Get("code_challenge")) != 43:
		back(url.Values{"error": {"invalid_request"}, "error_description": {"PKCE with S256 is required"}})
		return
	}
	var user User
	switch {
	case p.cfg.Approve != nil:
		u, ok := p.cfg.Approve()
		if !ok {
			back(url.Values{"error": {"access_denied"}})
			return
		}
		user = u
	case r.Method == http.MethodGet:
		p.showForm(w, q, DefaultEmail, "", http.StatusOK)
		return
	case q.Has("cancel"):
		back(url.Values{"error": {"access_denied"}})
		return
	default:
		email, err := parseEmail(q.Get("email"))
		if err != nil {
			p.showForm(w, q, q.Get("email"), err.Error(), http.StatusBadRequest)
			return
		}
		user = User{Subject: subjectOf(email), Email: email, EmailVerified: true}
	}
	code := rand.Text()
	now := time.Now()
	p.mu.Lock()
	for c, g := range p.codes { // codes never redeemed would otherwise stay for ever
		if now.After(g.expires) {
			delete(p.codes, c)
		}
	}
	p.codes[code] = &grant{redirectURI: redirect, challenge: q.Get("code_challenge"), nonce: q.Get("nonce"),
		user: user, expires: now.Add(codeTTL)}
	p.mu.Unlock()
	back(url.Values{"code": {code}})
}

// parseEmail accepts one bare address, as typed into the form.
func parseEmail(s string) (string, error) {
	s = strings.TrimSpace(s)
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || len(s) > 254 {
		return "", fmt.Errorf("%q is not an e-mail address such as %s", s, DefaultEmail)
	}
	return s, nil
}

// subjectOf is the stable subject of an address: the same address is the same user at every
// login, whatever its case.
func subjectOf(email string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(email)))
	return "dev-" + hex.EncodeToString(sum[:10])
}

// token redeems a code once, for the client it was issued to, with the redirect URI it was issued
// for and the verifier whose S256 hash is the challenge.
func (p *Provider) token(w http.ResponseWriter, r *http.Request) {
	fail := func(status int, code string) { writeJSON(w, status, map[string]string{"error": code}) }
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		fail(http.StatusBadRequest, "invalid_request")
		return
	}
	id, secret, ok := r.BasicAuth()
	if ok {
		id, _ = url.QueryUnescape(id) // RFC 6749 2.3.1: form-encoded before base64
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id != p.cfg.ClientID || subtle.ConstantTimeCompare([]byte(secret), []byte(p.cfg.ClientSecret)) != 1 {
		fail(http.StatusUnauthorized, "invalid_client")
		return
	}
	if r.PostForm.Get("grant_type") != "authorization_code" {
		fail(http.StatusBadRequest, "unsupported_grant_type")
		return
	}
	code := r.PostForm.Get("code")
	p.mu.Lock()
	g := p.codes[code]
	delete(p.codes, code) // one attempt per code, right or wrong
	signer := p.keys[0]
	p.mu.Unlock()
	if g == nil || time.Now().After(g.expires) || g.redirectURI != r.PostForm.Get("redirect_uri") {
		fail(http.StatusBadRequest, "invalid_grant")
		return
	}
	sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	if b64(sum[:]) != g.challenge {
		fail(http.StatusBadRequest, "invalid_grant") // RFC 7636 4.6
		return
	}
	now := time.Now()
	claims := jwt.MapClaims{
		"iss": p.cfg.Issuer, "sub": g.user.Subject, "aud": p.cfg.ClientID, "azp": p.cfg.ClientID,
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "nonce": g.nonce,
		"email": g.user.Email, "email_verified": g.user.EmailVerified,
	}
	sign := (*SigningKey).Sign
	if p.cfg.Sign != nil {
		sign = func(k *SigningKey, c jwt.MapClaims) (string, error) { return p.cfg.Sign(c, k) }
	}
	idToken, err := sign(signer, claims)
	if err != nil {
		fail(http.StatusInternalServerError, "server_error")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"access_token": rand.Text(), "token_type": "Bearer", "expires_in": 3600, "id_token": idToken})
}
