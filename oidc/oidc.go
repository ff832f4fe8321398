// Package oidc is the relying-party side of an OpenID Connect login: discovery of the issuer, the
// authorization-code flow with PKCE, state and nonce, the code exchange (golang.org/x/oauth2), and
// verification of the ID token (golang-jwt/jwt/v5) against the issuer's JWKS, which
// MicahParks/keyfunc fetches, caches and refreshes when a token names a key it has not seen.
//
// It knows nothing of pages or cookies: the caller keeps a Flow's secrets between the redirect to
// the issuer and the callback (the web front, package web/account, keeps them in its signed login cookie).
package oidc

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/oauth2"
	"golang.org/x/time/rate"
)

// GoogleIssuer is the default issuer.
const GoogleIssuer = "https://accounts.google.com"

// googleBareIssuer is the other spelling of Google's iss claim: Google documents that ID tokens
// may carry either, so both are accepted for its issuer.
const googleBareIssuer = "accounts.google.com"

// Failures, for errors.Is. A verification failure also wraps golang-jwt's own error (for instance
// jwt.ErrTokenExpired or jwt.ErrTokenSignatureInvalid), so the log says exactly what was wrong.
var (
	ErrDiscovery        = errors.New("oidc: issuer discovery failed")
	ErrExchange         = errors.New("oidc: code exchange failed")
	ErrToken            = errors.New("oidc: invalid ID token")
	ErrIssuer           = errors.New("oidc: ID token from another issuer")
	ErrNonce            = errors.New("oidc: ID token nonce does not match the login")
	ErrAuthorizedParty  = errors.New("oidc: ID token issued to another client (azp)")
	ErrEmailNotVerified = errors.New("oidc: e-mail address not verified by the issuer")
	ErrNoEmail          = errors.New("oidc: ID token carries no e-mail address (scope email missing?)")
)

// Config configures a Provider. Issuer, ClientID and RedirectURL are required.
type Config struct {
	Issuer       string // e.g. https://accounts.google.com
	ClientID     string
	ClientSecret string
	RedirectURL  string   // registered with the issuer, e.g. https://api.example.com/auth/callback
	Scopes       []string // default openid, email
	// ExtraIssuers are further accepted spellings of the iss claim. Google's bare
	// "accounts.google.com" is added by itself for Google's issuer.
	ExtraIssuers []string
	// Algorithms is the allow-list of ID token signature algorithms, default RS256 (what Google
	// signs with). Never "none" or an HMAC algorithm: a relying party shares no secret key with the
	// issuer, and allowing HS256 would let an attacker sign with the public key.
	Algorithms []string
	HTTPClient *http.Client  // for discovery, JWKS and the token endpoint; default: 10 s timeout
	Leeway     time.Duration // allowed clock skew for exp and iat; default 1 minute
	// JWKSRefresh is how often the key set is fetched again; default 1 hour.
	JWKSRefresh time.Duration
	// UnknownKeyRefresh is the least time between fetches of the key set caused by tokens naming a
	// key id not in the cache (the issuer rotated its keys); default 1 minute. A forged token with a
	// random kid therefore cannot make this server hammer the issuer.
	UnknownKeyRefresh time.Duration
	Now               func() time.Time
}

// Provider is one configured issuer. Discovery happens on first use, not in New, so the server
// starts (and its APIs work) while the issuer is unreachable; a failed discovery is retried after
// a few seconds.
type Provider struct {
	cfg     Config
	issuers []string
	client  *http.Client
	ctx     context.Context // ends the JWKS refresh goroutine
	cancel  context.CancelFunc
	mu      sync.Mutex
	ready   *discovered
	lastErr error
	retryAt time.Time
}

type discovered struct {
	oauth   oauth2.Config
	keyfunc keyfunc.Keyfunc
}

// discoveryRetry is how long a failed discovery is remembered before the next login tries again.
const discoveryRetry = 5 * time.Second

// maxResponse bounds what is read from the issuer.
const maxResponse = 1 << 20

