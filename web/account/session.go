package account

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/hensachi/hensachi/oidc"
)

// Browser state lives in two signed cookies and nothing on the server:
//
//   - the login cookie carries a login's state, nonce and PKCE verifier from /login/start to
//     /auth/callback (10 minutes, used once);
//   - the session cookie carries the account id and a random session id for SessionTTL; the CSRF
//     token of the account page's forms is an HMAC of that session id;
//   - the new-key cookie carries a key just issued from the login callback or the rotation, which
//     redirect to /account/key, to the one showing of that page (two minutes, used once,
//     encrypted as well as authenticated): so the key is shown at an address that a reload, or
//     the browser's history, leads to harmlessly (the account page) rather than to a spent
//     callback or a second rotation.
//
// Each purpose has its own key derived from the session secret, and the MAC covers the cookie's
// name, so no cookie can be passed off as another. Both are HttpOnly, SameSite=Lax (the callback
// is a top-level navigation from the identity provider, which Lax lets through), and, when the
// public URL is https, Secure with the __Host- prefix (no Domain, Path=/: a sibling subdomain
// cannot plant one).
type cookieJar struct {
	secure                             bool
	sessionKey, loginKey, csrfK        []byte
	newKey                             cipher.AEAD
	sessionName, loginName, newKeyName string
}

func newCookieJar(secret []byte, secure bool) *cookieJar {
	derive := func(purpose string) []byte {
		m := hmac.New(sha256.New, secret)
		m.Write([]byte("hensachi/" + purpose + "/v1"))
		return m.Sum(nil)
	}
	block, _ := aes.NewCipher(derive("new-key")) // 32 bytes: AES-256, which cannot fail
	aead, _ := cipher.NewGCM(block)
	j := &cookieJar{secure: secure, sessionKey: derive("session"), loginKey: derive("login"), csrfK: derive("csrf"),
		newKey: aead, sessionName: "hensachi_session", loginName: "hensachi_login", newKeyName: "hensachi_new_key"}
	if secure {
		j.sessionName, j.loginName, j.newKeyName = "__Host-"+j.sessionName, "__Host-"+j.loginName, "__Host-"+j.newKeyName
	}
	return j
}

// issuedKey is the content of the new-key cookie: a key just issued, and whether its mail went.
type issuedKey struct {
	AccountID int64  `json:"a"`
	Key       string `json:"k"`
	First     bool   `json:"f"`
	Mailed    bool   `json:"m"`
	Expires   int64  `json:"exp"`
}

const issuedKeyTTL = 2 * time.Minute

// setIssuedKey keeps a new key, encrypted, for the key page the browser is sent to next.
func (j *cookieJar) setIssuedKey(w http.ResponseWriter, k issuedKey, now time.Time) {
	k.Expires = now.Add(issuedKeyTTL).Unix()
	plain, _ := json.Marshal(k)
	nonce := make([]byte, j.newKey.NonceSize())
	rand.Read(nonce)
	sealed := j.newKey.Seal(nonce, nonce, plain, []byte(j.newKeyName))
	j.set(w, j.newKeyName, base64.RawURLEncoding.EncodeToString(sealed), issuedKeyTTL)
}

// takeIssuedKey returns the key kept for the session's account and clears its cookie: it is
// shown once.
func (j *cookieJar) takeIssuedKey(w http.ResponseWriter, r *http.Request, s session, now time.Time) (issuedKey, bool) {
	c, err := r.Cookie(j.newKeyName)
	if err != nil {
		return issuedKey{}, false
	}
	j.clear(w, j.newKeyName)
	sealed, err := base64.RawURLEncoding.DecodeString(c.Value)
	if err != nil || len(sealed) < j.newKey.NonceSize() {
		return issuedKey{}, false
	}
	n := j.newKey.NonceSize()
	plain, err := j.newKey.Open(nil, sealed[:n], sealed[n:], []byte(j.newKeyName))
	var k issuedKey
	if err != nil || json.Unmarshal(plain, &k) != nil || k.AccountID != s.AccountID || now.Unix() >= k.Expires {
		return issuedKey{}, false
	}
	return k, true
}

// session is the content of the session cookie.
type session struct {
	AccountID int64  `json:"a"`
	ID        string `json:"sid"`
	Expires   int64  `json:"exp"`
}

// loginState is the content of the login cookie.
type loginState struct {
	oidc.Flow
	Expires int64 `json:"exp"`
}

const loginTTL = 10 * time.Minute

func (j *cookieJar) seal(key []byte, name string, v any) string {
	payload, _ := json.Marshal(v)
	p := base64.RawURLEncoding.EncodeToString(payload)
	return p + "." + base64.RawURLEncoding.EncodeToString(mac(key, name, p))
}

func mac(key []byte, name, payload string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(name + "|" + payload))
	return m.Sum(nil)
}

// open verifies a sealed value and decodes it into v; false for anything forged or malformed.
func (j *cookieJar) open(key []byte, name, value string, v any) bool {
	p, sig, ok := strings.Cut(value, ".")
	if !ok {
		return false
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, mac(key, name, p)) {
		return false
	}
	payload, err := base64.RawURLEncoding.DecodeString(p)
	return err == nil && json.Unmarshal(payload, v) == nil
}

func (j *cookieJar) set(w http.ResponseWriter, name, value string, maxAge time.Duration) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: "/", MaxAge: int(maxAge / time.Second),
		HttpOnly: true, Secure: j.secure, SameSite: http.SameSiteLaxMode})
}

func (j *cookieJar) clear(w http.ResponseWriter, name string) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: j.secure, SameSite: http.SameSiteLaxMode})
}

func (j *cookieJar) setLogin(w http.ResponseWriter, f oidc.Flow, now time.Time) {
	j.set(w, j.loginName, j.seal(j.loginKey, j.loginName, loginState{Flow: f, Expires: now.Add(loginTTL).Unix()}), loginTTL)
}

// takeLogin returns the login in progress and clears its cookie: a login cookie serves one
// callback, right or wrong.
func (j *cookieJar) takeLogin(w http.ResponseWriter, r *http.Request, now time.Time) (oidc.Flow, bool) {
	c, err := r.Cookie(j.loginName)
	if err != nil {
		return oidc.Flow{}, false
	}
	j.clear(w, j.loginName)
	var ls loginState
	if !j.open(j.loginKey, j.loginName, c.Value, &ls) || now.Unix() >= ls.Expires {
		return oidc.Flow{}, false
	}
	return ls.Flow, true
}

func (j *cookieJar) setSession(w http.ResponseWriter, accountID int64, ttl time.Duration, now time.Time) {
	s := session{AccountID: accountID, ID: rand.Text(), Expires: now.Add(ttl).Unix()}
	j.set(w, j.sessionName, j.seal(j.sessionKey, j.sessionName, s), ttl)
}

// session returns the request's valid, unexpired session.
func (j *cookieJar) session(r *http.Request, now time.Time) (session, bool) {
	c, err := r.Cookie(j.sessionName)
	if err != nil {
		return session{}, false
	}
	var s session
	if !j.open(j.sessionKey, j.sessionName, c.Value, &s) || now.Unix() >= s.Expires || s.AccountID == 0 || s.ID == "" {
		return session{}, false
	}
	return s, true
}

// csrfToken is the token the session's forms carry.
func (j *cookieJar) csrfToken(s session) string {
	m := hmac.New(sha256.New, j.csrfK)
	m.Write([]byte(s.ID))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (j *cookieJar) checkCSRF(s session, token string) bool {
	return token != "" && hmac.Equal([]byte(token), []byte(j.csrfToken(s)))
}
