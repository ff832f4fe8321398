package site

import (
	"encoding/json"
	"html/template"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
)

func docsRouter(t *testing.T) (*httprouter.Router, []byte) {
	t.Helper()
	doc, err := os.ReadFile("../../serve/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Deps{OpenAPI: doc, PublicURL: "https://hensachi.example"})
	if err != nil {
		t.Fatal(err)
	}
	router := httprouter.New()
	s.Routes(router.Handle)
	return router, doc
}

// TestDocsEveryOperation: the page documents every operation of openapi.json with an anchor and
// an example against this server, but for the preflights and the site's own pages (a tag marked
// x-docs-page: false), which it leaves out.
func TestDocsEveryOperation(t *testing.T) {
	router, raw := docsRouter(t)
	status, body := getPage(t, router, "/docs")
	if status != 200 {
		t.Fatalf("/docs: %d", status)
	}
	var doc struct {
		Tags []struct {
			Name   string
			OnPage *bool `json:"x-docs-page"`
		}
		Info struct {
			DescriptionJA string `json:"x-description-ja"`
		}
		Paths map[string]map[string]struct {
			OperationID   string `json:"operationId"`
			SummaryJA     string `json:"x-summary-ja"`
			DescriptionJA string `json:"x-description-ja"`
			Tags          []string
		}
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	off := map[string]bool{}
	for _, tag := range doc.Tags {
		off[tag.Name] = tag.OnPage != nil && !*tag.OnPage
	}
	for path, ops := range doc.Paths {
		for method, op := range ops {
			onPage := strings.Contains(body, `id="`+op.OperationID+`"`)
			switch want := method != "options" && !slices.ContainsFunc(op.Tags, func(tag string) bool { return off[tag] }); {
			case want && (!onPage || !strings.Contains(body, strings.ToUpper(method)+" "+path)):
				t.Errorf("%s %s (%s) is not on the page", method, path, op.OperationID)
			case !want && onPage:
				t.Errorf("%s %s (%s) is on the page", method, path, op.OperationID)
			case want && (op.SummaryJA == "" || !strings.Contains(body, op.SummaryJA)):
				t.Errorf("%s %s (%s) has no Japanese summary (x-summary-ja) on the page", method, path, op.OperationID)
			case want && !oneJapaneseSentence(op.DescriptionJA):
				t.Errorf("%s %s (%s): x-description-ja %q is not one Japanese sentence", method, path, op.OperationID, op.DescriptionJA)
			case want && !strings.Contains(body, "<p>"+string(withCode(op.DescriptionJA))+"</p>"):
				t.Errorf("%s %s (%s) has not its Japanese description (x-description-ja) on the page", method, path, op.OperationID)
			case want && !strings.Contains(body, `<li><a href="#`+op.OperationID+`"><code>`+strings.ToUpper(method)+" "+path+"</code></a> "+op.SummaryJA+"</li>"):
				t.Errorf("%s %s (%s) is not in the call list with its Japanese summary", method, path, op.OperationID)
			}
		}
	}
	// the introduction in Japanese, the document's English behind a summary
	if doc.Info.DescriptionJA == "" || !strings.Contains(body, `<p id="intro">`+strings.ReplaceAll(template.HTMLEscapeString(doc.Info.DescriptionJA), "+", "&#43;")+"</p>") ||
		!strings.Contains(body, `<p class="note" lang="en">Municipality statistics service`) {
		t.Error("/docs has not its introduction in Japanese (info.x-description-ja) with the English behind it")
	}
	// the guides by their Japanese titles and summaries, the data guide in Japanese, the others said to be English
	for _, want := range []string{`<a href="/docs/data">データガイド</a>：`, `<a href="/docs/operating">運用ガイド</a>（英語）：`} {
		if !strings.Contains(body, want) {
			t.Errorf("/docs lists no %q", want)
		}
	}
	for _, want := range []string{`curl -H &#34;X-API-Key: $HENSACHI_API_KEY&#34; &#34;https://hensachi.example/town/v1/municipalities/13101&#34;`,
		`-F file=@photo.jpg`, "young | shops | doctor", "daily_limit_exceeded",
		// the problem types' example is a problem type, not a municipality code
		`curl &#34;https://hensachi.example/problems/invalid_parameter&#34;`,
		// numbers as people read them
		"integer 0–1,000,000", "integer 1–100（既定 20）",
		// examples of successes and errors, as the client receives them
		`<summary>千代田区 (13101)</summary>`, `&#34;name&#34;: &#34;千代田区&#34;`,
		`&#34;code&#34;: &#34;origin_not_allowed&#34;`, `&#34;faces_detected&#34;: 2`,
		// the shared responses once, each operation naming them by status
		`<h2 id="common-responses">`, `401, 403, 405, 414, 429, 431, 500, 503：<a href="#common-responses">`} {
		if !strings.Contains(body, want) {
			t.Errorf("/docs has no %q", want)
		}
	}
	// Markdown's code spans are code elements, not backticks shown as they are
	if !strings.Contains(body, "<code>{axis}_hensachi</code>") {
		t.Error("/docs does not render the descriptions' code spans")
	}
	text := regexp.MustCompile(`(?s)<pre>.*?</pre>`).ReplaceAllString(body, "") // examples show bodies as they are
	for _, bad := range []string{"e+06", "/problems/13101", "`"} {
		if strings.Contains(text, bad) {
			t.Errorf("/docs shows %q", bad)
		}
	}
}

// TestDocsWithKey: a key posted to the page fills the examples, on a page that is not stored; a
// value that is not a key is not echoed.
func TestDocsWithKey(t *testing.T) {
	router, _ := docsRouter(t)
	key, _ := hensachi.NewAPIKey()
	for _, c := range []struct {
		key  string
		fill bool
	}{{key, true}, {"<b>not a key</b>", false}} {
		r := httptest.NewRequest("POST", "/docs", strings.NewReader(url.Values{"key": {c.key}}.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		w := httptest.NewRecorder()
		router.ServeHTTP(w, r)
		body := w.Body.String()
		if w.Code != 200 || w.Header().Get("Cache-Control") != "no-store" {
			t.Errorf("POST /docs: %d, Cache-Control %q", w.Code, w.Header().Get("Cache-Control"))
		}
		if got := strings.Contains(body, "X-API-Key: "+c.key); got != c.fill {
			t.Errorf("key %q in the examples: %v, want %v", c.key, got, c.fill)
		}
		if !c.fill && strings.Contains(body, c.key) {
			t.Errorf("%q is echoed", c.key)
		}
	}
}

// oneJapaneseSentence reports whether s is one sentence ending in 。 (a 。 only at its end).
func oneJapaneseSentence(s string) bool {
	return strings.HasSuffix(s, "。") && strings.Count(s, "。") == 1 && strings.ContainsFunc(s, func(r rune) bool { return r >= 0x3040 && r <= 0x30ff })
}

// TestGuidePages: /docs/data is the data guide in Japanese, /docs/data.en its English, each
// linking the other; a guide without a Japanese version is at its own address in English; a guide's
// tables scroll in their own box.
func TestGuidePages(t *testing.T) {
	router, _ := docsRouter(t)
	for _, c := range []struct {
		path string
		want []string
	}{
		{"/docs/data", []string{"<title>データガイド — hensachi</title>", `<article class="guide">`, `<h3 id="分母">分母</h3>`,
			`<a href="/docs/data.en" hreflang="en" lang="en" id="other-language">English version</a>`, `<div class="scroll"><table>`,
			`<link rel="canonical" href="https://hensachi.example/docs/data">`}},
		{"/docs/data.en", []string{"<title>The data guide — hensachi</title>", `<article class="guide" lang="en">`, `<h3 id="denominators">`,
			`<a href="/docs/data" hreflang="ja" lang="ja" id="other-language">日本語版</a>`, `<div class="scroll"><table>`}},
		{"/docs/operating", []string{`<article class="guide" lang="en">`}},
	} {
		status, body := getPage(t, router, c.path)
		if status != 200 {
			t.Errorf("%s: %d", c.path, status)
			continue
		}
		for _, want := range c.want {
			if !strings.Contains(body, want) {
				t.Errorf("%s has no %s", c.path, want)
			}
		}
	}
	for _, path := range []string{"/docs/operating.en", "/docs/data.ja", "/docs/data.en.en"} {
		if status, _ := getPage(t, router, path); status != 404 {
			t.Errorf("%s: %d, want 404", path, status)
		}
	}
	// the API guide's links to the data guide lead to its English, whose anchors they name
	if _, body := getPage(t, router, "/docs/api"); !strings.Contains(body, `href="/docs/data.en#denominators"`) {
		t.Error("/docs/api does not link the English data guide's denominators")
	}
}
