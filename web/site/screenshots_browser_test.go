package site

import (
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hensachi/hensachi/internal/testrig/browsertest"
)

// TestBrowserReadmeScreenshots keeps the README's pictures in $SCREENSHOT_DIR: the landing page
// and a municipality's page as a visitor first sees them on a desktop (1280 px) and on a phone
// (390 px). scripts/readme-screenshots.sh (`make screenshots`) runs it and compresses the files
// into docs/images.
func TestBrowserReadmeScreenshots(t *testing.T) {
	s := newRealSite(t, "")
	c := browsertest.New(t, 3*time.Minute)
	for _, p := range []struct{ name, path, ready string }{
		{"home", "/", "#q"},
		{"municipality", "/town/municipalities/28214", "svg.chart"},
	} {
		for _, w := range []struct {
			px, height int64
			option     []chromedp.EmulateViewportOption
		}{{1280, 800, nil}, {390, 844, []chromedp.EmulateViewportOption{chromedp.EmulateMobile}}} {
			name := p.name + "-" + strconv.FormatInt(w.px, 10)
			c.Do(name, chromedp.EmulateViewport(w.px, w.height, w.option...), chromedp.Navigate(s.URL+p.path),
				chromedp.WaitVisible(chromedp.CSS(p.ready)), browsertest.ScreenShot(name))
			overflow, err := chromedp.Run(c.Ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth - document.documentElement.clientWidth`))
			if err != nil || overflow > 0 {
				t.Errorf("%s: %v px wider than the screen (%v)", name, overflow, err)
			}
		}
	}
}
