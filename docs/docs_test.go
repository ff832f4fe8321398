package docs_test

import (
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hensachi/hensachi/docs"
)

// documents are the guides and the README, by their path from this directory.
func documents(t *testing.T) map[string][]byte {
	t.Helper()
	guides, err := docs.Guides()
	if err != nil {
		t.Fatal(err)
	}
	all := map[string][]byte{}
	for _, g := range guides {
		all[g.File()] = g.Source
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	all["../README.md"] = readme
	return all
}

// TestLinksHaveTargets checks every relative link of the guides and the README as GitHub follows
// it: the file exists in the repository, and an anchor is a heading of its target. Links to the
// server's own paths are checked against a running server by serve.TestGuideSitePaths.
func TestLinksHaveTargets(t *testing.T) {
	all := documents(t)
	for name, src := range all {
		for _, link := range docs.Read(src).Links {
			if link == "" || strings.HasPrefix(link, "/") || strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(link, "#")
			target := name
			if file != "" {
				target = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(name), file)))
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s: link %q: %v", name, link, err)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			src, ok := all[target]
			if !ok {
				if src, ok = readMarkdown(target); !ok {
					t.Errorf("%s: link %q: an anchor into a file that is not Markdown", name, link)
					continue
				}
			}
			if !slices.Contains(docs.Read(src).Anchors, anchor) {
				t.Errorf("%s: link %q: %s has no heading with that anchor", name, link, target)
			}
		}
	}
}

var imgSrc = regexp.MustCompile(`<img src="([^"]+)"`)

// TestImagesExist: the pictures the README and the guides show in HTML (to size them) are files of
// the repository.
func TestImagesExist(t *testing.T) {
	for name, src := range documents(t) {
		for _, m := range imgSrc.FindAllStringSubmatch(string(src), -1) {
			if _, err := os.Stat(filepath.Join(filepath.Dir(name), m[1])); err != nil {
				t.Errorf("%s: image %q: %v", name, m[1], err)
			}
		}
	}
}

func readMarkdown(path string) ([]byte, bool) {
	if !strings.HasSuffix(path, ".md") {
		return nil, false
	}
	b, err := os.ReadFile(path)
	return b, err == nil
}

// TestEveryGuideSaysWhatItCovers: a guide opens with its title and a paragraph saying for whom it
// is and what it covers, in its language; the /docs page's Japanese title and summary of it are
// those of its Japanese version where it has one.
func TestEveryGuideSaysWhatItCovers(t *testing.T) {
	guides, err := docs.Guides()
	if err != nil {
		t.Fatal(err)
	}
	opening := map[string][2]string{"en": {"This guide is for ", "cover"}, "ja": {"このガイドは", "扱います"}}
	for _, g := range guides {
		_, rest, _ := strings.Cut(string(g.Source), "\n\n")
		o := opening[g.Lang]
		if g.Title == "" || !strings.HasPrefix(rest, o[0]) || !strings.Contains(strings.SplitN(rest, "\n\n", 2)[0], o[1]) {
			t.Errorf("%s does not open with its title and what it covers", g.File())
		}
		about, ok := docs.About[g.Name]
		switch {
		case !ok || about.Title == "" || !strings.HasSuffix(about.Summary, "。"):
			t.Errorf("docs.About has no Japanese title and summary of %s", g.Name)
		case g.Lang == "ja" && about.Title != g.Title:
			t.Errorf("docs.About titles %s %q, its Japanese version %q", g.Name, about.Title, g.Title)
		}
	}
}

var href = regexp.MustCompile(`href="([^"]*)"`)
var id = regexp.MustCompile(` id="([^"]*)"`)

// TestRenderedLinks renders every guide as the site does: no link leads to a Markdown file or out
// of the site's paths unless it is absolute, links to other guides lead to their pages, and every
// anchor a page links to is on that page.
func TestRenderedLinks(t *testing.T) {
	guides, err := docs.Guides()
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string][]string{}
	pages := map[string]string{}
	for _, g := range guides {
		html, err := docs.Render(g)
		if err != nil {
			t.Fatal(err)
		}
		pages[g.Path()] = string(html)
		for _, m := range id.FindAllStringSubmatch(string(html), -1) {
			ids[g.Path()] = append(ids[g.Path()], m[1])
		}
	}
	for name, html := range pages {
		if strings.Contains(html, "<script") {
			t.Errorf("%s: renders a script", name)
		}
		for _, m := range href.FindAllStringSubmatch(html, -1) {
			link := m[1]
			if unescaped, err := url.PathUnescape(link); err == nil {
				link = unescaped // an anchor in Japanese (#類似団体) is written percent-encoded
			}
			switch {
			case strings.Contains(link, "://"), strings.HasPrefix(link, "mailto:"):
			case strings.HasPrefix(link, "#"):
				if !slices.Contains(ids[name], link[1:]) {
					t.Errorf("%s: link %q: no such anchor on the page", name, link)
				}
			case strings.HasPrefix(link, "/"):
				page, anchor, _ := strings.Cut(link, "#")
				if strings.HasSuffix(page, ".md") {
					t.Errorf("%s: link %q leads to a Markdown file", name, link)
				}
				if got, isGuide := ids[page]; isGuide && anchor != "" && !slices.Contains(got, anchor) {
					t.Errorf("%s: link %q: no such anchor on %s", name, link, page)
				}
			default:
				t.Errorf("%s: relative link %q on a page", name, link)
			}
		}
	}
}

