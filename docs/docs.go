// Package docs holds the guides (docs/*.md), which GitHub shows as they are and the site renders
// as pages under /docs. Render turns a guide into HTML for those pages: links between guides become
// the pages' addresses, links to files of the repository that the server cannot show become plain
// text, and headings get the anchors GitHub gives them, so that one link works in both places.
package docs

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"path"
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

//go:embed *.md
var files embed.FS

// Guide is one guide: its name (the file's without .md, and the page's /docs/{name}), title and
// Markdown source.
type Guide struct {
	Name, Title string
	Source      []byte
}

// Names lists the guides in the order the README and the /docs page list them.
var Names = []string{"api", "data", "face", "operating", "development"}

// Guides returns every guide, in the order of Names.
func Guides() ([]Guide, error) {
	guides := make([]Guide, 0, len(Names))
	for _, name := range Names {
		src, err := files.ReadFile(name + ".md")
		if err != nil {
			return nil, fmt.Errorf("guide %s: %w", name, err)
		}
		title, _, _ := strings.Cut(string(src), "\n")
		guides = append(guides, Guide{Name: name, Title: strings.TrimPrefix(title, "# "), Source: src})
	}
	return guides, nil
}

// PagePath is where the site serves the guide of that name.
func PagePath(name string) string { return "/docs/" + name }

var markdown = goldmark.New(goldmark.WithExtensions(extension.GFM),
	goldmark.WithParserOptions(parser.WithAutoHeadingID(), parser.WithASTTransformers(util.Prioritized(siteLinks{}, 100))))

// Render returns the guide's body as HTML for the site, its links rewritten for the pages. Raw
// HTML in a guide is not rendered (goldmark's default), so a guide cannot put markup on a page.
func Render(g Guide) (template.HTML, error) {
	var out bytes.Buffer
	ctx := parser.NewContext(parser.WithIDs(NewIDs()))
	if err := markdown.Convert(g.Source, &out, parser.WithContext(ctx)); err != nil {
		return "", fmt.Errorf("render guide %s: %w", g.Name, err)
	}
	return template.HTML(out.String()), nil
}

// siteLinks rewrites a guide's relative links for the pages: another guide's file (api.md#x) is
// its page (/docs/api#x), the README the /docs page (without its anchor: the page has not its headings), and a link to any other file of the
// repository, which the server does not serve, is left as its text.
type siteLinks struct{}

func (siteLinks) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	var plain []*ast.Link
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		link, ok := n.(*ast.Link)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		dest, keep := SitePath(string(link.Destination))
		if keep {
			link.Destination = []byte(dest)
		} else {
			plain = append(plain, link)
		}
		return ast.WalkContinue, nil
	})
	for _, link := range plain {
		parent := link.Parent()
		for c := link.FirstChild(); c != nil; {
			next := c.NextSibling()
			parent.InsertBefore(parent, link, c)
			c = next
		}
		parent.RemoveChild(parent, link)
	}
}

// SitePath is where a guide's link leads on the site: absolute addresses, site paths and anchors
// as they are, a guide's file as its page; ok is false for a file of the repository the server
// does not serve.
func SitePath(dest string) (_ string, ok bool) {
	if dest == "" || strings.HasPrefix(dest, "#") || strings.HasPrefix(dest, "/") || strings.Contains(dest, "://") ||
		strings.HasPrefix(dest, "mailto:") {
		return dest, true
	}
	file, anchor, _ := strings.Cut(dest, "#")
	if anchor != "" {
		anchor = "#" + anchor
	}
	if file == "../README.md" { // the server has no README: its index of the guides is /docs
		return "/docs", true
	}
	if name, isGuide := strings.CutSuffix(path.Clean(file), ".md"); isGuide && !strings.Contains(name, "/") {
		for _, n := range Names {
			if n == name {
				return PagePath(name) + anchor, true
			}
		}
	}
	return "", false
}

// IDs gives headings the anchors GitHub gives them: the text in lower case, without punctuation,
// spaces as hyphens, and -1, -2… after a repeated one.
type IDs struct{ seen map[string]int }

// NewIDs returns the anchors of one document.
func NewIDs() *IDs { return &IDs{seen: map[string]int{}} }

// Generate returns the anchor of a heading's text.
func (ids *IDs) Generate(value []byte, _ ast.NodeKind) []byte {
	id := Slug(string(value))
	n := ids.seen[id]
	ids.seen[id] = n + 1
	if n > 0 {
		id = fmt.Sprintf("%s-%d", id, n)
	}
	return []byte(id)
}

// Put records an anchor a heading gave itself.
func (ids *IDs) Put(value []byte) { ids.seen[string(value)]++ }

// Slug is GitHub's anchor of a heading's text, before repeats are numbered.
func Slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.M, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Read returns what a Markdown document (a guide or the README) holds for its checks: the
// destinations of its links, the anchors of its headings, and its fenced code blocks by language.
func Read(src []byte) Document {
	ctx := parser.NewContext(parser.WithIDs(NewIDs()))
	root := markdown.Parser().Parse(text.NewReader(src), parser.WithContext(ctx))
	var d Document
	ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			d.Links = append(d.Links, string(n.Destination))
		case *ast.AutoLink:
			d.Links = append(d.Links, string(n.URL(src)))
		case *ast.Image:
			d.Links = append(d.Links, string(n.Destination))
		case *ast.Heading:
			if id, ok := n.AttributeString("id"); ok {
				d.Anchors = append(d.Anchors, string(id.([]byte)))
			}
		case *ast.CodeSpan:
			var b strings.Builder
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					b.Write(t.Segment.Value(src))
				}
			}
			d.Spans = append(d.Spans, b.String())
		case *ast.FencedCodeBlock:
			var b strings.Builder
			for i := 0; i < n.Lines().Len(); i++ {
				line := n.Lines().At(i)
				b.Write(line.Value(src))
			}
			d.Code = append(d.Code, CodeBlock{Lang: string(n.Language(src)), Text: b.String()})
		}
		return ast.WalkContinue, nil
	})
	return d
}

// Document is what Read finds in a Markdown document.
type Document struct {
	Links   []string // destinations as written
	Anchors []string // the headings' anchors, as GitHub and the pages give them
	Code    []CodeBlock
	Spans   []string // the text of inline code
}

// CodeBlock is a fenced code block: its language and its text.
type CodeBlock struct{ Lang, Text string }
