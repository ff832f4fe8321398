package serve_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/browsertest"
	"github.com/hensachi/hensachi/internal/testrig/webclient"
)

// TestBrowserNewcomer drives a real Chromium through a newcomer's first visit: log in at the test
// identity provider, see the key once, get it by mail, use it on the statistics API, see the call
// on the account page, rotate the key and log out. Set SCREENSHOT_DIR to keep screenshots.
//
// It stays in serve, beside TestLoginKeyOnAPI, rather than moving to web/account with the other
// browser tests of the pages: it is an end-to-end test of the whole server, whose assertions
// cross from the pages to the API and back (the key shown works on the API, the account page shows
// the call the API counted, the rotated key is refused by the API at once despite the key cache).
// Those need the real router, quota and key cache, which app.Build (the wiring cmd/hensachi's Main
// uses) gives in-process, with the test identity provider and SMTP server of newLoginEnv; cmd/hensachi's tests run the command as a process, configured by flags,
// and add nothing to this path but the flag parsing they test themselves.
func TestBrowserNewcomer(t *testing.T) {
	env := newLoginEnv(t)
	c := browsertest.New(t, 30*time.Second)
	do, text, ctx, shot := c.Do, c.Text, c.Ctx, browsertest.Shot

	do("open the login page", chromedp.Navigate(env.URL+"/login"), chromedp.WaitVisible(chromedp.ID("login")), shot("1-login"))
	terms, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("p.note")))
	if err != nil || !strings.Contains(terms, termsVersion) {
		t.Errorf("login page terms notice %q, %v", terms, err)
	}
	// to the provider, which approves at once and sends the browser back to the callback
	do("log in", chromedp.Click(chromedp.ID("login")), chromedp.WaitVisible(chromedp.ID("api-key")), shot("2-key"))
	key, mailStatus := text("api-key"), text("mail-status")
	if !hensachi.CheckAPIKey(key) || !strings.Contains(mailStatus, "newcomer@example.com にもメールで送りました") {
		t.Fatalf("key page: key %q, mail status %q", key, mailStatus)
	}
	mailed, _ := webclient.MailedKey(t, env.smtp, "newcomer@example.com")
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
	if remailed, _ := webclient.MailedKey(t, env.smtp, "newcomer@example.com"); remailed != newKey || newKey == key {
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
	if title := c.Title(); !strings.HasPrefix(title, "ログイン") {
		t.Errorf("after logout the account page shows %q", title)
	}
}
