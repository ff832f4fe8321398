package site

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/hensachi/hensachi/internal/testrig/browsertest"
)

// TestBrowserMaps is a newcomer reading the maps in a real Chromium: the national map of income
// per taxpayer, a town found under the pointer with its figure in its title and picked out on
// hover, then 兵庫県's map chosen in the form, 神戸市 clicked through to its page, which shows its
// prefecture with itself picked out. The maps are kept as screenshots at 1280 and 390 px
// (map-1-national-1280.png among them), and at 390 px no page is wider than the screen.
func TestBrowserMaps(t *testing.T) {
	s := newRealSite(t, "")
	c := browsertest.New(t, 90*time.Second)

	c.Do("national map", chromedp.Navigate(s.URL+"/town/map?m=income"), chromedp.WaitVisible(chromedp.CSS("svg.map")))
	c.Widths("map-1-national")
	hover(c, t, "01100", "札幌市（北海道）")

	c.Do("Hyōgo's map from the form", chromedp.SetValue(chromedp.ID("pref"), "28"), chromedp.Submit(chromedp.ID("pref")),
		chromedp.WaitVisible(chromedp.CSS(`svg.map a[href="municipalities/28100"]`)))
	if title := c.Title(); !strings.HasPrefix(title, "所得の地図（兵庫県）") {
		t.Errorf("prefecture map title %q", title)
	}
	drawn, err := chromedp.Run(c.Ctx, chromedp.Evaluate[float64](`document.querySelectorAll("svg.map a").length`))
	if err != nil || drawn != 41 {
		t.Errorf("%v municipalities on Hyōgo's map (%v), want 41", drawn, err)
	}
	credits, err := chromedp.Run(c.Ctx, chromedp.Evaluate[string](`document.getElementById("map-credit").textContent`))
	if err != nil || !strings.Contains(credits, "国土交通省国土数値情報") || !strings.Contains(credits, "加工して作成") {
		t.Errorf("credits under the map: %q (%v)", credits, err)
	}
	c.Widths("map-2-hyogo")
	x, y := hover(c, t, "28100", "神戸市（兵庫県）")
	c.Do("click 神戸市", chromedp.MouseClickXY(x, y), chromedp.WaitVisible(chromedp.ID("pref-map")))
	if title := c.Title(); !strings.HasPrefix(title, "神戸市（兵庫県）") {
		t.Errorf("after the click: %q", title)
	}
	picked, err := chromedp.Run(c.Ctx, chromedp.Evaluate[float64](`document.querySelectorAll("#pref-map svg .pick").length`))
	if err != nil || picked != 1 {
		t.Errorf("%v municipalities picked out on 神戸市's page (%v)", picked, err)
	}
	c.Widths("map-3-municipality")
}

// hover moves the pointer over the middle of a municipality's largest polygon and checks that it
// is the one under the pointer, outlined, and titled with its name, figure and rank; it returns
// where the pointer is.
func hover(c *browsertest.Chromium, t *testing.T, code, name string) (x, y float64) {
	t.Helper()
	type point struct{ X, Y float64 }
	at, err := chromedp.Run(c.Ctx, chromedp.Evaluate[point](`(() => { const p = document.querySelector("svg.map a[href='municipalities/`+code+`'] path");
		p.scrollIntoView({block: "center"}); const r = p.getBoundingClientRect();
		for (let i = 0; i < 400; i++) { const x = r.left + r.width * ((i % 20) + .5) / 20, y = r.top + r.height * (Math.floor(i / 20) + .5) / 20;
			if (document.elementFromPoint(x, y) === p) return {X: x, Y: y}; }
		return {X: -1, Y: -1}; })()`))
	if err != nil || at.X < 0 {
		t.Fatalf("no point of %s on the screen (%v)", code, err)
	}
	c.Do("hover "+code, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, at.X, at.Y))
	type hovered struct {
		Href, Title, Stroke string
	}
	h, err := chromedp.Run(c.Ctx, chromedp.Evaluate[hovered](`(() => { const p = document.elementFromPoint(`+ftoa(at.X)+`, `+ftoa(at.Y)+`);
		return {Href: p.closest("a").getAttribute("href"), Title: p.querySelector("title").textContent, Stroke: getComputedStyle(p).strokeWidth}; })()`))
	if err != nil || h.Href != "municipalities/"+code || !strings.HasPrefix(h.Title, name) || !strings.Contains(h.Title, " 万円、全国 ") || h.Stroke != "2px" {
		t.Errorf("hovering %s: %+v (%v), want its link, a title with name, figure and rank, and the outline", code, h, err)
	}
	return at.X, at.Y
}

func ftoa(f float64) string { return strings.TrimRight(strings.TrimRight(number(f, 3), "0"), ".") }
