// Package testidp is an OpenID Connect identity provider for tests: the development provider
// (package devidp: its own RSA keys, discovery, JWKS, the token endpoint's checks of client,
// redirect URI and PKCE verifier) on an httptest server, with an authorization endpoint that
// approves a configured user at once. Knobs mint bad tokens (forged, expired, wrong audience,
// issuer or nonce, alg none, HS256 with the public key, unverified e-mail), deny a login, and
// rotate the signing key; counters say what the relying party asked for.
package testidp

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/hensachi/hensachi/devidp"
)

// User is who the provider logs in.
type User = devidp.User

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

	idp *devidp.Provider

	mu           sync.Mutex
	user         User
	fault        Fault
	issClaim     string // iss of minted tokens when not the URL
	deny         bool
	jwksFetches  int
	tokenCalls   int
	lastTokenErr string
}

// New starts a provider for one client; it stops when the test ends.
func New(t testing.TB, clientID, clientSecret string) *IDP {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil) // listening already, so the issuer is known
	p := &IDP{URL: "http://" + srv.Listener.Addr().String(), ClientID: clientID, ClientSecret: clientSecret,
		user: User{Subject: "1001", Email: "newcomer@example.com", EmailVerified: true}}
	var err error
	p.idp, err = devidp.New(devidp.Config{Issuer: p.URL, ClientID: clientID, ClientSecret: clientSecret,
		Approve: p.approve, Sign: p.sign})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = p.observe(p.idp)
	srv.Start()
	t.Cleanup(srv.Close)
	return p
}

// AllowRedirect registers a redirect URI of the client.
func (p *IDP) AllowRedirect(uri string) { p.idp.AllowRedirect(uri) }

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
	if err := p.idp.RotateKey(keepOld); err != nil {
		t.Fatal(err)
	}
}

// JWKSFetches counts requests for the key set.
func (p *IDP) JWKSFetches() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.jwksFetches
}

// TokenCalls returns how many token requests came and the error of the last refused one.
func (p *IDP) TokenCalls() (int, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tokenCalls, p.lastTokenErr
}

// approve answers every authorization request at once with the configured user, or denies it.
func (p *IDP) approve() (User, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.user, !p.deny
}

// observe counts key set and token requests, and keeps the error code of the last token answer.
func (p *IDP) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/jwks":
			p.mu.Lock()
			p.jwksFetches++
			p.mu.Unlock()
		case "/token":
			rec := &bodyRecorder{ResponseWriter: w}
			next.ServeHTTP(rec, r)
			var answer struct{ Error string }
			json.Unmarshal(rec.body.Bytes(), &answer)
			p.mu.Lock()
			p.tokenCalls++
			p.lastTokenErr = answer.Error
			p.mu.Unlock()
			return
		}
		next.ServeHTTP(w, r)
	})
}

type bodyRecorder struct {
	http.ResponseWriter
	body bytes.Buffer
}

func (r *bodyRecorder) Write(b []byte) (int, error) {
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}

// sign signs an ID token, spoilt as the current fault says.
func (p *IDP) sign(claims jwt.MapClaims, signer *devidp.SigningKey) (string, error) {
	p.mu.Lock()
	fault, iss := p.fault, p.issClaim
	p.mu.Unlock()
	if iss != "" {
		claims["iss"] = iss
	}
	now := time.Now()
	switch fault {
	case ForgedSignature:
		forged, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return "", err
		}
		return signWith(jwt.SigningMethodRS256, forged, signer.ID, claims)
	case Expired:
		claims["iat"], claims["exp"] = now.Add(-3*time.Hour).Unix(), now.Add(-2*time.Hour).Unix()
	case WrongAudience:
		claims["aud"], claims["azp"] = "another-client", "another-client"
	case WrongIssuer:
		claims["iss"] = "https://issuer.invalid"
	case WrongNonce:
		claims["nonce"] = rand.Text()
	case AlgNone:
		return signWith(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, signer.ID, claims)
	case HS256PublicKey:
		der, err := x509.MarshalPKIXPublicKey(signer.PublicKey())
		if err != nil {
			return "", err
		}
		return signWith(jwt.SigningMethodHS256, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), signer.ID, claims)
	case EmailUnverified:
		claims["email_verified"] = false
	case OtherAuthorizedParty:
		claims["aud"], claims["azp"] = []string{p.ClientID, "another-client"}, "another-client"
	}
	return signer.Sign(claims)
}

// signWith signs with another method or key than the provider's, under the published key id.
func signWith(method jwt.SigningMethod, key any, kid string, claims jwt.MapClaims) (string, error) {
	tok := jwt.NewWithClaims(method, claims)
	tok.Header["kid"] = kid
	return tok.SignedString(key)
}
