// Package testidp is an OpenID Connect identity provider for tests: its own RSA keys, a discovery
// document, a JWKS, an authorization endpoint that approves a configured user at once and
// redirects back with a code, and a token endpoint that checks the client, the redirect URI and
// the PKCE verifier before it mints an ID token. Knobs mint bad tokens (forged, expired, wrong
// audience, issuer or nonce, alg none, HS256 with the public key, unverified e-mail), deny a
// login, and rotate the signing key.
package testidp

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// User is who the provider logs in.
type User struct {
	Subject       string
	Email         string
	EmailVerified bool
}

// Fault makes the token endpoint mint a bad ID token.
type Fault int

const (
	NoFault Fault = iota
	// ForgedSignature signs with a key the provider never published, under the published kid.
	ForgedSignature
	Expired
	WrongAudience
	WrongIssuer
	WrongNonce
	// AlgNone sends an unsigned token (alg "none").
	AlgNone
	// HS256PublicKey signs with HMAC-SHA256 using the provider's public key (PEM) as the secret:
	// the algorithm-confusion attack on verifiers that pick the algorithm from the token.
	HS256PublicKey
	EmailUnverified
	// OtherAuthorizedParty adds a second audience and sets azp to that other client.
	OtherAuthorizedParty
)

var faultNames = map[Fault]string{NoFault: "none", ForgedSignature: "forged signature", Expired: "expired",
	WrongAudience: "wrong audience", WrongIssuer: "wrong issuer", WrongNonce: "wrong nonce", AlgNone: "alg none",
	HS256PublicKey: "HS256 with the public key", EmailUnverified: "email_verified false", OtherAuthorizedParty: "azp of another client"}

func (f Fault) String() string { return faultNames[f] }

// Faults lists every bad-token kind.
var Faults = []Fault{ForgedSignature, Expired, WrongAudience, WrongIssuer, WrongNonce, AlgNone, HS256PublicKey, EmailUnverified, OtherAuthorizedParty}

// IDP is a running test identity provider; URL is its issuer.
type IDP struct {
	URL          string
	ClientID     string
	ClientSecret string

	srv *httptest.Server

	mu           sync.Mutex
	redirectURIs []string
	keys         []*signingKey // keys[0] signs; all are published
	user         User
	fault        Fault
	issClaim     string // iss of minted tokens when not the URL
	deny         bool
	codes        map[string]*grant
	jwksFetches  int
	tokenCalls   int
	lastTokenErr string
}

type signingKey struct {
	kid string
	key *rsa.PrivateKey
}

type grant struct {
	clientID, redirectURI, challenge, nonce string
	user                                    User
	expires                                 time.Time
}

// New starts a provider for one client; it stops when the test ends.
func New(t testing.TB, clientID, clientSecret string) *IDP {
	t.Helper()
	p := &IDP{ClientID: clientID, ClientSecret: clientSecret, codes: map[string]*grant{},
		user: User{Subject: "1001", Email: "newcomer@example.com", EmailVerified: true}}
	p.keys = []*signingKey{newKey(t)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("GET /jwks", p.jwks)
	mux.HandleFunc("GET /authorize", p.authorize)
	mux.HandleFunc("POST /token", p.token)
	p.srv = httptest.NewServer(mux)
	p.URL = p.srv.URL
	t.Cleanup(p.srv.Close)
	return p
}

func newKey(t testing.TB) *signingKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return &signingKey{kid: rand.Text()[:12], key: k}
}

// AllowRedirect registers a redirect URI of the client.
func (p *IDP) AllowRedirect(uri string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.redirectURIs = append(p.redirectURIs, uri)
}

// SetUser sets who the next logins are.
func (p *IDP) SetUser(u User) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.user = u
}

// SetFault makes the tokens minted from now on bad in the given way (NoFault for good ones).
func (p *IDP) SetFault(f Fault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fault = f
}

// SetIssuerClaim makes minted tokens carry iss (another spelling of the issuer, say); "" restores
// the URL.
func (p *IDP) SetIssuerClaim(iss string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.issClaim = iss
}

// SetDeny makes the authorization endpoint answer access_denied, as when a user cancels.
func (p *IDP) SetDeny(deny bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.deny = deny
}

// Rotate makes a new signing key. With keepOld the old key stays published (as real providers
// overlap keys); without, the key set lists only the new one.
func (p *IDP) Rotate(t testing.TB, keepOld bool) {
	t.Helper()
	k := newKey(t)
	p.mu.Lock()
	defer p.mu.Unlock()
	if keepOld {
		p.keys = append([]*signingKey{k}, p.keys...)
	} else {
		p.keys = []*signingKey{k}
	}
}

// JWKSFetches counts requests for the key set.
func (p *IDP) JWKSFetches() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.jwksFetches
}