func TestSitePath(t *testing.T) {
	for _, c := range []struct {
		dest, want string
		ok         bool
	}{
		{"api.md", "/docs/api", true},
		// a link names a file: the English data guide, or its Japanese version at the guide's address
		{"data.md#denominators", "/docs/data.en#denominators", true},
		{"data.ja.md#分母", "/docs/data#分母", true},
		{"api.ja.md", "", false}, // no such version
		{"operating.md#several-replicas-on-postgresql", "/docs/operating#several-replicas-on-postgresql", true},
		{"./face.md#x", "/docs/face#x", true},
		{"#errors", "#errors", true},
		{"/town/map", "/town/map", true},
		{"https://example.com/a.md", "https://example.com/a.md", true},
		{"../README.md#guides", "/docs", true},
		{"../ARCHITECTURE.md", "", false},
		{"../face/models/AGE.md", "", false},
		{"other.md", "", false},
		{"../docs/api.md", "", false},
	} {
		got, ok := docs.SitePath(c.dest)
		if got != c.want || ok != c.ok {
			t.Errorf("SitePath(%q) = %q, %v; want %q, %v", c.dest, got, ok, c.want, c.ok)
		}
	}
}

func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"Several replicas on PostgreSQL":       "several-replicas-on-postgresql",
		`Age, gender and "is this a face"`:     "age-gender-and-is-this-a-face",
		"Hard cases: photos taken in the wild": "hard-cases-photos-taken-in-the-wild",
		"The statistics API (/town/v1)":        "the-statistics-api-townv1",
		"Caching: ETag":                        "caching-etag",
		"出典 と 年":                               "出典-と-年",
	} {
		if got := docs.Slug(heading); got != want {
			t.Errorf("Slug(%q) = %q, want %q", heading, got, want)
		}
	}
}

// TestEveryFileIsAGuide: a Markdown file added to docs/ is served and checked only once Names
// lists it.
func TestEveryFileIsAGuide(t *testing.T) {
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	guides, err := docs.Guides()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !slices.ContainsFunc(guides, func(g docs.Guide) bool { return g.File() == f }) {
			t.Errorf("docs/%s is neither a guide of docs.Names nor the Japanese version (name.ja.md) of one", f)
		}
	}
	if len(files) != len(guides) {
		t.Errorf("%d files in docs/, %d guides", len(files), len(guides))
	}
}

// TestRenderedTablesScroll: a guide's table is rendered inside a box that scrolls sideways on its
// own (the site's class scroll), so that at a phone's width it keeps readable columns and the page
// stays as wide as the screen.
func TestRenderedTablesScroll(t *testing.T) {
	guides, err := docs.Guides()
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range guides {
		html, err := docs.Render(g)
		if err != nil {
			t.Fatal(err)
		}
		tables, boxed := strings.Count(string(html), "<table"), strings.Count(string(html), `<div class="scroll"><table>`)
		if tables != boxed || strings.Count(string(html), "</table></div>") != tables {
			t.Errorf("%s: %d tables, %d in a scrolling box", g.File(), tables, boxed)
		}
		if g.Name == "data" && tables < 5 {
			t.Errorf("%s: %d tables, the guide has at least five", g.File(), tables)
		}
	}
}

// TestJapaneseDataGuide: the data guide's Japanese version holds what readers of the site need
// (the credits, directions, dashes, breaks, denominators, the evacuation rule, rounding) with the
// English version's tables, and links both ways.
func TestJapaneseDataGuide(t *testing.T) {
	guides, err := docs.Guides()
	if err != nil {
		t.Fatal(err)
	}
	var en, ja docs.Guide
	for _, g := range guides {
		switch {
		case g.Name == "data" && g.Lang == "en":
			en = g
		case g.Name == "data" && g.Lang == "ja":
			ja = g
		}
	}
	if ja.Source == nil || en.Source == nil {
		t.Fatalf("the data guide in English and Japanese: %v, %v", en.Source != nil, ja.Source != nil)
	}
	if en.Path() != "/docs/data.en" || ja.Path() != "/docs/data" || docs.PagePath("data") != ja.Path() {
		t.Errorf("addresses: English %s, Japanese %s", en.Path(), ja.Path())
	}
	for _, want := range []string{"## クレジット", "### 良い方の向きと種類", "### 出典のダッシュ", "### 系列・切れ目・調査年",
		"### 分母", "### 避難の規則", "### 丸め", "`lower_better`", "`jumin_next_january`", "28.75", "1,735", "(data.md)"} {
		if !strings.Contains(string(ja.Source), want) {
			t.Errorf("data.ja.md has no %q", want)
		}
	}
	if !strings.Contains(string(en.Source), "(data.ja.md)") {
		t.Error("data.md does not link its Japanese version")
	}
	rows := regexp.MustCompile("(?m)^\\|---")
	if got, want := len(rows.FindAllString(string(ja.Source), -1)), len(rows.FindAllString(string(en.Source), -1)); got != want {
		t.Errorf("data.ja.md has %d tables, data.md %d", got, want)
	}
}
