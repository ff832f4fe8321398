package serve_test

import (
	"cmp"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/hensachi/hensachi/app"
	"github.com/hensachi/hensachi/internal/testrig/webclient"
)

// TestLinks follows every link of every kind of page, as a visitor clicking through the site
// would, on a server without login, on one with login before logging in, and logged in with a
// session. It fails on a 5xx, on a 4xx for an address a page printed (a dead link or a form that
// its own defaults make fail), on a problem document answered to a browser asking for a page, and
// on a link to an anchor that the page it names lacks; an address no page prints answers the
// site's not-found page. Addresses are grouped by kind (the path
// with its codes and keys taken out, and the names of its query's parameters) and at most
// perKind of each kind are visited; downloads are checked for a 2xx without being read further.
// Logged in, no page's footer offers to log in; with login off, no page links to the login or
// account pages.
func TestLinks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// server returns the server's URL and the browser that walks it
		server func(t *testing.T) (string, *webclient.Browser)
		from   []string
		want   []string // kinds of page the walk must reach (paths without their query)
	}{
		{"login off", func(t *testing.T) (string, *webclient.Browser) {
			// with a face service, so that the demo page says what a server without login offers
			return newTestServer(t, func(c *app.Config) { c.Faces.Analyzer = &scriptedAnalyzer{} }).http.URL, webclient.New(t)
		}, []string{"/"}, sitePages},
		{"login on, logged out", func(t *testing.T) (string, *webclient.Browser) {
			return newLoginEnv(t).URL, webclient.New(t)
		}, []string{"/"}, append(slices.Clip(sitePages), "/login")},
		{"logged in", func(t *testing.T) (string, *webclient.Browser) {
			env := newLoginEnv(t)
			b, _ := webclient.Login(t, env.URL, env.smtp, "newcomer@example.com")
			return env.URL, b
		}, []string{"/", "/account"}, append(slices.Clip(sitePages), "/account")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base, b := tt.server(t)
			w := newWalk(t, base, b)
			w.loggedIn = tt.name == "logged in"
			w.loginOff = tt.name == "login off"
			w.run(tt.from...)
			t.Logf("%d addresses of %d kinds visited, %d pages linked to with an anchor: %v", w.visited, len(w.kinds), len(w.anchors), slices.Sorted(maps.Keys(w.kinds)))
			for _, k := range tt.want {
				if w.pathKinds[k] == 0 {
					t.Errorf("the walk never reached a page of kind %s; it reached %v", k, slices.Sorted(maps.Keys(w.pathKinds)))
				}
			}
			// an address no page prints, typed or kept from an old link: the site's not-found page
			// with the search box, never the API's problem document
			for _, path := range []string{"/nope", "/town/municipalities/99999", "/town/rankings/nope", "/town/prefectures/99"} {
				p := w.get(w.origin.ResolveReference(&url.URL{Path: path}))
				if media, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type")); p.Status != http.StatusNotFound || media != "text/html" || !strings.Contains(p.Body, `id="q"`) {
					t.Errorf("GET %s as a page: %d %s, want the not-found page with the search box\n%.300s", path, p.Status, media, p.Body)
				}
			}
		})
	}
}

// sitePages are the kinds of public page every walk must reach: if one is missing, the walk is
// not finding the links it should (or a page lost its links).
var sitePages = []string{"/", "/search", "/town/municipalities/{key}", "/town/municipalities/{key}/{key}/{key}", "/town/rankings/{key}", "/town/indicators",
	"/town/indicators/{key}", "/town/map", "/town/prefectures", "/town/prefectures/{key}", "/town/compare",
	"/town/scatter", "/docs", "/demo/face", "/town/municipalities.csv"}

// perKind is how many addresses of one kind the walk visits: the same template with other values
// prints the same links.
const perKind = 3

// walk is a breadth-first visit of a server's pages from the addresses it starts at.
type walk struct {
	t         *testing.T
	origin    *url.URL
	b         *webclient.Browser
	queue     []link
	seen      map[string]bool           // addresses queued
	kinds     map[string]int            // addresses visited per kind
	pathKinds map[string]int            // pages visited per kind of path, for the test's floor
	ids       map[string]map[string]int // the ids of each page visited, by address
	anchors   map[string][]link         // links to an anchor, by the address of its page
	visited   int
	loggedIn  bool // the browser has a session
	// loginOff: the server takes no logins, so a link to its login or account pages, which only
	// say so (503), is a dead end
	loginOff bool
}

