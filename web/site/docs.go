package site

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"html/template"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/web/page"
)

// The API documentation is rendered here from the server's own openapi.json, so it cannot
// disagree with the document clients generate code from.

// apiDoc is the part of an OpenAPI document the page shows.
type apiDoc struct {
	Info struct {
		Title, Version, Description string
		DescriptionJA               string `json:"x-description-ja"` // the page's introduction; Description stays the document's English
	}
	Tags []struct {
		Name, Description string
		TitleJA           string `json:"x-title-ja"` // the group's heading on the Japanese page
		// OnPage false leaves a tag's operations off the page: the site's own pages, which
		// the document lists for clients that check every route, are not the API's.
		OnPage *bool `json:"x-docs-page"`
	}
	Paths      map[string]map[string]docOperation
	Components struct {
		Parameters map[string]docParameter
		Responses  map[string]docResponse
		Schemas    map[string]struct {
			Type string
			Enum []string
		}
	}
}

type docOperation struct {
	OperationID string `json:"operationId"`
	Summary     string
	SummaryJA   string `json:"x-summary-ja"` // the page's heading line; Summary and Description stay the document's English
	// DescriptionJA is the operation in one Japanese sentence, what the page says under its heading.
	DescriptionJA string `json:"x-description-ja"`
	Description   string
	Tags          []string
	Security      *[]map[string][]string
	Parameters    []docParameter
	RequestBody   *struct {
		Content map[string]json.RawMessage
	} `json:"requestBody"`
	Responses map[string]docResponse
}

type docParameter struct {
	Ref         string `json:"$ref"`
	Name, In    string
	Required    bool
	Description string
	Example     any // the value the curl examples use
	Schema      struct {
		Type    string
		Enum    []string
		Pattern string
		Default any
		Minimum *float64
		Maximum *float64
		Ref     string `json:"$ref"`
		AllOf   []struct {
			Ref string `json:"$ref"`
		} `json:"allOf"`
	}
}

type docResponse struct {
	Ref         string `json:"$ref"`
	Description string
	Content     map[string]struct {
		Schema struct {
			Ref string `json:"$ref"`
		}
		Examples map[string]struct {
			Summary string
			Value   json.RawMessage
		}
	}
}

// docsPage is the rendered documentation.
type docsPage struct {
	page.Base
	Intro   string // Japanese
	IntroEN string // the document's own, for those who want the original
	Groups  []docGroup
	// Common are the responses operations share (components.responses), each shown once after
	// the operations, which name them by status only: written out under every operation, they
	// were most of the page.
	Common []docStatus
	Key    string // the visitor's key, when they entered it, for the examples
	Origin string
	Guides []guideLink // the guides of docs/, each a page of its own
}

type docGroup struct {
	Tag, Title string
	Operations []docOp
}

type docOp struct {
	ID, Method, Path, Summary, SummaryEN string
	DescriptionJA, Description           template.HTML
	Keyed                                bool
	Parameters                           []docParam
	Body                                 string
	Responses                            []docStatus
	Common                               string // the statuses of its shared responses, e.g. "304, 401"
	Example                              string // the path and query of the curl example
	Curl                                 string // filled in per visitor
}

type docParam struct {
	Name, In, Type string
	Description    template.HTML
}

type docStatus struct {
	Code, Schema string
	Description  template.HTML
	Examples     []docExample
}

// docExample is one example body of a response, as the client receives it.
type docExample struct{ Summary, Body string }

