package account

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/browsertest"
)

// TestBrowserDevLogin drives Chromium through the development login as a newcomer on a fresh
// machine does after `make serve`: the login page and the provider's page both say "development
// only", the provider's form logs in as the address typed, the key is the account's (usable on
// the API) and the account page shows a call.
func TestBrowserDevLogin(t *testing.T) {
	env := newDevLoginEnv(t, nil)
	c := browsertest.New(t, 30*time.Second)
	shot := browsertest.Shot

	c.Do("open the login page", chromedp.Navigate(env.URL+"/login"), chromedp.WaitVisible(chromedp.ID("dev-login")), shot("dev-1-login"))
	if banner := c.Text("dev-login"); !strings.HasPrefix(banner, "開発用です。") {
		t.Errorf("login page banner %q", banner)
	}
	c.Do("to the development provider", chromedp.Click(chromedp.ID("login")), chromedp.WaitVisible(chromedp.ID("dev-banner")), shot("dev-2-provider"))
	if banner := c.Text("dev-banner"); !strings.HasPrefix(banner, "Development only — not a real identity provider.") {
		t.Errorf("provider banner %q", banner)
	}
	c.Widths("dev-2-provider")
	suggested, err := chromedp.Run(c.Ctx, chromedp.Value(chromedp.ID("email")))
	if err != nil || suggested != "dev@localhost.test" {
		t.Errorf("suggested address %q, %v", suggested, err)
	}
	c.Do("log in as another address",
		chromedp.Clear(chromedp.ID("email")), chromedp.SendKeys(chromedp.ID("email"), "newcomer@localhost.test"),
		chromedp.Click(chromedp.ID("approve")), chromedp.WaitVisible(chromedp.ID("api-key")), shot("dev-3-key"))
	key := c.Text("api-key")
	if !hensachi.CheckAPIKey(key) {
		t.Fatalf("key page shows %q", key)
	}
	if !env.usedOnAPI(t, key, "newcomer@localhost.test") {
		t.Fatalf("the key shown is not newcomer@localhost.test's active key")
	}
	c.Do("account page", chromedp.Click(chromedp.ID("to-account")), chromedp.WaitVisible(chromedp.ID("used-town")), shot("dev-4-account"))
	if email, used := c.Text("email"), c.Text("used-town"); email != "newcomer@localhost.test" || used != "1" {
		t.Errorf("account page: %s used %s", email, used)
	}
}

// TestBrowserDemo is the account side of a newcomer's walk through the site after `make serve`
// (web/site's TestBrowserSite walks the public pages): the face demo asks to log in, the
// development provider logs in, the key is shown, and the demo analyses a photo and counts the
// call. Set SCREENSHOT_DIR to keep a screenshot of each page.
func TestBrowserDemo(t *testing.T) {
	env := newDevLoginEnv(t, withFaces(t))
	photo := scutPhoto(t, "CF100.jpg")
	c := browsertest.New(t, 90*time.Second)
	shot := browsertest.Shot

	c.Do("demo asks to log in", chromedp.Navigate(env.URL+"/demo/face"), chromedp.WaitVisible(chromedp.ID("demo-login")))
	c.Do("log in with the development provider", chromedp.Click(chromedp.CSS(`#demo-login a`)), chromedp.WaitVisible(chromedp.ID("login")),
		chromedp.Click(chromedp.ID("login")), chromedp.WaitVisible(chromedp.ID("dev-banner")),
		chromedp.Click(chromedp.ID("approve")), chromedp.WaitVisible(chromedp.ID("api-key")), shot("site-7-key"))
	key := c.Text("api-key")
	if !env.usedOnAPI(t, key, "dev@localhost.test") {
		t.Fatalf("the new key %q is not dev@localhost.test's active key", key)
	}
	c.Do("face demo", chromedp.Navigate(env.URL+"/demo/face"), chromedp.WaitVisible(chromedp.ID("file")), shot("site-8-demo"),
		chromedp.SetUploadFiles(chromedp.ID("file"), []string{photo}), chromedp.Click(chromedp.ID("analyse")),
		chromedp.WaitVisible(chromedp.ID("faces")), shot("site-9-demo-result"))
	if faces := c.Text("faces"); !strings.Contains(faces, "女性") {
		t.Errorf("demo result table: %q", faces)
	}
	if used := c.Text("face-used"); used != "1" {
		t.Errorf("face calls after the demo: %q", used)
	}
}
