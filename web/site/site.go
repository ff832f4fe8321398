// Package site serves the public pages: the landing page and search, a page per municipality,
// rankings, prefectures, the indicators, the comparison and the scatter, the CSV downloads and the API
// documentation. They are read without logging in, need no script, and are cached by browsers for
// a short while. Each page is a file of its own; site.go holds the routes and the one wrapper that
// answers every failure.
package site

import (
	"bytes"
	"embed"
	"fmt"
	"net/http"
	"strings"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/export"
	"github.com/hensachi/hensachi/internal/param"
	"github.com/hensachi/hensachi/town"
	"github.com/hensachi/hensachi/web/page"
)

// Deps are what the public pages read.
type Deps struct {
	PublicURL string   // where users reach the server, e.g. https://hensachi.example
	Catalogs  Catalogs // nil: no statistics pages (landing, search, municipalities, rankings, prefectures)
	OpenAPI   []byte   // the server's openapi.json, rendered at /docs; nil: no documentation page
	Login     bool     // the server takes logins: the pages link to them
}

// Catalogs gives the pages the read model of the dataset being served (town.Catalogs).
type Catalogs interface {
	// Catalog returns the read model of the dataset being served. It holds its own copies, so a
	// page keeps reading it when a new dataset swaps in.
	Catalog() (*town.Catalog, error)
}

// Site serves the public pages.
type Site struct {
	deps    Deps
	apiDocs docsPage
	guides  []guidePage // docs/*.md, at /docs/{name}
}

//go:embed templates/*.html
var files embed.FS

//go:embed static/favicon.svg
var favicon []byte

var templates = page.Parse(files, "templates/*.html")

