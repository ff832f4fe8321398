// Package browsertest drives Debian's Chromium for the browser tests of the pages (web/site,
// web/account) and of the whole server (serve), and finds Lighthouse for the pages' audits. Both
// are of the slow tier (testenv.Slow): without them a test is skipped, or fails under CI=true.
// Screenshots and Lighthouse reports go to $SCREENSHOT_DIR when it is set.
package browsertest

import (
	"bufio"
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

// ChromiumPath is Debian's Chromium, which .ci/run installs.
const ChromiumPath = "/usr/bin/chromium"

// Chromium is one tab of a real Chromium.
type Chromium struct {
	t   *testing.T
	Ctx context.Context // the tab, for chromedp.Run
}

// New starts Chromium for a test that may take up to timeout. It skips the test without
// Chromium, or fails it under CI=true.
func New(t *testing.T, timeout time.Duration) *Chromium {
	testenv.Slow(t, "a real Chromium")
	t.Helper()
	if _, err := os.Stat(ChromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Chromium missing under CI (.ci/run installs the chromium package): %v", err)
		}
		t.Skipf("Chromium missing (%v): apt-get install chromium; CI=true makes this a failure", err)
	}
	makeArtefactDir(t)
	// The flags this machine's closed network needs: without the background-networking ones
	// Chromium keeps trying to reach Google's hosts.
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(ChromiumPath), chromedp.NoSandbox, chromedp.DisableGPU,
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
	return &Chromium{t: t, Ctx: ctx}
}

// stepTimeout bounds one part of a visit, so that a selector a page no longer has fails its step
// in a minute or two, naming it, rather than using up the whole test's time.
const stepTimeout = 2 * time.Minute

// Do runs the steps of one part of a visit.
func (c *Chromium) Do(step string, steps ...chromedp.Action[chromedp.Void]) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.Ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		c.t.Fatalf("%s: %v", step, err)
	}
}

//go:embed layout.js
var layoutChecks string