// New checks the configuration; it does not contact the issuer.
func New(cfg Config) (*Provider, error) {
	if cfg.Issuer == "" || cfg.ClientID == "" || cfg.RedirectURL == "" {
		return nil, errors.New("oidc: issuer, client id and redirect URL are required")
	}
	iss, err := url.Parse(cfg.Issuer)
	if err != nil || iss.Host == "" || (iss.Scheme != "https" && !(iss.Scheme == "http" && IsLoopback(iss.Hostname()))) {
		// the discovery document and the keys must come over TLS; plain http only for a test issuer
		return nil, fmt.Errorf("oidc: issuer %q must be an https URL", cfg.Issuer)
	}
	if len(cfg.Scopes) == 0 {
		cfg.Scopes = []string{"openid", "email"}
	}
	if len(cfg.Algorithms) == 0 {
		cfg.Algorithms = []string{"RS256"}
	}
	for _, a := range cfg.Algorithms {
		if a == "none" || strings.HasPrefix(a, "HS") {
			return nil, fmt.Errorf("oidc: signature algorithm %q is not allowed for ID tokens", a)
		}
	}
	if cfg.Leeway == 0 {
		cfg.Leeway = time.Minute
	}
	if cfg.JWKSRefresh == 0 {
		cfg.JWKSRefresh = time.Hour
	}
	if cfg.UnknownKeyRefresh == 0 {
		cfg.UnknownKeyRefresh = time.Minute
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	base := cfg.HTTPClient
	if base == nil {
		base = &http.Client{Timeout: 10 * time.Second}
	}
	client := *base
	client.Transport = limitedTransport{next: base.Transport}
	p := &Provider{cfg: cfg, client: &client}
	p.issuers = append([]string{cfg.Issuer}, cfg.ExtraIssuers...)
	if strings.TrimSuffix(cfg.Issuer, "/") == GoogleIssuer {
		p.issuers = append(p.issuers, googleBareIssuer)
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	return p, nil
}

// Close stops the background refresh of the key set.
func (p *Provider) Close() { p.cancel() }

// Issuer returns the configured issuer.
func (p *Provider) Issuer() string { return p.cfg.Issuer }

// Flow holds the per-login secrets: state ties the callback to the browser that started the
// login (no login CSRF), nonce ties the ID token to it (no token replay), and the PKCE verifier
// ties the code to it (a stolen code is useless). The caller keeps them until the callback.
type Flow struct {
	State    string `json:"s"`
	Nonce    string `json:"n"`
	Verifier string `json:"v"`
}

// NewFlow returns fresh random secrets.
func NewFlow() Flow {
	return Flow{State: rand.Text(), Nonce: rand.Text(), Verifier: oauth2.GenerateVerifier()}
}

// CheckState reports, in constant time, whether the state returned to the callback is the flow's.
func (f Flow) CheckState(state string) bool {
	return f.State != "" && subtle.ConstantTimeCompare([]byte(f.State), []byte(state)) == 1
}

// AcceptsIssuer reports whether iss is one of the accepted spellings of the issuer, for the iss
// parameter of the authorization response (RFC 9207, a defence against mix-up attacks).
func (p *Provider) AcceptsIssuer(iss string) bool { return slices.Contains(p.issuers, iss) }

// AuthURL returns the issuer's authorization address for the flow: code flow, S256 PKCE
// challenge, state and nonce.
func (p *Provider) AuthURL(ctx context.Context, f Flow) (string, error) {
	d, err := p.get(ctx)
	if err != nil {
		return "", err
	}
	return d.oauth.AuthCodeURL(f.State, oauth2.S256ChallengeOption(f.Verifier), oauth2.SetAuthURLParam("nonce", f.Nonce)), nil
}

// Identity is who logged in, as the verified ID token says.
type Identity struct {
	Issuer  string
	Subject string
	Email   string // verified by the issuer
}

// Exchange trades the authorization code for tokens, sending the flow's PKCE verifier, and
// verifies the ID token against the flow's nonce.
func (p *Provider) Exchange(ctx context.Context, f Flow, code string) (Identity, error) {
	d, err := p.get(ctx)
	if err != nil {
		return Identity{}, err
	}
	tok, err := d.oauth.Exchange(context.WithValue(ctx, oauth2.HTTPClient, p.client), code, oauth2.VerifierOption(f.Verifier))
	if err != nil {
		return Identity{}, fmt.Errorf("%w: %w", ErrExchange, err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return Identity{}, fmt.Errorf("%w: the token response has no id_token", ErrExchange)
	}
	return p.verify(ctx, d, raw, f.Nonce)
}

// Verify checks an ID token: signature by a key of the issuer's JWKS with an allowed algorithm,
// issuer, audience, authorized party, expiry, issue time, nonce and a verified e-mail address.
func (p *Provider) Verify(ctx context.Context, rawIDToken, nonce string) (Identity, error) {
	d, err := p.get(ctx)
	if err != nil {
		return Identity{}, err
	}
	return p.verify(ctx, d, rawIDToken, nonce)
}

// idClaims are the ID token claims this service reads.
type idClaims struct {
	jwt.RegisteredClaims
	Nonce         string   `json:"nonce"`
	Email         string   `json:"email"`
	EmailVerified flexBool `json:"email_verified"`
	AZP           string   `json:"azp"`
}

// flexBool reads a JSON boolean, or the strings "true"/"false" that some issuers send.
type flexBool bool

func (b *flexBool) UnmarshalJSON(data []byte) error {
	switch string(data) {
	case "true", `"true"`:
		*b = true
	case "false", `"false"`, "null":
		*b = false
	default:
		return fmt.Errorf("email_verified: want a boolean, got %s", data)
	}
	return nil
}

func (p *Provider) verify(ctx context.Context, d *discovered, raw, nonce string) (Identity, error) {
	var c idClaims
	_, err := jwt.ParseWithClaims(raw, &c, d.keyfunc.KeyfuncCtx(ctx),
		jwt.WithValidMethods(p.cfg.Algorithms), // checked before any key is looked up
		jwt.WithAudience(p.cfg.ClientID),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(p.cfg.Leeway),
		jwt.WithTimeFunc(p.cfg.Now),
	)
	if err != nil {
		return Identity{}, fmt.Errorf("%w: %w", ErrToken, err)
	}
	// jwt.WithIssuer takes one value, and Google's tokens may carry either of two spellings
	if !slices.Contains(p.issuers, c.Issuer) {
		return Identity{}, fmt.Errorf("%w: iss %q", ErrIssuer, c.Issuer)
	}
	// OpenID Connect Core 3.1.3.7: with several audiences azp must be present, and when present it
	// must be this client
	if (len(c.Audience) > 1 && c.AZP == "") || (c.AZP != "" && c.AZP != p.cfg.ClientID) {
		return Identity{}, fmt.Errorf("%w: azp %q, aud %q", ErrAuthorizedParty, c.AZP, c.Audience)
	}
	if nonce == "" || subtle.ConstantTimeCompare([]byte(c.Nonce), []byte(nonce)) != 1 {
		return Identity{}, ErrNonce
	}
	if c.Subject == "" {
		return Identity{}, fmt.Errorf("%w: no sub", ErrToken)
	}
	if c.Email == "" {
		return Identity{}, ErrNoEmail
	}
	if !c.EmailVerified {
		return Identity{}, ErrEmailNotVerified
	}
	return Identity{Issuer: c.Issuer, Subject: c.Subject, Email: c.Email}, nil
}

// get returns the discovered endpoints and key set, discovering them on first use.
func (p *Provider) get(ctx context.Context) (*discovered, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ready != nil {
		return p.ready, nil
	}
	if p.lastErr != nil && p.cfg.Now().Before(p.retryAt) {
		return nil, p.lastErr
	}
	d, err := p.fetchDiscovery(ctx)
	if err != nil {
		if ctx.Err() == nil { // a client that went away says nothing about the issuer
			p.lastErr, p.retryAt = err, p.cfg.Now().Add(discoveryRetry)
		}
		return nil, err
	}
	p.ready = d
	return d, nil
}

// discoveryDoc is the part of the OpenID Provider Metadata this service uses.
type discoveryDoc struct {
	Issuer                string   `json:"issuer"`
	AuthorizationEndpoint string   `json:"authorization_endpoint"`
	TokenEndpoint         string   `json:"token_endpoint"`
	JWKSURI               string   `json:"jwks_uri"`
	CodeChallengeMethods  []string `json:"code_challenge_methods_supported"`
	TokenAuthMethods      []string `json:"token_endpoint_auth_methods_supported"`
}

func (p *Provider) fetchDiscovery(ctx context.Context) (*discovered, error) {
	wellKnown := strings.TrimSuffix(p.cfg.Issuer, "/") + "/.well-known/openid-configuration"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, wellKnown, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDiscovery, err)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDiscovery, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: GET %s: %s", ErrDiscovery, wellKnown, resp.Status)
	}
	var doc discoveryDoc
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrDiscovery, wellKnown, err)
	}
	// OpenID Connect Discovery 4.3: the document's issuer must be exactly the one asked about, or
	// a document served elsewhere could redirect logins to another issuer
	if doc.Issuer != p.cfg.Issuer {
		return nil, fmt.Errorf("%w: the document at %s names issuer %q", ErrDiscovery, wellKnown, doc.Issuer)
	}
	for name, u := range map[string]string{"authorization_endpoint": doc.AuthorizationEndpoint, "token_endpoint": doc.TokenEndpoint, "jwks_uri": doc.JWKSURI} {
		pu, err := url.Parse(u)
		if err != nil || pu.Host == "" || (pu.Scheme != "https" && !(pu.Scheme == "http" && IsLoopback(pu.Hostname()))) {
			return nil, fmt.Errorf("%w: %s %q is not an https URL", ErrDiscovery, name, u)
		}
	}
	if len(doc.CodeChallengeMethods) > 0 && !slices.Contains(doc.CodeChallengeMethods, "S256") {
		return nil, fmt.Errorf("%w: the issuer does not support PKCE with S256", ErrDiscovery)
	}
	style := oauth2.AuthStyleAutoDetect
	switch {
	case len(doc.TokenAuthMethods) == 0 || slices.Contains(doc.TokenAuthMethods, "client_secret_basic"):
		style = oauth2.AuthStyleInHeader // the specification's default method
	case slices.Contains(doc.TokenAuthMethods, "client_secret_post"):
		style = oauth2.AuthStyleInParams
	}
	kf, err := keyfunc.NewDefaultOverrideCtx(p.ctx, []string{doc.JWKSURI}, keyfunc.Override{
		Client:                    p.client,
		HTTPTimeout:               10 * time.Second,
		NoErrorReturnFirstHTTPReq: new(false), // no keys, no logins: fail discovery and retry later
		RefreshInterval:           p.cfg.JWKSRefresh,
		RefreshUnknownKID:         rate.NewLimiter(rate.Every(p.cfg.UnknownKeyRefresh), 1),
		// a token with an unknown kid is refused at once while the limiter is empty, rather than
		// holding the request until the next refresh is allowed
		RateLimitWaitMax: time.Second,
		RefreshErrorHandlerFunc: func(u string) func(context.Context, error) {
			return func(ctx context.Context, err error) {
				slog.WarnContext(ctx, "refresh the issuer's key set", "url", u, "err", err)
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("%w: key set %s: %w", ErrDiscovery, doc.JWKSURI, err)
	}
	return &discovered{
		oauth: oauth2.Config{
			ClientID: p.cfg.ClientID, ClientSecret: p.cfg.ClientSecret, RedirectURL: p.cfg.RedirectURL, Scopes: p.cfg.Scopes,
			Endpoint: oauth2.Endpoint{AuthURL: doc.AuthorizationEndpoint, TokenURL: doc.TokenEndpoint, AuthStyle: style},
		},
		keyfunc: kf,
	}, nil
}

// IsLoopback reports whether host is this machine: localhost or a loopback address. A plain-http
// issuer is accepted only there (a test or development identity provider).
func IsLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// limitedTransport caps every response body read from the issuer, so a broken or hostile
// endpoint cannot make this server read without end.
type limitedTransport struct{ next http.RoundTripper }

func (t limitedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	next := t.next
	if next == nil {
		next = http.DefaultTransport
	}
	resp, err := next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &limitedBody{r: io.LimitReader(resp.Body, maxResponse+1), c: resp.Body}
	return resp, nil
}

type limitedBody struct {
	r io.Reader
	c io.Closer
	n int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.n += int64(n)
	if b.n > maxResponse {
		return n, fmt.Errorf("response from the issuer larger than %d bytes", maxResponse)
	}
	return n, err
}

func (b *limitedBody) Close() error { return b.c.Close() }