// New prepares the pages; the OpenAPI document, when given, must parse.
func New(deps Deps) (*Site, error) {
	s := &Site{deps: deps}
	var err error
	if s.guides, err = renderGuides(); err != nil {
		return nil, err
	}
	if deps.OpenAPI != nil {
		if s.apiDocs, err = buildDocs(deps.OpenAPI); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Routes registers the pages through the server's instrumented handle.
func (s *Site) Routes(handle func(method, path string, h httprouter.Handle)) {
	handle(http.MethodGet, "/favicon.svg", serveFavicon)
	// browsers and crawlers ask for /favicon.ico whatever the pages link to; it is the same icon
	handle(http.MethodGet, "/favicon.ico", func(rw http.ResponseWriter, r *http.Request, _ httprouter.Params) {
		http.Redirect(rw, r, "/favicon.svg", http.StatusMovedPermanently)
	})
	if s.deps.OpenAPI != nil {
		handle(http.MethodGet, "/docs", s.docs)
		handle(http.MethodPost, "/docs", s.docs)
	}
	handle(http.MethodGet, "/docs/:guide", s.guide)
	if s.deps.Catalogs == nil {
		return
	}
	handle(http.MethodGet, "/", s.catalogPage(s.home))
	handle(http.MethodGet, "/search", s.catalogPage(s.search))
	handle(http.MethodGet, "/town/municipalities/:code", s.catalogPage(s.municipality))
	handle(http.MethodGet, "/town/municipalities/:code/indicators/:key", s.catalogPage(s.townIndicator))
	handle(http.MethodGet, "/town/rankings/:axis", s.catalogPage(s.ranking))
	handle(http.MethodGet, "/town/indicators", s.catalogPage(s.indicatorCatalogue))
	handle(http.MethodGet, "/town/indicators/:key", s.catalogPage(s.indicator))
	handle(http.MethodGet, "/town/prefectures", s.catalogPage(s.prefectures))
	handle(http.MethodGet, "/town/prefectures/:pref", s.catalogPage(s.prefecture))
	handle(http.MethodGet, "/town/scatter", s.catalogPage(s.scatter))
	handle(http.MethodGet, "/town/map", s.catalogPage(s.mapPage))
	handle(http.MethodGet, "/town/compare", s.catalogPage(s.compare))
	for _, f := range []*export.Format{export.CSV, export.GeoJSON} {
		handle(http.MethodGet, "/town/municipalities."+f.Name, s.withCatalog(s.download(f)))
	}
	handle(http.MethodGet, "/robots.txt", func(rw http.ResponseWriter, _ *http.Request, _ httprouter.Params) {
		rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
		rw.Write([]byte("User-agent: *\nDisallow: /account\nDisallow: /auth/\nDisallow: /demo/\n"))
	})
}

// NotFound answers a browser that asked for a path no route has with the site's not-found page,
// not the API's problem document (serve calls it).
func (s *Site) NotFound(rw http.ResponseWriter, r *http.Request) {
	page.Error(rw, r, s.layout(), hensachi.Errorf(hensachi.ENotFound, "このページはありません。"))
}

func serveFavicon(rw http.ResponseWriter, _ *http.Request, _ httprouter.Params) {
	h := rw.Header()
	h.Set("Content-Type", "image/svg+xml")
	h.Set("Cache-Control", "public, max-age=86400")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	h.Set("X-Content-Type-Options", "nosniff")
	rw.Write(favicon)
}

// layout is what every page's layout shows of this server: the data's credit, and no link to the
// login or account pages when it takes no logins.
func (s *Site) layout() page.Base { return page.Base{Credit: s.Credit(), NoLogin: !s.deps.Login} }

// Credit is the data's source credit for the footer, when the server has the dataset.
func (s *Site) Credit() hensachi.Link {
	if s.deps.Catalogs == nil {
		return hensachi.Link{}
	}
	c, err := s.deps.Catalogs.Catalog()
	if err != nil {
		return hensachi.Link{}
	}
	return c.Meta.Source
}

// pageHandler renders one public page from the catalog and the query; it returns the template and
// its data, or an error that the wrapper turns into a message page.
type pageHandler func(c *town.Catalog, q param.Query, ps httprouter.Params) (name string, data any, err error)

// catalogHandler answers one public route from the catalog and the query; the error it returns,
// before writing anything, becomes a message page.
type catalogHandler func(c *town.Catalog, q param.Query, rw http.ResponseWriter, r *http.Request, ps httprouter.Params) error

// withCatalog wraps a public route: the catalog of the dataset being served, the query read as the
// pages read it (param.ParsePage), and one place for failures, which page.Error answers with the
// status of their code.
func (s *Site) withCatalog(h catalogHandler) httprouter.Handle {
	return func(rw http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		if err := s.answer(h, rw, r, ps); err != nil {
			page.Error(rw, r, s.layout(), err)
		}
	}
}

func (s *Site) answer(h catalogHandler, rw http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	c, err := s.deps.Catalogs.Catalog()
	if err != nil {
		return &hensachi.Error{Code: hensachi.EUnavailable, Message: "データを読み込めません。しばらくしてからもう一度お試しください。", Cause: err}
	}
	q, err := param.ParsePage(r.URL.RawQuery)
	if err != nil {
		return err
	}
	return h(c, q, rw, r, ps)
}

// catalogPage wraps a public page: withCatalog, and the headers every page has.
func (s *Site) catalogPage(h pageHandler) httprouter.Handle {
	return s.withCatalog(func(c *town.Catalog, q param.Query, rw http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
		name, data, err := h(c, q, ps)
		if err != nil {
			return err
		}
		var body bytes.Buffer
		if err := templates.ExecuteTemplate(&body, name, data); err != nil {
			return fmt.Errorf("render %s: %w", name, err)
		}
		rw.Header().Set("Cache-Control", "public, max-age=300")
		page.Write(rw, r, http.StatusOK, body.Bytes())
		return nil
	})
}

func (s *Site) base(c *town.Catalog, title, description, path string) page.Base {
	p := page.Base{Title: title, Description: description, Credit: c.Meta.Source, NoLogin: !s.deps.Login}
	if path != "" {
		p.Canonical = strings.TrimSuffix(s.deps.PublicURL, "/") + path
	}
	return p
}
