package account

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/hensachi/hensachi/oidc"
)

// cookieRequest carries the cookies a response set.
func cookieRequest(rec *httptest.ResponseRecorder) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	for _, c := range rec.Result().Cookies() {
		r.AddCookie(c)
	}
	return r
}

func TestSessionCookie(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	jar := newCookieJar([]byte("0123456789abcdef0123456789abcdef"), false)
	rec := httptest.NewRecorder()
	jar.setSession(rec, 42, time.Hour, now)
	good := rec.Result().Cookies()[0]
	if s, ok := jar.session(cookieRequest(rec), now); !ok || s.AccountID != 42 {
		t.Fatalf("session = %+v, %v", s, ok)
	}
	if c := rec.Result().Cookies()[0]; c.MaxAge != 3600 || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode {
		t.Errorf("cookie %+v", c)
	}

	other := newCookieJar([]byte("another secret of at least 32 bytes!"), false)
	loginRec := httptest.NewRecorder()
	jar.setLogin(loginRec, oidc.NewFlow(), now)
	loginValue := loginRec.Result().Cookies()[0].Value
	payload, sig, _ := strings.Cut(good.Value, ".")

	cases := []struct {
		name  string
		jar   *cookieJar
		value string
		at    time.Time
		ok    bool
	}{
		{"valid", jar, good.Value, now.Add(59 * time.Minute), true},
		{"expired", jar, good.Value, now.Add(time.Hour), false},
		{"another secret", other, good.Value, now, false},
		{"payload changed", jar, strings.Replace(payload, payload[:4], "eyJh", 1) + "x." + sig, now, false},
		{"signature cut", jar, payload + "." + sig[:10], now, false},
		{"no signature", jar, payload, now, false},
		{"login cookie as session", jar, loginValue, now, false}, // other key, other name
		{"garbage", jar, "%%%.###", now, false},
	}
	for _, c := range cases {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.AddCookie(&http.Cookie{Name: jar.sessionName, Value: c.value})
		if _, ok := c.jar.session(r, c.at); ok != c.ok {
			t.Errorf("%s: session accepted %v, want %v", c.name, ok, c.ok)
		}
	}
}

func TestLoginCookie(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	jar := newCookieJar([]byte("0123456789abcdef0123456789abcdef"), true)
	flow := oidc.NewFlow()
	rec := httptest.NewRecorder()
	jar.setLogin(rec, flow, now)
	c := rec.Result().Cookies()[0]
	if c.Name != "__Host-hensachi_login" || !c.Secure || c.MaxAge != int(loginTTL/time.Second) {
		t.Errorf("login cookie %+v", c)
	}
	for _, tc := range []struct {
		name string
		at   time.Time
		ok   bool
	}{{"in time", now.Add(loginTTL - time.Second), true}, {"too late", now.Add(loginTTL), false}} {
		out := httptest.NewRecorder()
		got, ok := jar.takeLogin(out, cookieRequest(rec), tc.at)
		if ok != tc.ok || (ok && got != flow) {
			t.Errorf("%s: %+v, %v", tc.name, got, ok)
		}
		// taking the login clears its cookie either way
		if cl := out.Result().Cookies(); len(cl) != 1 || cl[0].MaxAge >= 0 {
			t.Errorf("%s: cookies set %v", tc.name, cl)
		}
	}
}

func TestCSRFToken(t *testing.T) {
	jar := newCookieJar([]byte("0123456789abcdef0123456789abcdef"), false)
	a, b := session{AccountID: 1, ID: "a"}, session{AccountID: 1, ID: "b"}
	tok := jar.csrfToken(a)
	if !jar.checkCSRF(a, tok) || jar.checkCSRF(b, tok) || jar.checkCSRF(a, "") || jar.checkCSRF(a, tok[:len(tok)-1]) {
		t.Error("CSRF token check")
	}
}

func TestAddrLimiter(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	l := newAddrLimiter(rate.Every(time.Second), 2, 3)
	for i, want := range []bool{true, true, false} {
		if ok, _ := l.allow("a", now); ok != want {
			t.Errorf("request %d: %v", i+1, ok)
		}
	}
	if ok, wait := l.allow("a", now); ok || wait <= 0 || wait > time.Second {
		t.Errorf("refused request waits %s", wait)
	}
	if ok, _ := l.allow("a", now.Add(time.Second)); !ok {
		t.Error("no token after the refill")
	}
	// the map stays bounded: idle addresses make way for new ones
	l.allow("b", now)
	l.allow("c", now)
	l.allow("d", now.Add(10*time.Second))
	if len(l.buckets) > 3 {
		t.Errorf("%d buckets, max 3", len(l.buckets))
	}
	if _, ok := l.buckets["d"]; !ok {
		t.Error("the new address has no bucket")
	}
}

func TestClientAddr(t *testing.T) {
	cases := []struct {
		remote, header, value, want string
	}{
		{"192.0.2.1:5555", "", "", "192.0.2.1"},
		{"192.0.2.1:5555", "", "198.51.100.7", "192.0.2.1"}, // the header is not trusted unless named
		{"192.0.2.1:5555", "X-Forwarded-For", "6.6.6.6, 198.51.100.7", "198.51.100.7"},
		{"192.0.2.1:5555", "X-Real-IP", "198.51.100.8", "198.51.100.8"},
		{"192.0.2.1:5555", "X-Real-IP", "", "192.0.2.1"},
		{"[2001:db8:1:2:3:4:5:6]:443", "", "", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:ffff::1]:443", "", "", "2001:db8:1:2::/64"},
	}
	for _, c := range cases {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = c.remote
		if c.value != "" {
			r.Header.Set(c.header, c.value)
			if c.header == "" {
				r.Header.Set("X-Forwarded-For", c.value)
			}
		}
		if got := clientAddr(r, c.header); got != c.want {
			t.Errorf("clientAddr(%s, %s: %s) = %s, want %s", c.remote, c.header, c.value, got, c.want)
		}
	}
}
