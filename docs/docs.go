// Package docs holds the guides (docs/*.md), which GitHub shows as they are and the site renders
// as pages under /docs. Render turns a guide into HTML for those pages: links between guides become
// the pages' addresses, links to files of the repository that the server cannot show become plain
// text, and headings get the anchors GitHub gives them, so that one link works in both places.
//
// The guides are written in English; a guide may have a Japanese version beside it
// (docs/{name}.ja.md), which the Japanese site serves at the guide's address, /docs/{name}, the
// English moving to /docs/{name}.en. A link names a file, and leads to that file's page: data.md to
// the English, data.ja.md to the Japanese.
package docs

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"path"
	"slices"
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

//go:embed *.md
var files embed.FS

// Guide is one guide in one language: its name (the English file's without .md), title, language
// ("en", or "ja" for a Japanese version) and Markdown source.
type Guide struct {
	Name, Title, Lang string
	Source            []byte
}

// File is the guide's file in docs/: data.md, or data.ja.md for the Japanese version.
func (g Guide) File() string { return fileOf(g.Name, g.Lang) }

// Path is where the site serves this version of the guide.
func (g Guide) Path() string {
	if g.Lang == "en" && HasJapanese(g.Name) {
		return PagePath(g.Name) + ".en"
	}
	return PagePath(g.Name)
}

func fileOf(name, lang string) string {
	if lang == "ja" {
		return name + ".ja.md"
	}
	return name + ".md"
}

// HasJapanese reports whether the guide of that name has a Japanese version.
func HasJapanese(name string) bool {
	_, err := fs.Stat(files, fileOf(name, "ja"))
	return err == nil
}

// Names lists the guides in the order the README and the /docs page list them.
var Names = []string{"api", "data", "face", "operating", "development"}

// Guides returns every guide in the order of Names, each followed by its Japanese version when it
// has one.
func Guides() ([]Guide, error) {
	guides := make([]Guide, 0, len(Names))
	for _, name := range Names {
		for _, lang := range []string{"en", "ja"} {
			if lang == "ja" && !HasJapanese(name) {
				continue
			}
			src, err := files.ReadFile(fileOf(name, lang))
			if err != nil {
				return nil, fmt.Errorf("guide %s: %w", name, err)
			}
			title, _, _ := strings.Cut(string(src), "\n")
			guides = append(guides, Guide{Name: name, Title: strings.TrimPrefix(title, "# "), Lang: lang, Source: src})
		}
	}
	return guides, nil
}

// PagePath is the address of the guide of that name: its Japanese version where it has one, else
// its English.
func PagePath(name string) string { return "/docs/" + name }

// About is what the site's /docs page says of each guide in Japanese: its title (a guide with a
// Japanese version has that version's) and, in a sentence, for whom it is and what it covers.
var About = map[string]struct{ Title, Summary string }{
	"api":         {"API ガイド", "2 つの API を呼ぶ人向けに、キーの受け取り方、すべての呼び出しとその例、パラメータ、エラーと状態コード、1 日の上限と使用量のヘッダ、ブラウザからの呼び出し（CORS）、ETag によるキャッシュ、一括ダウンロード、OpenAPI とクライアントの生成を説明します。"},
	"data":        {"データガイド", "市区町村の数値を使う人向けに、出典とクレジット、各数値の年、偏差値・順位・同順位・値なしの求め方、良い方の向き、ダッシュの読み方、系列の切れ目、分母、避難の規則、丸め、指標の一覧と地図を説明します。"},
	"face":        {"顔分析ガイド", "顔分析（POST /face/v1/predict）を使う・運用する人向けに、写真に何をするか、どのモデルをどのライセンスで動かすか、条件ごとの精度、年齢の幅の意味、アップロードの制限を説明します。"},
	"operating":   {"運用ガイド", "サーバーを動かす人向けに、すべてのフラグと環境変数、PostgreSQL での複数台の運用、ID プロバイダでのログイン、メール、メトリクスと警報、ログ、再起動なしのデータ更新、バックアップ、アップロードの保存期間、サーバーが守ることを説明します。"},
	"development": {"開発ガイド", "このプロジェクトに手を入れる人向けに、コードの構成、テストの段階と内容、ベンチマーク、モデルの学習、これまでの計測値とその計測方法を説明します。"},
}

var markdown = goldmark.New(goldmark.WithExtensions(extension.GFM),
	goldmark.WithParserOptions(parser.WithAutoHeadingID(), parser.WithASTTransformers(util.Prioritized(siteLinks{}, 100))),
	// before GFM's table renderer (500), so that it renders tables in its place
	goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(scrollingTables{}, 100))))

// scrollingTables renders a table inside a box of the site's class scroll, which scrolls sideways
// on its own: a guide's table of four columns of prose, squeezed to a phone's width, would be one
// word a line (a CJK text's narrowest is one character), while a table wider than its box scrolls
// within it and leaves the page as wide as the screen.
type scrollingTables struct{}

func (scrollingTables) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(east.KindTable, func(w util.BufWriter, _ []byte, _ ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			w.WriteString(`<div class="scroll"><table>` + "\n")
		} else {
			w.WriteString("</table></div>\n")
		}
		return ast.WalkContinue, nil
	})
}

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

// siteLinks rewrites a guide's relative links for the pages: a guide's file (api.md#x) is its page
// (/docs/api#x; data.md#x the English /docs/data.en#x, data.ja.md#x the Japanese /docs/data#x),
// the README the /docs page (without its anchor: the page has not its headings), and a link to any
// other file of the repository, which the server does not serve, is left as its text.
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
// as they are, a guide's file as the page of that file (Guide.Path); ok is false for a file of the
// repository the server does not serve.
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
		lang := "en"
		if n, ja := strings.CutSuffix(name, ".ja"); ja {
			name, lang = n, "ja"
		}
		if slices.Contains(Names, name) && (lang == "en" || HasJapanese(name)) {
			return Guide{Name: name, Lang: lang}.Path() + anchor, true
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
