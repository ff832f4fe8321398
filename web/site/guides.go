package site

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"strings"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/docs"
	"github.com/hensachi/hensachi/web/page"
)

// guidePage is one guide of docs/ rendered for /docs/{name}.
type guidePage struct {
	page.Base
	Name string
	Body template.HTML
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
		pages[i] = guidePage{Base: page.Base{Title: g.Title}, Name: g.Name, Body: body}
	}
	return pages, nil
}

// guide answers /docs/{name} with that guide.
func (s *Site) guide(rw http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	for _, g := range s.guides {
		if g.Name != ps.ByName("guide") {
			continue
		}
		g.Canonical = strings.TrimSuffix(s.deps.PublicURL, "/") + docs.PagePath(g.Name)
		g.Description = "hensachi: " + g.Title
		g.Credit, g.NoLogin = s.Credit(), !s.deps.Login
		var body bytes.Buffer
		if err := templates.ExecuteTemplate(&body, "guide", g); err != nil {
			page.Error(rw, r, s.layout(), fmt.Errorf("render guide %s: %w", g.Name, err))
			return
		}
		rw.Header().Set("Cache-Control", "public, max-age=300")
		page.Write(rw, r, http.StatusOK, body.Bytes())
		return
	}
	s.NotFound(rw, r)
}

// guideLinks are the guides for the /docs page's list.
func (s *Site) guideLinks() []hensachi.Link {
	links := make([]hensachi.Link, len(s.guides))
	for i, g := range s.guides {
		links[i] = hensachi.Link{Name: g.Title, URL: docs.PagePath(g.Name)}
	}
	return links
}
