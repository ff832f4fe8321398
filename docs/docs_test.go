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
		all[g.Name+".md"] = g.Source
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
// is and what it covers.
func TestEveryGuideSaysWhatItCovers(t *testing.T) {
	guides, err := docs.Guides()
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range guides {
		_, rest, _ := strings.Cut(string(g.Source), "\n\n")
		if g.Title == "" || !strings.HasPrefix(rest, "This guide is for ") || !strings.Contains(strings.SplitN(rest, "\n\n", 2)[0], "cover") {
			t.Errorf("%s.md does not open with its title and what it covers", g.Name)
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
		pages[g.Name] = string(html)
		for _, m := range id.FindAllStringSubmatch(string(html), -1) {
			ids[docs.PagePath(g.Name)] = append(ids[docs.PagePath(g.Name)], m[1])
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
				if !slices.Contains(ids[docs.PagePath(name)], link[1:]) {
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
	for _, f := range files {
		if !slices.Contains(docs.Names, strings.TrimSuffix(f, ".md")) {
			t.Errorf("docs/%s is not among docs.Names", f)
		}
	}
	if len(files) != len(docs.Names) {
		t.Errorf("%d guides in docs/, %d names", len(files), len(docs.Names))
	}
}
