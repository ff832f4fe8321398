package serve_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/serve"
)

// openAPI is the part of openapi.json the tests read: responses, either inline or a reference
// into components.responses.
type openAPI struct {
	Paths      map[string]map[string]struct{ Responses map[string]docResponse } `json:"paths"`
	Components struct{ Responses map[string]docResponse }                       `json:"components"`
}

type docResponse struct {
	Ref     string                     `json:"$ref"`
	Headers map[string]json.RawMessage `json:"headers"`
	Content map[string]struct {
		Schema struct {
			Ref string `json:"$ref"`
		} `json:"schema"`
	} `json:"content"`
}

func loadOpenAPI(t testing.TB) openAPI {
	t.Helper()
	var doc openAPI
	if err := json.Unmarshal(serve.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// response returns the documented response of an operation for a status, its reference resolved.
func (doc openAPI) response(path, method string, status int) (docResponse, bool) {
	r, ok := doc.Paths[path][strings.ToLower(method)].Responses[strconv.Itoa(status)]
	if ref, isRef := strings.CutPrefix(r.Ref, "#/components/responses/"); ok && isRef {
		r, ok = doc.Components.Responses[ref]
	}
	return r, ok
}

// checkResponse reports how a real response differs from the document: an undocumented status or
// content type, a body outside its schema, a documented header missing.
func (doc openAPI) checkResponse(t testing.TB, method, path, template string, r response) {
	t.Helper()
	resp, ok := doc.response(template, method, r.status)
	if !ok {
		t.Errorf("%s %s: status %d is not documented", method, path, r.status)
		return
	}
	for name := range resp.Headers {
		if r.header.Get(name) == "" {
			t.Errorf("%s %s (%d): documented header %s is missing", method, path, r.status, name)
		}
	}
	if len(resp.Content) == 0 {
		if len(r.body) > 0 {
			t.Errorf("%s %s (%d): a body where the document has none", method, path, r.status)
		}
		return
	}
	ct := strings.TrimSpace(strings.Split(r.header.Get("Content-Type"), ";")[0])
	content, ok := resp.Content[ct]
	if !ok {
		t.Errorf("%s %s: content type %s is not documented for %d", method, path, ct, r.status)
		return
	}
	if ref := content.Schema.Ref; ref != "" {
		if err := validateSchema(t, ref, r.body); err != nil {
			t.Errorf("%s %s (%d) does not match %s:\n%v", method, path, r.status, ref, err)
		}
	}
}

// routePattern turns httprouter's :name into OpenAPI's {name}.
var routePattern = regexp.MustCompile(`:([a-z]+)`)

// TestOpenAPIRoutes checks that every registered route is documented, and every documented
// route exists.
func TestOpenAPIRoutes(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, withFaces(t))
	doc := loadOpenAPI(t)
	registered := map[string]bool{}
	for _, route := range serve.RegisteredRoutes(ts.Server) {
		p := routePattern.ReplaceAllString(route.Path, "{$1}")
		registered[p] = true
		if _, ok := doc.Paths[p][strings.ToLower(route.Method)]; !ok {
			t.Errorf("route %s %s is not in openapi.json", route.Method, p)
		}
	}
	for p := range doc.Paths {
		if !registered[p] {
			t.Errorf("openapi.json documents %s, which is not a route", p)
		}
	}
}

// TestResponsesMatchOpenAPI validates real responses, successes and problems, against the schemas
// the document gives for their path and status.
func TestResponsesMatchOpenAPI(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	doc := loadOpenAPI(t)
	cases := []struct{ path, template string }{
		{"/town/v1/municipalities/01100", "/town/v1/municipalities/{code}"},
		{"/town/v1/municipalities/07546", "/town/v1/municipalities/{code}"},
		{"/town/v1/municipalities/13101", "/town/v1/municipalities/{code}"},
		{"/town/v1/municipalities/99999", "/town/v1/municipalities/{code}"},
		{"/town/v1/municipalities/abc", "/town/v1/municipalities/{code}"},
		{"/town/v1/municipalities", "/town/v1/municipalities"},
		{"/town/v1/municipalities?pref=13", "/town/v1/municipalities"},
		{"/town/v1/rankings/young", "/town/v1/rankings/{axis}"},
		{"/town/v1/rankings/daytime?order=asc&pref=01&limit=100&offset=3", "/town/v1/rankings/{axis}"},
		{"/town/v1/rankings/nope", "/town/v1/rankings/{axis}"},
		{"/town/v1/rankings/young?limit=500", "/town/v1/rankings/{axis}"},
		{"/town/v1/meta", "/town/v1/meta"},
		{"/town/v1/municipalities?q=%E5%BA%9C%E4%B8%AD&pref=13", "/town/v1/municipalities"},
		{"/town/v1/municipalities?q=", "/town/v1/municipalities"},
		{"/town/v1/municipalities/13101/similar?limit=50", "/town/v1/municipalities/{code}/similar"},
		{"/town/v1/municipalities/07546/similar", "/town/v1/municipalities/{code}/similar"},
		{"/town/v1/municipalities/99999/similar", "/town/v1/municipalities/{code}/similar"},
		{"/town/v1/compare?codes=13101,07546,01100", "/town/v1/compare"},
		{"/town/v1/compare?codes=13101", "/town/v1/compare"},
		{"/town/v1/compare?codes=13101,99999", "/town/v1/compare"},
		{"/town/v1/export?format=json&pref=47", "/town/v1/export"},
		{"/town/v1/export?format=csv&pref=47", "/town/v1/export"},
		{"/town/v1/export?format=parquet&pref=47", "/town/v1/export"},
		{"/town/v1/export?format=geojson&pref=47", "/town/v1/export"},
		{"/town/v1/export?format=xml", "/town/v1/export"},
	}
	for _, tc := range cases {
		doc.checkResponse(t, http.MethodGet, tc.path, tc.template, ts.get(t, tc.path))
	}
}

// validateSchema validates a JSON body against a schema of openapi.json, e.g.
// "#/components/schemas/Problem".
func validateSchema(t testing.TB, ref string, body []byte) error {
	t.Helper()
	c := jsonschema.NewCompiler()
	raw, err := jsonschema.UnmarshalJSON(bytes.NewReader(serve.OpenAPI()))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("openapi.json", raw); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("openapi.json" + ref)
	if err != nil {
		t.Fatalf("compile %s: %v", ref, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return err
	}
	return sch.Validate(doc)
}

// TestOpenAPIDocumentRules checks what generated clients rely on: an operationId on every
// operation, a type beside every enum and const, a format on every number, the 5-digit pattern on
// every municipality code, and 405 and 500 documented everywhere.
func TestOpenAPIDocumentRules(t *testing.T) {
	t.Parallel()
	var doc map[string]any
	if err := json.Unmarshal(serve.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	var walk func(at string, v any)
	walk = func(at string, v any) {
		switch v := v.(type) {
		case map[string]any:
			_, hasEnum := v["enum"]
			_, hasConst := v["const"]
			if (hasEnum || hasConst) && v["type"] == nil {
				t.Errorf("%s: enum or const without a type", at)
			}
			types := fmt.Sprint(v["type"])
			if strings.Contains(types, "number") && v["format"] != "double" {
				t.Errorf("%s: number without format double", at)
			}
			// a property named code is a municipality's, except a prefecture's and a problem's
			if code, ok := v["code"].(map[string]any); ok && strings.HasSuffix(at, ".properties") &&
				!strings.Contains(at, "schemas.Prefecture.") && !strings.Contains(at, "schemas.Problem.") && code["pattern"] != "^[0-9]{5}$" {
				t.Errorf("%s.code: no 5-digit pattern", at)
			}
			for k, child := range v {
				walk(at+"."+k, child)
			}
		case []any:
			for i, child := range v {
				walk(fmt.Sprintf("%s[%d]", at, i), child)
			}
		}
	}
	walk("#", doc)

	ids := map[string]bool{}
	for path, ops := range doc["paths"].(map[string]any) {
		for method, op := range ops.(map[string]any) {
			op := op.(map[string]any)
			id, _ := op["operationId"].(string)
			if id == "" || ids[id] {
				t.Errorf("%s %s: operationId %q missing or repeated", method, path, id)
			}
			ids[id] = true
			responses := op["responses"].(map[string]any)
			for _, status := range []string{"405", "500"} {
				if responses[status] == nil {
					t.Errorf("%s %s: %s is not documented", method, path, status)
				}
			}
		}
	}
}

// TestOpenAPIExamples checks the document's examples, which /docs shows: every response with a
// body has at least one, and each is valid against the schema of its media type.
func TestOpenAPIExamples(t *testing.T) {
	t.Parallel()
	var doc struct {
		Paths      map[string]map[string]struct{ Responses map[string]exampleResponse }
		Components struct{ Responses map[string]exampleResponse }
	}
	if err := json.Unmarshal(serve.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	escape := strings.NewReplacer("~", "~0", "/", "~1").Replace
	for path, ops := range doc.Paths {
		for method, op := range ops {
			for status, r := range op.Responses {
				at := "#/paths/" + escape(path) + "/" + method + "/responses/" + status
				if name, ok := strings.CutPrefix(r.Ref, "#/components/responses/"); ok {
					r, at = doc.Components.Responses[name], "#/components/responses/"+name
				}
				for mediaType, content := range r.Content {
					if len(content.Examples) == 0 {
						t.Errorf("%s %s %s (%s): no example", method, path, status, mediaType)
					}
					for name, e := range content.Examples {
						if err := validateSchema(t, at+"/content/"+escape(mediaType)+"/schema", e.Value); err != nil {
							t.Errorf("%s %s %s example %s: %v", method, path, status, name, err)
						}
					}
				}
			}
		}
	}
}

type exampleResponse struct {
	Ref     string `json:"$ref"`
	Content map[string]struct {
		Examples map[string]struct{ Value json.RawMessage }
	}
}

// notAPICodes are the codes of the domain's table (hensachi.Kinds) that the API never answers
// with, and who does.
var notAPICodes = map[string]string{
	hensachi.EConflict:        "the operator's commands (an account that exists already)",
	hensachi.EForbidden:       "the login and account pages (a refused login, a form without its token)",
	hensachi.ETooManyRequests: "the login pages (too many attempts from one address)",
	hensachi.EBadGateway:      "the login pages (the identity provider failed)",
}

// TestProblemCodesDocumented checks that the document's list of problem codes is the domain's
// table of them (hensachi.Kinds) but for the codes only other layers answer with (notAPICodes).
func TestProblemCodesDocumented(t *testing.T) {
	t.Parallel()
	var doc struct {
		Components struct {
			Schemas struct {
				ProblemCode struct{ Enum []string } `json:"ProblemCode"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(serve.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, k := range hensachi.Kinds {
		if _, ok := notAPICodes[k.Code]; !ok {
			want = append(want, k.Code)
		}
	}
	for code := range notAPICodes {
		if hensachi.KindOf(code).Code != code {
			t.Errorf("%s, listed as not the API's, is not in the table", code)
		}
	}
	got := doc.Components.Schemas.ProblemCode.Enum
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("ProblemCode lists %v, the table %v", got, want)
	}
}
