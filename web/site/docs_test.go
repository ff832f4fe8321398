package site

import (
	"encoding/json"
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
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
			SummaryJA   string `json:"x-summary-ja"`
			Tags        []string
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
			}
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
