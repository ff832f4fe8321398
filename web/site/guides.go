package site

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"strings"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi/docs"
	"github.com/hensachi/hensachi/web/page"
)

// guidePage is one guide of docs/ in one language, rendered for its address (docs.Guide.Path).
type guidePage struct {
	page.Base
	Name, Path string
	Lang       string        // "en" or "ja"
	Other      *guideVersion // the guide in the other language, when it has both
	Body       template.HTML
}

// guideVersion is a link to a guide in a language.
type guideVersion struct{ URL, Label, Lang string }

// guideLink is a guide as the /docs page lists it: in Japanese, saying when it is in English only.
type guideLink struct {
	Title, URL, Summary string
	English             bool // the guide has no Japanese version
}

// renderGuides renders every guide once, when the site is made.
func renderGuides() ([]guidePage, error) {
	guides, err := docs.Guides()
	if err != nil {
		return nil, err
	}
	pages := make([]guidePage, len(guides))
	for i, g := range guides {
		body, err := docs.Render(g)
		if err != nil {
			return nil, err
		}
		pages[i] = guidePage{Base: page.Base{Title: g.Title}, Name: g.Name, Path: g.Path(), Lang: g.Lang, Body: body}
		if docs.HasJapanese(g.Name) {
			other := guideVersion{URL: docs.Guide{Name: g.Name, Lang: "en"}.Path(), Label: "English version", Lang: "en"}
			if g.Lang == "en" {
				other = guideVersion{URL: docs.Guide{Name: g.Name, Lang: "ja"}.Path(), Label: "日本語版", Lang: "ja"}
			}
			pages[i].Other = &other
		}
	}
	return pages, nil
}

// guide answers /docs/{name} with that guide: /docs/data the Japanese version of a guide that has
// one, /docs/data.en its English.
func (s *Site) guide(rw http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	for _, g := range s.guides {
		if g.Path != "/docs/"+ps.ByName("guide") {
			continue
		}
		l := s.layout()
		g.Canonical = strings.TrimSuffix(s.deps.PublicURL, "/") + g.Path
		g.Description = "hensachi: " + g.Title
		g.Credit, g.NoLogin = l.Credit, l.NoLogin
		var body bytes.Buffer
		if err := templates.ExecuteTemplate(&body, "guide", g); err != nil {
			page.Error(rw, r, l, fmt.Errorf("render guide %s: %w", g.Path, err))
			return
		}
		rw.Header().Set("Cache-Control", "public, max-age=300")
		page.Write(rw, r, http.StatusOK, body.Bytes())
		return
	}
	s.NotFound(rw, r)
}

// guideLinks are the guides for the /docs page's list, in Japanese.
func guideLinks() []guideLink {
	links := make([]guideLink, len(docs.Names))
	for i, name := range docs.Names {
		about := docs.About[name]
		links[i] = guideLink{Title: about.Title, URL: docs.PagePath(name), Summary: about.Summary, English: !docs.HasJapanese(name)}
	}
	return links
}