// TokenCalls counts token requests, and LastTokenError is the error of the last refused one.
func (p *IDP) TokenCalls() (int, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tokenCalls, p.lastTokenErr
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (p *IDP) discovery(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                p.URL,
		"authorization_endpoint":                p.URL + "/authorize",
		"token_endpoint":                        p.URL + "/token",
		"jwks_uri":                              p.URL + "/jwks",
		"response_types_supported":              []string{"code"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"scopes_supported":                      []string{"openid", "email"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post"},
	})
}

func (p *IDP) jwks(w http.ResponseWriter, _ *http.Request) {
	p.mu.Lock()
	p.jwksFetches++
	keys := []map[string]string{}
	for _, k := range p.keys {
		keys = append(keys, map[string]string{"kty": "RSA", "use": "sig", "alg": "RS256", "kid": k.kid,
			"n": b64(k.key.N.Bytes()), "e": b64(big.NewInt(int64(k.key.E)).Bytes())})
	}
	p.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"keys": keys})
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// authorize checks the request as a real provider does — client, exact redirect URI, response
// type, scope, an S256 PKCE challenge — then approves the configured user at once.
func (p *IDP) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p.mu.Lock()
	defer p.mu.Unlock()
	redirect := q.Get("redirect_uri")
	if q.Get("client_id") != p.ClientID || !slices.Contains(p.redirectURIs, redirect) {
		// never redirect to an address not registered for the client
		http.Error(w, "unknown client or unregistered redirect_uri", http.StatusBadRequest)
		return
	}
	back := func(params url.Values) {
		params.Set("state", q.Get("state"))
		params.Set("iss", p.URL) // RFC 9207
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
	case p.deny:
		back(url.Values{"error": {"access_denied"}})
		return
	}
	code := rand.Text()
	p.codes[code] = &grant{clientID: p.ClientID, redirectURI: redirect, challenge: q.Get("code_challenge"),
		nonce: q.Get("nonce"), user: p.user, expires: time.Now().Add(time.Minute)}
	back(url.Values{"code": {code}})
}

// token redeems a code once, for the client it was issued to, with the redirect URI it was issued
// for and the verifier whose S256 hash is the challenge.
func (p *IDP) token(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tokenCalls++
	fail := func(status int, code string) {
		p.lastTokenErr = code
		writeJSON(w, status, map[string]string{"error": code})
	}
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
	if id != p.ClientID || subtle.ConstantTimeCompare([]byte(secret), []byte(p.ClientSecret)) != 1 {
		fail(http.StatusUnauthorized, "invalid_client")
		return
	}
	if r.PostForm.Get("grant_type") != "authorization_code" {
		fail(http.StatusBadRequest, "unsupported_grant_type")
		return
	}
	code := r.PostForm.Get("code")
	g := p.codes[code]
	delete(p.codes, code) // one attempt per code, right or wrong
	if g == nil || time.Now().After(g.expires) || g.clientID != id || g.redirectURI != r.PostForm.Get("redirect_uri") {
		fail(http.StatusBadRequest, "invalid_grant")
		return
	}
	sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	if b64(sum[:]) != g.challenge {
		fail(http.StatusBadRequest, "invalid_grant") // RFC 7636 4.6
		return
	}
	idToken, err := p.mint(g)
	if err != nil {
		fail(http.StatusInternalServerError, "server_error")
		return
	}
	p.lastTokenErr = ""
	writeJSON(w, http.StatusOK, map[string]any{"access_token": rand.Text(), "token_type": "Bearer", "expires_in": 3600, "id_token": idToken})
}

// mint signs the ID token for a grant, spoilt as the current fault says. Called with p.mu held.
func (p *IDP) mint(g *grant) (string, error) {
	now := time.Now()
	claims := jwt.MapClaims{
		"iss": p.URL, "sub": g.user.Subject, "aud": p.ClientID, "azp": p.ClientID,
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "nonce": g.nonce,
		"email": g.user.Email, "email_verified": g.user.EmailVerified,
	}
	if p.issClaim != "" {
		claims["iss"] = p.issClaim
	}
	signer := p.keys[0]
	method := jwt.SigningMethod(jwt.SigningMethodRS256)
	var key any = signer.key
	switch p.fault {
	case ForgedSignature:
		forged, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return "", err
		}
		key = forged
	case Expired:
		claims["iat"], claims["exp"] = now.Add(-3*time.Hour).Unix(), now.Add(-2*time.Hour).Unix()
	case WrongAudience:
		claims["aud"], claims["azp"] = "another-client", "another-client"
	case WrongIssuer:
		claims["iss"] = "https://issuer.invalid"
	case WrongNonce:
		claims["nonce"] = rand.Text()
	case AlgNone:
		method, key = jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType
	case HS256PublicKey:
		der, err := x509.MarshalPKIXPublicKey(&signer.key.PublicKey)
		if err != nil {
			return "", err
		}
		method, key = jwt.SigningMethodHS256, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	case EmailUnverified:
		claims["email_verified"] = false
	case OtherAuthorizedParty:
		claims["aud"], claims["azp"] = []string{p.ClientID, "another-client"}, "another-client"
	}
	tok := jwt.NewWithClaims(method, claims)
	tok.Header["kid"] = signer.kid
	return tok.SignedString(key)
}