// Widths keeps the page as screenshots at 1280 and 390 px (a phone) and checks that at both,
// with every collapsed section and example opened, the page is no wider than the screen: wide
// tables and examples scroll in their box, keeping their label column in view, and charts scale;
// that every field's placeholder shows whole and every select stays beside its label; and what
// layout.js checks: a box that scrolls sideways shows it (the shadow of class scroll), a wide
// table shows a column of figures beside its labels, a short cell or label is on one line, a
// chart's text is inside the chart, check boxes are 24 px to tap, and a dot's or a map shape's
// outline leaves its colour to be seen.
func (c *Chromium) Widths(name string) {
	c.t.Helper()
	opened, err := chromedp.Run(c.Ctx, chromedp.Evaluate[float64](`document.querySelectorAll("details").forEach(d => d.open = true); document.querySelectorAll("details").length`))
	if err != nil {
		c.t.Errorf("%s: opening its sections: %v", name, err)
	}
	for _, w := range []struct {
		px     int64
		option []chromedp.EmulateViewportOption
	}{{1280, nil}, {390, []chromedp.EmulateViewportOption{chromedp.EmulateMobile}}} {
		label := fmt.Sprintf("%s-%d", name, w.px)
		c.Do(label, chromedp.EmulateViewport(w.px, 900, w.option...), Shot(label))
		overflow, err := chromedp.Run(c.Ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth - document.documentElement.clientWidth`))
		if err != nil || overflow > 0 {
			// the deepest element reaching past the screen's edge, to say where to look
			culprit, _ := chromedp.Run(c.Ctx, chromedp.Evaluate[string](`(() => { const out = [];
				for (const e of document.querySelectorAll("body *")) {
					const r = e.getBoundingClientRect();
					if (e.closest("pre, .scroll") || (r.left + e.scrollWidth <= document.documentElement.clientWidth + 1)) continue;
					out.unshift(e.tagName + (e.id ? "#" + e.id : "") + " " + e.scrollWidth + "px: " + (e.textContent || "").slice(0, 50));
				}
				return out.slice(0, 3).join(" | "); })()`))
			c.t.Errorf("%s at %d px with its %v sections open: %v px wider than the screen (%v), past its edge: %s", name, w.px, opened, overflow, err, culprit)
		}
		// a table wider than its box scrolls in it; a wide table (class wide) keeps its label
		// column in view while it does
		lost, err := chromedp.Run(c.Ctx, chromedp.Evaluate[string](`(() => { const out = [];
			for (const box of document.querySelectorAll(".scroll")) {
				const table = box.querySelector("table.wide");
				if (!table || box.scrollWidth <= box.clientWidth) continue;
				box.scrollLeft = box.scrollWidth;
				const cell = table.querySelector("tbody tr > :first-child");
				if (cell && cell.getBoundingClientRect().left < box.getBoundingClientRect().left - 1)
					out.push((table.id || table.className) + ": " + cell.textContent.trim().slice(0, 20));
				box.scrollLeft = 0;
			}
			return out.join(" | "); })()`))
		if err != nil || lost != "" {
			c.t.Errorf("%s at %d px: scrolled sideways, these tables lose their label column: %s (%v)", name, w.px, lost, err)
		}
		// a field's placeholder is read whole: typed in, it does not scroll the field (a search
		// field's clear button, shown once it has text, counted)
		cut, err := chromedp.Run(c.Ctx, chromedp.Evaluate[string](`(() => { const out = [];
			for (const field of document.querySelectorAll("input[placeholder]")) {
				if (!field.offsetParent) continue; // not shown
				const value = field.value;
				field.value = field.placeholder;
				if (field.scrollWidth > field.clientWidth) out.push((field.id || field.name) + ": " + field.placeholder + " needs " + field.scrollWidth + " px, has " + field.clientWidth);
				field.value = value;
			}
			return out.join(" | "); })()`))
		if err != nil || cut != "" {
			c.t.Errorf("%s at %d px: placeholders cut off: %s (%v)", name, w.px, cut, err)
		}
		// a select's label stays on its line, not at the end of the one above
		apart, err := chromedp.Run(c.Ctx, chromedp.Evaluate[string](`(() => { const out = [];
			for (const label of document.querySelectorAll("label[for]")) {
				const field = document.getElementById(label.htmlFor);
				if (!field || field.tagName !== "SELECT" || !field.offsetParent) continue;
				const l = label.getBoundingClientRect(), f = field.getBoundingClientRect();
				if (l.bottom <= f.top || f.bottom <= l.top) out.push(label.textContent.trim() + " / #" + field.id);
			}
			return out.join(" | "); })()`))
		if err != nil || apart != "" {
			c.t.Errorf("%s at %d px: labels on another line than their select: %s (%v)", name, w.px, apart, err)
		}
		problems, err := chromedp.Run(c.Ctx, chromedp.Evaluate[[]string](layoutChecks))
		if err != nil || len(problems) > 0 {
			c.t.Errorf("%s at %d px reads badly (%v):\n  %s", name, w.px, err, strings.Join(problems, "\n  "))
		}
	}
	c.Do(name+" back to the desktop", chromedp.EmulateViewport(1000, 900))
}

// Text is the visible text of the element with an id.
func (c *Chromium) Text(id string) string {
	c.t.Helper()
	v, err := chromedp.Run(c.Ctx, chromedp.Text(chromedp.ID(id)))
	if err != nil {
		c.t.Fatalf("text of #%s: %v", id, err)
	}
	return strings.TrimSpace(v)
}

// Title is the page's title.
func (c *Chromium) Title() string {
	c.t.Helper()
	v, err := chromedp.Run(c.Ctx, chromedp.Title())
	if err != nil {
		c.t.Fatal(err)
	}
	return v
}

// Shot keeps a full-page screenshot named name.png in $SCREENSHOT_DIR, the test artefacts.
func Shot(name string) chromedp.Action[chromedp.Void] {
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

// ScreenShot keeps what the screen shows (not the whole page) as name.png in $SCREENSHOT_DIR: a
// picture of a page as a visitor first sees it, for the README.
func ScreenShot(name string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		dir := os.Getenv("SCREENSHOT_DIR")
		if dir == "" {
			return nil
		}
		png, err := chromedp.CaptureScreenshot()(ctx, tg)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
	})
}

// Lighthouse audits pages with Lighthouse, which `make lighthouse` installs from npm under
// build/lighthouse, in one Chromium (ChromiumPath) for the whole test (lighthouse.mjs).
type Lighthouse struct {
	in      io.WriteCloser
	answers *bufio.Scanner
}

//go:embed lighthouse.mjs
var lighthouseDriver []byte

// NewLighthouse starts Lighthouse for a test's audits and stops it when the test ends. It skips the
// test without Lighthouse or Chromium, or fails it under CI=true.
func NewLighthouse(t *testing.T) *Lighthouse {
	testenv.Slow(t, "Lighthouse audits in Chromium")
	t.Helper()
	modules := filepath.Join(testenv.Root(t), "build", "lighthouse", "node_modules")
	_, errLighthouse := os.Stat(filepath.Join(modules, "lighthouse", "core", "index.js"))
	_, errChromium := os.Stat(ChromiumPath)
	if errLighthouse != nil || errChromium != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Lighthouse (make lighthouse) or Chromium missing under CI: %v %v", errLighthouse, errChromium)
		}
		t.Skipf("Lighthouse (make lighthouse) or Chromium missing: %v %v", errLighthouse, errChromium)
	}
	makeArtefactDir(t)
	driver := filepath.Join(t.TempDir(), "lighthouse.mjs")
	if err := os.WriteFile(driver, lighthouseDriver, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", driver, modules)
	cmd.Env = append(os.Environ(), "CHROME_PATH="+ChromiumPath)
	// read only once the driver has exited: exec copies into it from a goroutine of its own
	var stderr strings.Builder
	cmd.Stderr = &stderr
	l := &Lighthouse{}
	var err error
	if l.in, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start Lighthouse: %v", err)
	}
	l.answers = bufio.NewScanner(out)
	t.Cleanup(func() {
		l.in.Close() // the driver stops Chromium and exits at the end of its input
		if err := cmd.Wait(); err != nil {
			t.Errorf("Lighthouse: %v\n%s", err, &stderr)
		} else if t.Failed() && stderr.Len() > 0 {
			t.Logf("Lighthouse's output:\n%s", &stderr)
		}
	})
	return l
}

// Audit runs Lighthouse's performance, accessibility, best-practices and SEO audits on url and
// writes the JSON report to report. A failure's details from the driver are logged when the test
// ends.
func (l *Lighthouse) Audit(t *testing.T, url, report string) {
	t.Helper()
	if _, err := fmt.Fprintf(l.in, "%s\t%s\n", url, report); err != nil {
		t.Fatalf("lighthouse %s: %v", url, err)
	}
	if !l.answers.Scan() {
		t.Fatalf("lighthouse %s: no answer: %v", url, l.answers.Err())
	}
	if answer := l.answers.Text(); answer != "ok" {
		t.Fatalf("lighthouse %s: %s", url, answer)
	}
}

// makeArtefactDir creates $SCREENSHOT_DIR when it is set, so that a run pointing it at a new
// directory keeps its screenshots and reports rather than failing on the first one.
func makeArtefactDir(t *testing.T) {
	t.Helper()
	if dir := os.Getenv("SCREENSHOT_DIR"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatalf("SCREENSHOT_DIR: %v", err)
		}
	}
}