// link is an address found on a page, and where: what a failure names.
type link struct {
	url  string // absolute, without the fragment
	from string // the page that printed it, and how
}

func newWalk(t *testing.T, base string, b *webclient.Browser) *walk {
	origin, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	return &walk{t: t, origin: origin, b: b, seen: map[string]bool{}, kinds: map[string]int{}, pathKinds: map[string]int{},
		ids: map[string]map[string]int{}, anchors: map[string][]link{}}
}

func (w *walk) run(from ...string) {
	for _, path := range from {
		w.add(w.origin.ResolveReference(&url.URL{Path: path}), "the start")
	}
	for len(w.queue) > 0 {
		l := w.queue[0]
		w.queue = w.queue[1:]
		u, _ := url.Parse(l.url)
		kind := linkKind(u)
		if w.kinds[kind] >= perKind {
			continue
		}
		w.kinds[kind]++
		w.visited++
		w.visit(u, l)
	}
	for page, links := range w.anchors {
		ids, ok := w.ids[page]
		if !ok {
			continue // not visited: its kind was visited enough
		}
		for _, l := range links {
			if u, _ := url.Parse(l.url); ids[u.Fragment] == 0 {
				w.t.Errorf("%s links to #%s, which %s lacks", l.from, u.Fragment, page)
			}
		}
	}
}

// add queues u, found as from says, when it is the server's and not queued yet.
func (w *walk) add(u *url.URL, from string) {
	if u.Scheme != w.origin.Scheme || u.Host != w.origin.Host {
		return // another site, or mailto:, javascript:…
	}
	page := *u
	page.Fragment, page.RawFragment = "", ""
	if u.Fragment != "" {
		w.anchors[page.String()] = append(w.anchors[page.String()], link{url: u.String(), from: from})
	}
	if w.loginOff && loginPage(u.Path) {
		w.t.Errorf("login off, %s links to %s", from, u.Path)
	}
	if w.seen[page.String()] {
		return
	}
	w.seen[page.String()] = true
	w.queue = append(w.queue, link{url: page.String(), from: from})
}

// loginPage reports whether a path is of the login or account pages, which only a server with
// login serves.
func loginPage(path string) bool {
	for _, p := range []string{"/login", "/account", "/logout", "/auth/"} {
		if path == p || strings.HasPrefix(path, strings.TrimSuffix(p, "/")+"/") {
			return true
		}
	}
	return false
}

// visit gets one address as a browser navigating to it would, checks the answer, and queues the
// links and forms of a page.
func (w *walk) visit(u *url.URL, l link) {
	w.t.Helper()
	p := w.get(u)
	media, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
	switch {
	case p.Status >= 500:
		w.t.Errorf("GET %s (%s): %d\n%.300s", u, l.from, p.Status, p.Body)
	case p.Status >= 400:
		w.t.Errorf("dead link: GET %s (%s): %d\n%.300s", u, l.from, p.Status, p.Body)
	case media == "application/problem+json":
		w.t.Errorf("GET %s (%s) as a page: a problem document\n%.300s", u, l.from, p.Body)
	}
	if p.Status >= 300 && p.Status < 400 {
		next, err := u.Parse(p.Header.Get("Location"))
		if err != nil {
			w.t.Errorf("GET %s (%s): %d to %q: %v", u, l.from, p.Status, p.Header.Get("Location"), err)
			return
		}
		w.add(next, "the redirect of "+u.String())
		return
	}
	if p.Status >= 400 {
		return
	}
	w.pathKinds[kindOfPath(u.Path)]++
	if media != "text/html" {
		return // a download, checked for its status only
	}
	doc, err := html.Parse(strings.NewReader(p.Body))
	if err != nil {
		w.t.Errorf("GET %s: %v", u, err)
		return
	}
	ids := map[string]int{}
	w.ids[u.String()] = ids
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		if id := attr(n, "id"); id != "" {
			ids[id]++
		}
		if n.Data == "footer" && w.loggedIn && strings.Contains(text(n), "ログイン") {
			w.t.Errorf("%s: logged in, the footer says ログイン: %q", u, strings.TrimSpace(text(n)))
		}
		if n.Data == "a" && n.Namespace == "svg" { // a map's and a scatter's links
			if href := attr(n, "href"); href != "" {
				w.addRef(u, href, "an SVG link on "+u.String())
			}
			continue
		}
		switch n.Data {
		case "a":
			if href := attr(n, "href"); href != "" {
				w.addRef(u, href, fmt.Sprintf("%q on %s", strings.TrimSpace(text(n)), u))
			}
		case "link":
			if attr(n, "rel") != "canonical" { // canonical is the public URL, another host here
				w.addRef(u, attr(n, "href"), "a <link> of "+u.String())
			}
		case "form":
			if action, ok := formQuery(n); ok {
				w.addRef(u, action, "a form on "+u.String()+", as it stands")
			}
		}
	}
}

