package serve

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hensachi/hensachi"
)

// chromiumPath is Debian's Chromium, which .ci/run installs.
const chromiumPath = "/usr/bin/chromium"

// TestBrowserNewcomer drives a real Chromium through a newcomer's first visit: log in at the test
// identity provider, see the key once, get it by mail, use it on the statistics API, see the call
// on the account page, rotate the key and log out. Set SCREENSHOT_DIR to keep screenshots.
func TestBrowserNewcomer(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Chromium missing under CI (.ci/run installs the chromium package): %v", err)
		}
		t.Skipf("Chromium missing (%v): apt-get install chromium; CI=true makes this a failure", err)
	}
	env := newLoginEnv(t)

	// The flags this machine's closed network needs: without the background-networking ones
	// Chromium keeps trying to reach Google's hosts.
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1000, 900))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	browserCtx, cancelBrowser := chromedp.NewContext(alloc)
	defer cancelBrowser()
	if err := chromedp.Do(browserCtx); err != nil { // starts the browser; a timeout here would end it
		t.Fatalf("start Chromium: %v", err)
	}
	ctx, cancel := context.WithTimeout(browserCtx, 30*time.Second)
	defer cancel()
	do := func(step string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
	text := func(id string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID(id)))
		if err != nil {
			t.Fatalf("text of #%s: %v", id, err)
		}
		return strings.TrimSpace(v)
	}
	shot := func(name string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			dir := os.Getenv("SCREENSHOT_DIR")
			if dir == "" {
				return nil
			}
			png, err := chromedp.FullScreenshot(100)(ctx, tg) // 100: PNG
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
		})
	}

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
	title, err := chromedp.Run(ctx, chromedp.Title())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(title, "Log in") {
		t.Errorf("after logout the account page shows %q", title)
	}
}
