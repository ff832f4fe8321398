package serve

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

// chromiumPath is Debian's Chromium, which .ci/run installs.
const chromiumPath = "/usr/bin/chromium"

// chromium is one tab of a real Chromium for the browser tests.
type chromium struct {
	t   *testing.T
	ctx context.Context
}

// newChromium starts Chromium for a test that may take up to timeout. It skips the test without
// Chromium, or fails it under CI=true. Screenshots go to $SCREENSHOT_DIR when it is set.
func newChromium(t *testing.T, timeout time.Duration) *chromium {
	testenv.Slow(t, "a real Chromium")
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Chromium missing under CI (.ci/run installs the chromium package): %v", err)
		}
		t.Skipf("Chromium missing (%v): apt-get install chromium; CI=true makes this a failure", err)
	}
	// The flags this machine's closed network needs: without the background-networking ones
	// Chromium keeps trying to reach Google's hosts.
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1000, 900))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	browserCtx, cancelBrowser := chromedp.NewContext(alloc)
	t.Cleanup(cancelBrowser)
	if err := chromedp.Do(browserCtx); err != nil { // starts the browser; a timeout here would end it
		t.Fatalf("start Chromium: %v", err)
	}
	ctx, cancel := context.WithTimeout(browserCtx, timeout)
	t.Cleanup(cancel)
	return &chromium{t: t, ctx: ctx}
}

// do runs the steps of one part of a visit.
func (c *chromium) do(step string, steps ...chromedp.Action[chromedp.Void]) {
	c.t.Helper()
	if err := chromedp.Do(c.ctx, steps...); err != nil {
		c.t.Fatalf("%s: %v", step, err)
	}
}

// text is the visible text of the element with an id.
func (c *chromium) text(id string) string {
	c.t.Helper()
	v, err := chromedp.Run(c.ctx, chromedp.Text(chromedp.ID(id)))
	if err != nil {
		c.t.Fatalf("text of #%s: %v", id, err)
	}
	return strings.TrimSpace(v)
}

// title is the page's title.
func (c *chromium) title() string {
	c.t.Helper()
	v, err := chromedp.Run(c.ctx, chromedp.Title())
	if err != nil {
		c.t.Fatal(err)
	}
	return v
}

// shot keeps a full-page screenshot in $SCREENSHOT_DIR, the test artefacts.
func shot(name string) chromedp.Action[chromedp.Void] {
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
