package serve

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hensachi/hensachi"
)

// TestBrowserNewcomer drives a real Chromium through a newcomer's first visit: log in at the test
// identity provider, see the key once, get it by mail, use it on the statistics API, see the call
// on the account page, rotate the key and log out. Set SCREENSHOT_DIR to keep screenshots.
func TestBrowserNewcomer(t *testing.T) {
	env := newLoginEnv(t)
	c := newChromium(t, 30*time.Second)
	do, text, ctx := c.do, c.text, c.ctx

	do("open the login page", chromedp.Navigate(env.URL+"/login"), chromedp.WaitVisible(chromedp.ID("login")), shot("1-login"))
	terms, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("p.note")))
	if err != nil || !strings.Contains(terms, termsVersion) {
		t.Errorf("login page terms notice %q, %v", terms, err)
	}
	// to the provider, which approves at once and sends the browser back to the callback
	do("log in", chromedp.Click(chromedp.ID("login")), chromedp.WaitVisible(chromedp.ID("api-key")), shot("2-key"))
	key, mailStatus := text("api-key"), text("mail-status")
	if !hensachi.CheckAPIKey(key) || !strings.Contains(mailStatus, "sent to newcomer@example.com") {
		t.Fatalf("key page: key %q, mail status %q", key, mailStatus)
	}
	mailed, _ := env.mailedKey(t, "newcomer@example.com")
	if mailed != key {
		t.Fatalf("mailed %s, shown %s", mailed, key)
	}

	// the newcomer uses the mailed key
	if status, e, _ := env.call(t, mailed); status != http.StatusOK || e.Usage.UsedToday != 1 {
		t.Fatalf("GET /town/v1/meta with the mailed key: %d %+v", status, e.Usage)
	}

	do("account page", chromedp.Click(chromedp.ID("to-account")), chromedp.WaitVisible(chromedp.ID("used-town")), shot("3-account"))
	if used, limit, hint := text("used-town"), text("limit-town"), text("key-hint"); used != "1" || limit != "100" || !strings.Contains(hint, key[len(key)-4:]) {
		t.Errorf("account page: used %q of %q, key hint %q", used, limit, hint)
	}

	do("rotate", chromedp.Click(chromedp.ID("rotate")), chromedp.WaitVisible(chromedp.ID("api-key")))
	newKey := text("api-key")
	if remailed, _ := env.mailedKey(t, "newcomer@example.com"); remailed != newKey || newKey == key {
		t.Errorf("rotation: shown %s, mailed %s, old %s", newKey, remailed, key)
	}
	if status, _, code := env.call(t, key); status != http.StatusForbidden || code != hensachi.ERevokedAPIKey {
		t.Errorf("old key after rotation: %d %s", status, code)
	}

	do("log out",
		chromedp.Click(chromedp.ID("to-account")), chromedp.WaitVisible(chromedp.ID("logout")),
		chromedp.Click(chromedp.ID("logout")), chromedp.WaitVisible(chromedp.ID("login")),
		chromedp.Navigate(env.URL+"/account"), chromedp.WaitVisible(chromedp.ID("login")), // logged out: the login page
	)
	if title := c.title(); !strings.HasPrefix(title, "Log in") {
		t.Errorf("after logout the account page shows %q", title)
	}
}

// TestBrowserDevLogin drives Chromium through the development login as a newcomer on a fresh
// machine does after `make serve`: the login page and the provider's page both say "development
// only", the provider's form logs in as the address typed, the key works on the API and the
// account page shows the call.
func TestBrowserDevLogin(t *testing.T) {
	env := newDevLoginEnv(t)
	c := newChromium(t, 30*time.Second)

	c.do("open the login page", chromedp.Navigate(env.URL+"/login"), chromedp.WaitVisible(chromedp.ID("dev-login")), shot("dev-1-login"))
	if banner := c.text("dev-login"); !strings.HasPrefix(banner, "Development only.") {
		t.Errorf("login page banner %q", banner)
	}
	c.do("to the development provider", chromedp.Click(chromedp.ID("login")), chromedp.WaitVisible(chromedp.ID("dev-banner")), shot("dev-2-provider"))
	if banner := c.text("dev-banner"); !strings.HasPrefix(banner, "Development only — not a real identity provider.") {
		t.Errorf("provider banner %q", banner)
	}
	suggested, err := chromedp.Run(c.ctx, chromedp.Value(chromedp.ID("email")))
	if err != nil || suggested != "dev@localhost.test" {
		t.Errorf("suggested address %q, %v", suggested, err)
	}
	c.do("log in as another address",
		chromedp.Clear(chromedp.ID("email")), chromedp.SendKeys(chromedp.ID("email"), "newcomer@localhost.test"),
		chromedp.Click(chromedp.ID("approve")), chromedp.WaitVisible(chromedp.ID("api-key")), shot("dev-3-key"))
	key := c.text("api-key")
	if !hensachi.CheckAPIKey(key) {
		t.Fatalf("key page shows %q", key)
	}
	if status, e, _ := env.call(t, key); status != http.StatusOK || e.Usage.UsedToday != 1 {
		t.Fatalf("GET /town/v1/meta with the key: %d %+v", status, e.Usage)
	}
	c.do("account page", chromedp.Click(chromedp.ID("to-account")), chromedp.WaitVisible(chromedp.ID("used-town")), shot("dev-4-account"))
	if email, used := c.text("email"), c.text("used-town"); email != "newcomer@localhost.test" || used != "1" {
		t.Errorf("account page: %s used %s", email, used)
	}
}