// buildDocs turns the OpenAPI document into the page's groups, in the document's tag order and
// each group in path order; the page leaves out the preflights and the tags marked x-docs-page:
// false.
func buildDocs(raw []byte) (docsPage, error) {
	var doc apiDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		return docsPage{}, fmt.Errorf("read openapi.json: %w", err)
	}
	p := docsPage{Intro: cmp.Or(doc.Info.DescriptionJA, doc.Info.Description), IntroEN: doc.Info.Description}
	for _, tag := range doc.Tags {
		if tag.OnPage != nil && !*tag.OnPage {
			continue
		}
		g := docGroup{Tag: tag.Name, Title: cmp.Or(tag.TitleJA, tag.Description)}
		for _, path := range slices.Sorted(maps.Keys(doc.Paths)) {
			for _, method := range slices.Sorted(maps.Keys(doc.Paths[path])) {
				if method == "options" {
					continue // a browser's preflight, which no one calls by hand
				}
				op := doc.Paths[path][method]
				if !slices.Contains(op.Tags, tag.Name) {
					continue
				}
				g.Operations = append(g.Operations, doc.operation(path, method, op))
			}
		}
		p.Groups = append(p.Groups, g)
	}
	shared := map[string][]string{} // the statuses each shared response is given for
	for _, ops := range doc.Paths {
		for method, op := range ops {
			for code, r := range op.Responses {
				if name, ok := strings.CutPrefix(r.Ref, "#/components/responses/"); ok && method != "options" && !slices.Contains(shared[name], code) {
					shared[name] = append(shared[name], code)
				}
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(shared)) {
		st := doc.status(doc.Components.Responses[name])
		slices.Sort(shared[name])
		st.Code = strings.Join(shared[name], ", ")
		p.Common = append(p.Common, st)
	}
	slices.SortStableFunc(p.Common, func(a, b docStatus) int { return strings.Compare(a.Code, b.Code) })
	return p, nil
}

func (doc *apiDoc) operation(path, method string, op docOperation) docOp {
	o := docOp{ID: op.OperationID, Method: strings.ToUpper(method), Path: path, Summary: cmp.Or(op.SummaryJA, op.Summary), SummaryEN: op.Summary,
		DescriptionJA: withCode(op.DescriptionJA), Description: withCode(op.Description),
		Keyed: op.Security == nil || len(*op.Security) > 0}
	example := path
	var query []string
	for _, prm := range op.Parameters {
		if name, ok := strings.CutPrefix(prm.Ref, "#/components/parameters/"); ok {
			prm = doc.Components.Parameters[name]
		}
		typ, enum := prm.Schema.Type, prm.Schema.Enum
		ref := prm.Schema.Ref
		if len(prm.Schema.AllOf) == 1 {
			ref = prm.Schema.AllOf[0].Ref
		}
		if name, ok := strings.CutPrefix(ref, "#/components/schemas/"); ok {
			typ, enum = doc.Components.Schemas[name].Type, doc.Components.Schemas[name].Enum
		}
		switch {
		case len(enum) > 0:
			typ = strings.Join(enum, " | ")
		case prm.Schema.Pattern != "":
			typ += " " + prm.Schema.Pattern
		}
		if prm.Schema.Minimum != nil && prm.Schema.Maximum != nil {
			typ += " " + docNumber(*prm.Schema.Minimum) + "–" + docNumber(*prm.Schema.Maximum)
		}
		if prm.Schema.Default != nil {
			typ += "（既定 " + docValue(prm.Schema.Default) + "）"
		}
		where := map[string]string{"path": "パス", "query": "クエリ", "header": "ヘッダ"}[prm.In]
		if prm.Required {
			where += "・必須"
		}
		o.Parameters = append(o.Parameters, docParam{Name: prm.Name, In: where, Type: typ, Description: withCode(prm.Description)})
		// the curl example fills in the parameters the document gives an example of
		if prm.Example != nil {
			switch v := url.PathEscape(docValue(prm.Example)); prm.In {
			case "path":
				example = strings.ReplaceAll(example, "{"+prm.Name+"}", v)
			case "query":
				query = append(query, prm.Name+"="+v)
			}
		}
	}
	if len(query) > 0 {
		example += "?" + strings.Join(query, "&")
	}
	if op.RequestBody != nil {
		o.Body = strings.Join(slices.Sorted(maps.Keys(op.RequestBody.Content)), ", ")
	}
	var common []string
	for _, code := range slices.Sorted(maps.Keys(op.Responses)) {
		r := op.Responses[code]
		if strings.HasPrefix(r.Ref, "#/components/responses/") {
			common = append(common, code)
			continue
		}
		st := doc.status(r)
		st.Code = code
		o.Responses = append(o.Responses, st)
	}
	o.Common = strings.Join(common, ", ")
	o.Example = example
	return o
}

// status is a response as the page shows it: its description, schemas and examples.
func (doc *apiDoc) status(r docResponse) docStatus {
	var schemas []string
	var examples []docExample
	for _, mediaType := range slices.Sorted(maps.Keys(r.Content)) {
		c := r.Content[mediaType]
		if c.Schema.Ref != "" {
			schemas = append(schemas, strings.TrimPrefix(c.Schema.Ref, "#/components/schemas/"))
		}
		for _, name := range slices.Sorted(maps.Keys(c.Examples)) {
			e := c.Examples[name]
			examples = append(examples, docExample{Summary: e.Summary, Body: exampleBody(e.Value)})
		}
	}
	return docStatus{Description: withCode(r.Description), Schema: strings.Join(schemas, ", "), Examples: examples}
}

// withCode writes a description of the document with its Markdown code spans (`GET /x`) as code
// elements, the rest escaped.
func withCode(s string) template.HTML {
	var b strings.Builder
	for i, part := range strings.Split(s, "`") {
		if i%2 == 1 && i < strings.Count(s, "`") {
			b.WriteString("<code>" + template.HTMLEscapeString(part) + "</code>")
		} else {
			if i%2 == 1 {
				b.WriteString("`") // an unpaired backtick stays as written
			}
			b.WriteString(template.HTMLEscapeString(part))
		}
	}
	return template.HTML(b.String())
}

// docNumber writes a number of the document as people read it: 1,000,000, not 1e+06.
func docNumber(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return groupThousands(strconv.FormatInt(int64(v), 10))
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// docValue writes a value of the document (a default, an example) as it is sent.
func docValue(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// exampleBody is an example's value as the response's body: a string as it is, JSON indented.
func exampleBody(raw json.RawMessage) string {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return text
	}
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}

// curl is the example command of an operation for a server's origin and a key ("" leaves a
// shell variable in its place).
func (o docOp) curl(origin, key string) string {
	c := "curl"
	if o.Method != http.MethodGet {
		c += " -X " + o.Method
	}
	if o.Keyed {
		if key == "" {
			key = "$HENSACHI_API_KEY"
		}
		c += ` -H "X-API-Key: ` + key + `"`
	}
	if o.Body != "" {
		c += " -F file=@photo.jpg"
	}
	return c + ` "` + origin + o.Example + `"`
}

// docs renders the documentation; a POST with a key shows the examples with that key filled in,
// on a page that is not stored and never puts the key in an address.
func (s *Site) docs(rw http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	p := s.apiDocs
	p.Origin = strings.TrimSuffix(s.deps.PublicURL, "/")
	p.Base = page.Base{Title: "API ドキュメント", Description: "hensachi の市区町村統計 API と顔分析 API の全エンドポイント、パラメータ、応答、curl の例。",
		Canonical: p.Origin + "/docs", Credit: s.Credit(), NoLogin: !s.deps.Login}
	if r.Method == http.MethodPost {
		r.Body = http.MaxBytesReader(rw, r.Body, 4<<10)
		if key := strings.TrimSpace(r.PostFormValue("key")); hensachi.CheckAPIKey(key) {
			p.Key = key
		}
		rw.Header().Set("Cache-Control", "no-store")
	} else {
		rw.Header().Set("Cache-Control", "public, max-age=300")
	}
	p.Guides = guideLinks()
	p.Groups = slices.Clone(p.Groups)
	for i, g := range p.Groups {
		g.Operations = slices.Clone(g.Operations)
		for j := range g.Operations {
			g.Operations[j].Curl = g.Operations[j].curl(p.Origin, p.Key)
		}
		p.Groups[i] = g
	}
	var body bytes.Buffer
	if err := templates.ExecuteTemplate(&body, "docs", p); err != nil {
		page.Error(rw, r, s.layout(), fmt.Errorf("render docs: %w", err))
		return
	}
	page.Write(rw, r, http.StatusOK, body.Bytes())
}
