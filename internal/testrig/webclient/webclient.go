// Package webclient is the tests' HTTP browser for the account pages (web/account, served alone
// or by serve and cmd/hensachi): a cookie-keeping client that follows redirects only when asked,
// so that each step of a login can be looked at or tampered with; the key and CSRF token read
// from a page and the key read from a mail; the two logins a test walks, through a test identity
// provider that approves at once (CallbackURL, Login) and through the development provider's form
// (DevLogin); and the outside services of the first (Providers: testidp, and testsmtp with a
// mailer logged in to it).
package webclient

import (
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/testsmtp"
)

// Browser is a cookie-keeping HTTP client that does not follow redirects by itself. Its methods
// end the test on a transport error.
type Browser struct {
	t      testing.TB
	Client *http.Client // its Jar holds the cookies, for a test that tampers with them
}

// New returns a browser with no cookies.
func New(t testing.TB) *Browser {
	jar, _ := cookiejar.New(nil)
	return &Browser{t: t, Client: &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// Page is a response as the browser got it, the body read.
type Page struct {
	Status int
	URL    string // the address requested
	Header http.Header
	Body   string
}

// Do sends req and reads the response.
func (b *Browser) Do(req *http.Request) Page {
	b.t.Helper()
	resp, err := b.Client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return Page{Status: resp.StatusCode, URL: req.URL.String(), Header: resp.Header, Body: string(body)}
}

// Get gets u, without following a redirect.
func (b *Browser) Get(u string) Page {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	return b.Do(req)
}

// Post posts form to u as a form does, with header's name and value pairs set, without following
// a redirect.
func (b *Browser) Post(u string, form url.Values, header ...string) Page {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return b.Do(req)
}

// Follow gets u and follows redirects, as a browser does, until a page that is not one.
func (b *Browser) Follow(u string) Page {
	b.t.Helper()
	for range 10 {
		p := b.Get(u)
		if !redirect(p) {
			return p
		}
		u = b.next(p)
	}
	b.t.Fatal("too many redirects")
	return Page{}
}

func redirect(p Page) bool { return p.Status >= 300 && p.Status <= 399 }

// next is the address p redirects to.
func (b *Browser) next(p Page) string {
	b.t.Helper()
	next, err := url.Parse(p.Header.Get("Location"))
	if err != nil {
		b.t.Fatal(err)
	}
	base, _ := url.Parse(p.URL)
	return base.ResolveReference(next).String()
}

// CallbackURL runs a login at the pages on baseURL up to the identity provider's redirect back,
// without visiting it: the provider must approve at once, as testidp does.
func (b *Browser) CallbackURL(baseURL string) string {
	b.t.Helper()
	start := b.Get(baseURL + "/login/start")
	if start.Status != http.StatusSeeOther {
		b.t.Fatalf("/login/start: %d %s", start.Status, start.Body)
	}
	back := b.Get(start.Header.Get("Location"))
	if back.Status != http.StatusFound {
		b.t.Fatalf("provider: %d %s", back.Status, back.Body)
	}
	return back.Header.Get("Location")
}

// Login logs a new browser in at the pages on baseURL through a provider that approves at once,
// as email, and returns it with the key the first login shows, which must be the key mailed to
// email (see MailedKey).
func Login(t testing.TB, baseURL string, mails *testsmtp.Server, email string) (*Browser, string) {
	t.Helper()
	b := New(t)
	key := KeyFrom(t, b.Follow(b.CallbackURL(baseURL)))
	if mailed, _ := MailedKey(t, mails, email); mailed != key {
		t.Fatalf("mailed %s, shown %s", mailed, key)
	}
	return b, key
}

var (
	formTag     = regexp.MustCompile(`<form method="post" action="([^"]+)">`)
	hiddenInput = regexp.MustCompile(`<input type="hidden" name="([a-z_]+)" value="([^"]*)">`)
)

// DevLogin logs in at the pages on baseURL through the development provider (devidp) as a person
// does: "Log in" (/login/start) leads, redirects followed, to the provider's page, whose form is
// posted with email typed in; redirects followed, that ends on the pages' key page for a new
// account. It returns the provider's page and the page the login ends on.
func (b *Browser) DevLogin(baseURL, email string) (provider, end Page) {
	b.t.Helper()
	provider = b.Follow(baseURL + "/login/start")
	if !strings.Contains(provider.Body, "Development only — not a real identity provider") {
		b.t.Fatalf("the login does not lead to the development provider (%d %s):\n%s", provider.Status, provider.URL, provider.Body)
	}
	action := formTag.FindStringSubmatch(provider.Body)
	if action == nil {
		b.t.Fatalf("no form on the provider's page:\n%s", provider.Body)
	}
	values := url.Values{"email": {email}}
	for _, m := range hiddenInput.FindAllStringSubmatch(provider.Body, -1) {
		values.Set(m[1], html.UnescapeString(m[2]))
	}
	base, _ := url.Parse(provider.URL)
	target, err := base.Parse(html.UnescapeString(action[1]))
	if err != nil {
		b.t.Fatal(err)
	}
	end = b.Post(target.String(), values)
	if redirect(end) {
		end = b.Follow(b.next(end))
	}
	return provider, end
}

var (
	keyOnPage = regexp.MustCompile(`<code id="api-key" class="key">(hsk_[0-9A-Za-z]{38})</code>`)
	csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
	// AnyKey matches an API key anywhere, for checking that a page or mail shows none.
	AnyKey = regexp.MustCompile(`hsk_[0-9A-Za-z]{38}`)
)

// KeyFrom is the key a page shows in its key box (a first login's or a rotation's), ending the
// test when there is none.
func KeyFrom(t testing.TB, p Page) string {
	t.Helper()
	m := keyOnPage.FindStringSubmatch(p.Body)
	if m == nil || !hensachi.CheckAPIKey(m[1]) {
		t.Fatalf("no key on the page (%d %s):\n%s", p.Status, p.URL, p.Body)
	}
	return m[1]
}

// CSRFFrom is the CSRF token of the first form on a page, ending the test when there is none.
func CSRFFrom(t testing.TB, p Page) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(p.Body)
	if m == nil {
		t.Fatalf("no CSRF token on the page (%d):\n%s", p.Status, p.Body)
	}
	return m[1]
}

// MailedKey waits for the next mail at mails and returns the key in it. The mail must go to to
// alone, over TLS, from a client logged in as the server's user.
func MailedKey(t testing.TB, mails *testsmtp.Server, to string) (string, testsmtp.Message) {
	t.Helper()
	m := mails.Next(t, 10*time.Second)
	if len(m.To) != 1 || m.To[0] != to || !m.TLS || m.AuthUser != mails.Username() {
		t.Errorf("mail to %v, TLS %v, login %q", m.To, m.TLS, m.AuthUser)
	}
	body, err := m.Text()
	if err != nil {
		t.Fatal(err)
	}
	key := AnyKey.FindString(body)
	if key == "" {
		t.Fatalf("no key in the mail:\n%s", body)
	}
	return key, m
}
