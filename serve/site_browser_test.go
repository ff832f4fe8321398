package serve

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

// TestBrowserSite walks every kind of page in a real Chromium as a newcomer does after `make
// serve`: the landing page, a search in kana, a municipality's charts, a ranking filtered by
// prefecture and paged, a prefecture, logging in with the development provider, the key on the API,
// the face demo on a photo and the API documentation. Set SCREENSHOT_DIR to keep a screenshot of
// each page.
func TestBrowserSite(t *testing.T) {
	env := newDevLoginEnv(t, withFaces(t))
	photo := filepath.Join(testenv.Shared(t, "datasets/scut-fbp5500/SCUT-FBP5500_v2/Images"), "CF100.jpg")
	c := newChromium(t, 90*time.Second)

	c.do("landing page", chromedp.Navigate(env.URL+"/"), chromedp.WaitVisible(chromedp.ID("q")), shot("site-1-home"))
	if title := c.title(); !strings.Contains(title, "hensachi") {
		t.Errorf("landing page title %q", title)
	}
	c.do("search in kana", chromedp.SendKeys(chromedp.ID("q"), "たからづか"), chromedp.Submit(chromedp.ID("q")),
		chromedp.WaitVisible(chromedp.ID("result-count")), shot("site-2-search"))
	if n := c.text("result-count"); !strings.Contains(n, "1 件") {
		t.Errorf("search for たからづか: %q", n)
	}
	c.do("municipality page", chromedp.Click(chromedp.CSS(`a[href="/town/municipalities/28214"]`)),
		chromedp.WaitVisible(chromedp.CSS("svg.chart")), shot("site-3-municipality"))
	if title := c.title(); !strings.HasPrefix(title, "宝塚市（兵庫県）") {
		t.Errorf("municipality page title %q", title)
	}
	charts, err := chromedp.Run(c.ctx, chromedp.Evaluate[float64](`document.querySelectorAll("svg.chart rect").length`))
	if err != nil || charts < 6+10 {
		t.Errorf("%v bars in the charts (%v), want the six scores and ten years", charts, err)
	}

	c.do("ranking filtered by prefecture", chromedp.Navigate(env.URL+"/town/rankings/income"), chromedp.WaitVisible(chromedp.ID("pref")),
		chromedp.SetValue(chromedp.ID("pref"), "28"), chromedp.Submit(chromedp.ID("pref")),
		chromedp.WaitVisible(chromedp.ID("ranking-total")), shot("site-4-ranking"))
	if total := c.text("ranking-total"); !strings.HasPrefix(total, "41 市区町村中") {
		t.Errorf("income ranking in Hyōgo: %q", total)
	}
	c.do("next ranking page", chromedp.Navigate(env.URL+"/town/rankings/income"), chromedp.WaitVisible(chromedp.ID("ranking-total")),
		chromedp.Click(chromedp.CSS(`a[rel="next"]`)), chromedp.WaitVisible(chromedp.ID("ranking-total")))
	if total := c.text("ranking-total"); !strings.Contains(total, "51〜100 位") {
		t.Errorf("second page of the income ranking: %q", total)
	}
	c.do("prefecture page", chromedp.Navigate(env.URL+"/town/prefectures/28"), chromedp.WaitVisible(chromedp.CSS("table")), shot("site-5-prefecture"))
	c.do("demo asks to log in", chromedp.Navigate(env.URL+"/demo/face"), chromedp.WaitVisible(chromedp.ID("demo-login")))
	c.do("log in with the development provider", chromedp.Click(chromedp.CSS(`#demo-login a`)), chromedp.WaitVisible(chromedp.ID("login")),
		chromedp.Click(chromedp.ID("login")), chromedp.WaitVisible(chromedp.ID("dev-banner")),
		chromedp.Click(chromedp.ID("approve")), chromedp.WaitVisible(chromedp.ID("api-key")), shot("site-7-key"))
	key := c.text("api-key")
	if status, e, _ := env.call(t, key); status != http.StatusOK || e.Usage.UsedToday != 1 {
		t.Fatalf("GET /town/v1/meta with the new key: %d %+v", status, e.Usage)
	}
	c.do("face demo", chromedp.Navigate(env.URL+"/demo/face"), chromedp.WaitVisible(chromedp.ID("file")), shot("site-8-demo"),
		chromedp.SetUploadFiles(chromedp.ID("file"), []string{photo}), chromedp.Click(chromedp.ID("analyse")),
		chromedp.WaitVisible(chromedp.ID("faces")), shot("site-9-demo-result"))
	if faces := c.text("faces"); !strings.Contains(faces, "female") {
		t.Errorf("demo result table: %q", faces)
	}
	if used := c.text("face-used"); used != "1" {
		t.Errorf("face calls after the demo: %q", used)
	}
	c.do("API documentation", chromedp.Click(chromedp.CSS(`a[href="/docs"]`)), chromedp.WaitVisible(chromedp.ID("predictFaces")), shot("site-10-docs"))
	if curl := c.text("getMunicipality"); !strings.Contains(curl, "curl") || !strings.Contains(curl, env.URL+"/town/v1/municipalities/13101") {
		t.Errorf("docs for getMunicipality: %q", curl)
	}
}
