package serve_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/docs"
	"github.com/hensachi/hensachi/internal/testrig/storetest"
	"github.com/hensachi/hensachi/serve"
)

// document is the README or a guide of docs/, by its path in the repository.
type document struct {
	name string
	src  []byte
}

func guideDocuments(t *testing.T) []document {
	t.Helper()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	all := []document{{"README.md", readme}}
	guides, err := docs.Guides()
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range guides {
		all = append(all, document{"docs/" + g.File(), g.Source})
	}
	return all
}

// curlExample is one curl command of a document's sh or console blocks or its inline code, without its comment and
// any pipe after it, and the status the comment gives (0: any success).
type curlExample struct {
	doc, command string
	want         int
}

var leadingStatus = regexp.MustCompile(`^([1-5][0-9][0-9])\b`)

func curlExamples(d document) []curlExample {
	var out []curlExample
	read := docs.Read(d.src)
	for _, span := range read.Spans { // the examples of a table's cells
		if strings.HasPrefix(span, "curl ") {
			out = append(out, curlExample{doc: d.name, command: span})
		}
	}
	for _, block := range read.Code {
		if block.Lang != "sh" && block.Lang != "console" {
			continue
		}
		for _, line := range strings.Split(strings.ReplaceAll(block.Text, "\\\n", " "), "\n") {
			line = strings.TrimPrefix(strings.TrimSpace(line), "$ ")
			if !strings.HasPrefix(line, "curl ") {
				continue
			}
			command, comment := splitShellLine(line)
			ex := curlExample{doc: d.name, command: command}
			if m := leadingStatus.FindStringSubmatch(comment); m != nil {
				ex.want, _ = strconv.Atoi(m[1])
			}
			out = append(out, ex)
		}
	}
	return out
}

// splitShellLine cuts a shell line at its first pipe or comment outside quotes: the command
// before it, and the comment's text.
func splitShellLine(line string) (command, comment string) {
	var quote rune
	for i, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '|':
			command = strings.TrimSpace(line[:i])
			if j := strings.Index(line[i:], " # "); j >= 0 {
				comment = strings.TrimSpace(line[i+j+3:])
			}
			return command, comment
		case r == '#' && (i == 0 || line[i-1] == ' '):
			return strings.TrimSpace(line[:i]), strings.TrimSpace(line[i+1:])
		}
	}
	return strings.TrimSpace(line), ""
}

func TestSplitShellLine(t *testing.T) {
	for _, c := range []struct{ line, command, comment string }{
		{`curl -H "X-API-Key: $KEY" localhost:8080/town/v1/meta`, `curl -H "X-API-Key: $KEY" localhost:8080/town/v1/meta`, ""},
		{`curl -i localhost:8080/town/v1/meta   # 401 missing_api_key`, `curl -i localhost:8080/town/v1/meta`, "401 missing_api_key"},
		{`curl -G --data-urlencode "q=a # b" x  # 200`, `curl -G --data-urlencode "q=a # b" x`, "200"},
		{`curl -si x | grep -i '^etag'  # the tag`, `curl -si x`, "the tag"},
		{`curl 'a|b' x`, `curl 'a|b' x`, ""},
	} {
		command, comment := splitShellLine(c.line)
		if command != c.command || comment != c.comment {
			t.Errorf("splitShellLine(%q) = %q, %q; want %q, %q", c.line, command, comment, c.command, c.comment)
		}
	}
}

// curlBinary is the curl the examples run with; without it the test is skipped, or fails under
// CI=true (.ci/run installs it).
func curlBinary(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("curl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("curl missing under CI (.ci/run installs it): %v", err)
		}
		t.Skipf("curl missing (%v); CI=true makes this a failure", err)
	}
	return path
}

