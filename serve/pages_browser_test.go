package serve_test

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hensachi/hensachi/internal/testrig/browsertest"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

// phoneWidth is the width the pages must read well at: a common phone's, in CSS pixels.
const phoneWidth = 390

// layoutProblems lists what makes a page read badly at the viewport's width: the page scrolling
// sideways, an element reaching past the viewport that no scroll box holds, and a table cell
// squeezed to a character or two a line.
const layoutProblems = `(() => {
	const vw = document.documentElement.clientWidth, out = [];
	const name = el => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (el.className && typeof el.className === "string" ? "." + el.className.trim().replace(/\s+/g, ".") : "");
	if (document.documentElement.scrollWidth > vw) out.push("the page is " + document.documentElement.scrollWidth + " px wide");
	const scrolls = el => { for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
		const o = getComputedStyle(p).overflowX; if (o === "auto" || o === "scroll" || o === "hidden") return true; } return false; };
	for (const el of document.querySelectorAll("body *")) {
		const r = el.getBoundingClientRect();
		if (r.width === 0 && r.height === 0) continue; // not shown
		if ((r.right > vw + 1 || r.left < -1) && !scrolls(el)) out.push(name(el) + " spans " + Math.round(r.left) + "–" + Math.round(r.right) + " px");
		if (el.tagName === "TD" || el.tagName === "TH") {
			// a cell's text on more lines than it has pairs of characters: a character or two a line
			// (lines its own line breaks make, 値 over its unit, are not squeezed)
			const range = document.createRange(); range.selectNodeContents(el);
			const lines = new Set([...range.getClientRects()].map(q => Math.round(q.top))).size;
			const text = el.textContent.replace(/\s+/g, "");
			if (lines - el.querySelectorAll("br").length >= 2 && text.length / lines < 2.5) out.push(name(el) + " squeezed to " + lines + " lines: " + text.slice(0, 20));
		}
	}
	return out.slice(0, 12);
})()`

// TestBrowserPhone opens every kind of page in Chromium at a phone's width (390 px, as a phone
// renders: the page's viewport meta applies) and at a desktop's (1280 px), and fails on a page
// that scrolls sideways, an element outside the viewport that no scroll box holds, or a table cell
// squeezed to a character a line. It keeps a screenshot of each page at both widths in
// $SCREENSHOT_DIR (phone-<page>-390.png, phone-<page>-1280.png). A new kind of page is one line in
// pages; a page that can only be reached by doing something (the key shown once, the demo's
// result) gives its steps instead of a path.
func TestBrowserPhone(t *testing.T) {
	env := newLoginEnv(t, withFaces(t))
	photo := filepath.Join(testenv.Shared(t, "datasets/scut-fbp5500/SCUT-FBP5500_v2/Images"), "CF100.jpg")
	c := browsertest.New(t, 3*time.Minute)
	open := func(path, ready string) chromedp.Action[chromedp.Void] {
		return chromedp.Steps(chromedp.Navigate(env.URL+path), chromedp.WaitVisible(chromedp.CSS(ready)))
	}
	pages := []struct {
		name  string
		visit chromedp.Action[chromedp.Void]
	}{
		{"home", open("/", "#q")},
		{"search", open("/search?q=%E3%81%9F%E3%81%8B%E3%82%89%E3%81%A5%E3%81%8B", "#result-count")},
		{"municipality", open("/town/municipalities/13101", "#score-table")},
		{"municipality-long-names", open("/town/municipalities/01100", "#score-table")},
		// every section of indicators opened, as a reader does one by one
		{"municipality-indicators", chromedp.Steps(open("/town/municipalities/14100", "#score-table"),
			chromedp.Evaluate[chromedp.Void](`document.querySelectorAll("details.ind").forEach(d => d.open = true)`))},
		{"indicators", open("/town/indicators", "ul.ind")},
		{"indicator", open("/town/indicators/population_density?year=2020&pref=13", "#ranking-total")},
		{"ranking", open("/town/rankings/income?pref=13", "#ranking-total")},
		{"prefectures", open("/town/prefectures", "main table.wide")},
		{"prefecture", open("/town/prefectures/13", "table.wide")},
		{"compare", open("/town/compare?codes=13101,01100,13102", "#compare-table")},
		// the similar list's form sent with nothing ticked; a town the census found empty, with its note
		{"compare-one", open("/town/compare?codes=07546", "#add-hint")},
		{"municipality-no-residents", open("/town/municipalities/07546", "#no-residents")},
		{"scatter", open("/town/scatter?x=income&y=young&pref=13", "#pref-towns")},
		{"docs", open("/docs", "#predictFaces")},
		{"guide", open("/docs/operating", "article.guide")},
		{"error", open("/town/municipalities/99999", "#message")},
		{"login", open("/login", "#login")},
		{"key", chromedp.Steps(chromedp.Navigate(env.URL+"/login/start"), chromedp.WaitVisible(chromedp.ID("api-key")))},
		{"account", open("/account", "#origins-text")},
		{"demo", open("/demo/face", "#file")},
		{"demo-result", chromedp.Steps(open("/demo/face", "#file"), chromedp.SetUploadFiles(chromedp.ID("file"), []string{photo}),
			chromedp.Click(chromedp.ID("analyse")), chromedp.WaitVisible(chromedp.ID("faces")))},
	}
	for _, p := range pages {
		c.Do(p.name+" at "+fmt.Sprint(phoneWidth)+" px", chromedp.EmulateViewport(phoneWidth, 844, chromedp.EmulateMobile), p.visit)
		problems, err := chromedp.Run(c.Ctx, chromedp.Evaluate[[]string](layoutProblems))
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		if len(problems) > 0 {
			t.Errorf("%s at %d px:\n  %s", p.name, phoneWidth, strings.Join(problems, "\n  "))
		}
		c.Do(p.name+" screenshots", browsertest.Shot("phone-"+p.name+"-390"),
			chromedp.EmulateViewport(1280, 900), browsertest.Shot("phone-"+p.name+"-1280"))
	}
	// the icon the pages link to, and the address browsers ask for whatever the pages say
	for _, path := range []string{"/favicon.svg", "/favicon.ico"} {
		resp, err := http.Get(env.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/svg+xml" {
			t.Errorf("GET %s: %d %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
}