// get gets u as a browser navigating to it does.
func (w *walk) get(u *url.URL) webclient.Page {
	w.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u.String(), nil)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8") // Chromium's
	return w.b.Do(req)
}

// addRef resolves ref against the page it is on and queues it.
func (w *walk) addRef(page *url.URL, ref, from string) {
	u, err := page.Parse(ref)
	if err != nil {
		w.t.Errorf("%s: a link to %q does not parse: %v", from, ref, err)
		return
	}
	w.add(u, from)
}

// formQuery is the address a GET form goes to when submitted as it stands: its hidden fields, its
// selects' selected options, its checked boxes and its text; an empty search box gets a name, as
// a browser refuses to submit a required field empty. ok is false for a form that posts.
func formQuery(form *html.Node) (string, bool) {
	if m := attr(form, "method"); m != "" && !strings.EqualFold(m, "get") {
		return "", false
	}
	q := url.Values{}
	for n := range form.Descendants() {
		name := attr(n, "name")
		if n.Type != html.ElementNode || name == "" {
			continue
		}
		switch n.Data {
		case "input":
			switch typ := attr(n, "type"); typ {
			case "checkbox", "radio":
				if hasAttr(n, "checked") {
					q.Add(name, cmp.Or(attr(n, "value"), "on"))
				}
			case "submit", "button", "file", "image", "reset":
			default:
				v := attr(n, "value")
				if v == "" && hasAttr(n, "required") {
					v = "宝塚"
				}
				q.Add(name, v)
			}
		case "select":
			var first, selected *html.Node
			for o := range n.Descendants() {
				if o.Type == html.ElementNode && o.Data == "option" {
					first = cmp.Or(first, o)
					if hasAttr(o, "selected") && selected == nil {
						selected = o
					}
				}
			}
			if o := cmp.Or(selected, first); o != nil {
				v, ok := attrOK(o, "value")
				if !ok {
					v = text(o)
				}
				q.Add(name, v)
			}
		}
	}
	action := attr(form, "action")
	if len(q) > 0 {
		action += "?" + q.Encode()
	}
	return action, true
}

func attr(n *html.Node, name string) string {
	v, _ := attrOK(n, name)
	return v
}

func attrOK(n *html.Node, name string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val, true
		}
	}
	return "", false
}

func hasAttr(n *html.Node, name string) bool {
	_, ok := attrOK(n, name)
	return ok
}

func text(n *html.Node) string {
	var b strings.Builder
	for c := range n.Descendants() {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}

// linkKind is the kind of an address: its path's kind and the names of its query's parameters.
func linkKind(u *url.URL) string {
	names := slices.Sorted(maps.Keys(u.Query()))
	if len(names) == 0 {
		return kindOfPath(u.Path)
	}
	return kindOfPath(u.Path) + "?" + strings.Join(names, "&")
}

var digits = regexp.MustCompile(`[0-9]+`)

// kindOfPath takes a path's codes and keys out: the third segment on (/town/rankings/young) and
// any run of digits.
func kindOfPath(path string) string {
	segments := strings.Split(digits.ReplaceAllString(path, "{n}"), "/")
	for i := 3; i < len(segments); i++ {
		segments[i] = "{key}"
	}
	return strings.Join(segments, "/")
}