// TestGuideExamples runs every curl example of the README and the guides with the real curl against
// a server on the real dataset, as a reader would: localhost:8080 is the test server, $KEY a pro
// key whose account allows the origins the CORS example sets, photo.jpg a portrait. Each must
// succeed, or answer the status its comment gives. The face examples run against a server with
// the face models.
func TestGuideExamples(t *testing.T) {
	curl := curlBinary(t)
	var town, face []curlExample
	for _, d := range guideDocuments(t) {
		for _, ex := range curlExamples(d) {
			if strings.Contains(ex.command, "/face/") {
				face = append(face, ex)
			} else {
				town = append(town, ex)
			}
		}
	}
	if len(town) < 30 || len(face) < 2 {
		t.Fatalf("found %d statistics and %d face examples; the parser lost some", len(town), len(face))
	}
	run := func(t *testing.T, ts *testServer, examples []curlExample) {
		key, account := storetest.CreateAccount(t, ts.store, "guide@example.com", hensachi.PlanPro)
		if _, err := (hensachi.Accounts{Store: ts.store}).SetOrigins(context.Background(), account.ID, "https://app.example.com, http://localhost:5173"); err != nil {
			t.Fatal(err)
		}
		host := strings.TrimPrefix(ts.http.URL, "http://")
		for _, ex := range examples {
			dir := t.TempDir()
			for _, name := range []string{"photo.jpg", "portrait.jpg"} {
				if err := os.WriteFile(filepath.Join(dir, name), scutImage(t, "CF100.jpg"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			command := strings.ReplaceAll(ex.command, "localhost:8080", host) + ` -s -o /dev/stderr -w '\n%{http_code}'`
			cmd := exec.Command("sh", "-c", command)
			cmd.Dir, cmd.Env = dir, append(os.Environ(), "KEY="+key, "CURL="+curl)
			out, err := cmd.Output()
			if err != nil {
				t.Errorf("%s: %s: %v", ex.doc, ex.command, err)
				continue
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			status, _ := strconv.Atoi(lines[len(lines)-1])
			if ex.want != 0 && status != ex.want || ex.want == 0 && (status < 200 || status > 299) {
				t.Errorf("%s: %s: status %d, want %s", ex.doc, ex.command, status, wantText(ex.want))
			}
		}
	}
	t.Run("town", func(t *testing.T) { run(t, newTestServer(t), town) })
	t.Run("face", func(t *testing.T) { run(t, newTestServer(t, withFaces(t)), face) })
}

func wantText(want int) string {
	if want == 0 {
		return "a success"
	}
	return strconv.Itoa(want)
}

// TestGuideSitePaths follows every link of the README and the guides to a path of the server
// (/docs, /town/map…, or an address on localhost:8080, /login included) on a server on the real
// dataset with login configured: each answers a success, after redirects.
func TestGuideSitePaths(t *testing.T) {
	env := newLoginEnv(t)
	get := func(path string) (int, string) {
		resp, err := http.Get(env.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Content-Type")
	}
	seen := map[string]bool{}
	for _, d := range guideDocuments(t) {
		for _, link := range docs.Read(d.src).Links {
			if rest, ok := strings.CutPrefix(link, "http://localhost:8080"); ok {
				link = rest
			}
			if !strings.HasPrefix(link, "/") || seen[link] {
				continue
			}
			seen[link] = true
			u, err := url.Parse(link)
			if err != nil {
				t.Errorf("%s: link %q: %v", d.name, link, err)
				continue
			}
			if status, _ := get(u.RequestURI()); status < 200 || status > 299 {
				t.Errorf("%s: link %q: status %d", d.name, link, status)
			}
		}
	}
	for _, g := range docs.Names {
		if status, ct := get(docs.PagePath(g)); status != 200 || !strings.HasPrefix(ct, "text/html") {
			t.Errorf("the page of guide %s: status %d, %s", g, status, ct)
		}
	}
}

var errorRow = regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\| ([0-9]{3}) \\| ")

// TestGuideErrorTable keeps the API guide's table of errors and hensachi.Kinds, the statuses the
// server answers each code with, together: every code once with its status, and no other.
func TestGuideErrorTable(t *testing.T) {
	src, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]int{}
	for _, m := range errorRow.FindAllStringSubmatch(string(src), -1) {
		status, _ := strconv.Atoi(m[2])
		rows[m[1]] = status
	}
	for _, k := range hensachi.Kinds {
		if got, ok := rows[k.Code]; !ok || got != k.Status {
			t.Errorf("docs/api.md's error table: %s with status %d (listed: %v, %d)", k.Code, k.Status, ok, got)
		}
		delete(rows, k.Code)
	}
	for code := range rows {
		t.Errorf("docs/api.md's error table lists %s, which hensachi.Kinds does not have", code)
	}
}

// TestGuideListsEveryCall: the API guide's table of calls names every operation of the APIs in
// openapi.json, so that a new call comes with its example.
func TestGuideListsEveryCall(t *testing.T) {
	src, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(serve.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	for path, ops := range doc.Paths {
		if !strings.HasPrefix(path, "/town/v1/") && !strings.HasPrefix(path, "/face/v1/") {
			continue
		}
		for method := range ops {
			if method == "options" || method == "parameters" {
				continue
			}
			if call := "`" + strings.ToUpper(method) + " " + path; !strings.Contains(string(src), call) {
				t.Errorf("docs/api.md's table of calls lacks %s`", call)
			}
		}
	}
}
