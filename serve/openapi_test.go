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
		{"/town/v1/peer-groups", "/town/v1/peer-groups"},
		{"/town/v1/peer-groups?indicator=births_per_1000&year=2020", "/town/v1/peer-groups"},
		{"/town/v1/peer-groups?indicator=nope", "/town/v1/peer-groups"},
		{"/town/v1/rankings/income?peers=13229", "/town/v1/rankings/{axis}"},
		{"/town/v1/rankings/income?peers=07546", "/town/v1/rankings/{axis}"},
		{"/town/v1/rankings/income?peers=99999", "/town/v1/rankings/{axis}"},
		{"/town/v1/indicators/population?peers=13229&order=asc", "/town/v1/indicators/{key}"},
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
		{"/town/v1/indicators", "/town/v1/indicators"},
		{"/town/v1/indicators?group=%E8%B2%A1%E6%94%BF", "/town/v1/indicators"},
		{"/town/v1/indicators?group=x", "/town/v1/indicators"},
		{"/town/v1/indicators/population?year=2015&pref=01&order=asc&limit=100", "/town/v1/indicators/{key}"},
		{"/town/v1/indicators/nope", "/town/v1/indicators/{key}"},
		{"/town/v1/indicators/population?year=1", "/town/v1/indicators/{key}"},
		{"/town/v1/municipalities/07546/indicators", "/town/v1/municipalities/{code}/indicators"},
		{"/town/v1/municipalities/13101/indicators?keys=population,fiscal_strength", "/town/v1/municipalities/{code}/indicators"},
		{"/town/v1/municipalities/99999/indicators", "/town/v1/municipalities/{code}/indicators"},
		{"/town/v1/municipalities/13101/indicators?keys=nope", "/town/v1/municipalities/{code}/indicators"},
		{"/town/v1/municipalities/13101/similar?measures=income,births_per_1000@2020,young", "/town/v1/municipalities/{code}/similar"},
		{"/town/v1/municipalities/07546/similar?measures=income,young", "/town/v1/municipalities/{code}/similar"},
		{"/town/v1/compare?codes=13101,07546&indicators=population,births_per_1000@2020", "/town/v1/compare"},
		{"/town/v1/export?format=csv&pref=47&indicators=all", "/town/v1/export"},
		{"/town/v1/export?format=parquet&pref=47&indicators=population&year=2015", "/town/v1/export"},
		{"/town/v1/export/series?format=csv&pref=47&indicators=fiscal_strength", "/town/v1/export/series"},
		{"/town/v1/export/series?format=parquet&pref=47&indicators=fiscal_strength", "/town/v1/export/series"},
		{"/town/v1/export/series?format=json", "/town/v1/export/series"},
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
// every municipality code, and 405, 414, 431 and 500 documented everywhere.
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
			// a property named code is a municipality's, except a prefecture's, a problem's and a 類似団体's
			if code, ok := v["code"].(map[string]any); ok && strings.HasSuffix(at, ".properties") &&
				!strings.Contains(at, "schemas.Prefecture.") && !strings.Contains(at, "schemas.Problem.") &&
				code["$ref"] != "#/components/schemas/PeerGroupCode" && code["pattern"] != "^[0-9]{5}$" {
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
			// 414 and 431 are net/http's own refusals, before any route: every operation can get them
			for _, status := range []string{"405", "414", "431", "500"} {
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

// TestOpenAPIExamplesAreAnswers checks the examples that name their request (x-request) against
// the real answer to it on the real dataset: the same members and values but for usage and the
// request id, an example's array being the answer's first items (an example shows a few); a text
// example (a CSV) the answer's bytes where it elides none (textExampleDiff).
func TestOpenAPIExamplesAreAnswers(t *testing.T) {
	t.Parallel()
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Content map[string]struct {
					Examples map[string]struct {
						Value   any
						Request string `json:"x-request"`
					}
				}
			}
		}
	}
	if err := json.Unmarshal(serve.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t)
	checked := 0
	for path, ops := range doc.Paths {
		for _, op := range ops {
			for _, r := range op.Responses {
				for _, content := range r.Content {
					for name, e := range content.Examples {
						if e.Request == "" {
							continue
						}
						checked++
						if text, ok := e.Value.(string); ok {
							if missing := textExampleDiff(text, string(ts.get(t, e.Request).body)); missing != "" {
								t.Errorf("%s example %s (GET %s): the answer has no %q", path, name, e.Request, missing)
							}
							continue
						}
						var got any
						if err := json.Unmarshal(ts.get(t, e.Request).body, &got); err != nil {
							t.Fatalf("%s %s: %v", path, name, err)
						}
						if where := exampleDiff("$", e.Value, got); where != "" {
							t.Errorf("%s example %s (GET %s) differs from the answer at %s", path, name, e.Request, where)
						}
					}
				}
			}
		}
	}
	if checked < 5 {
		t.Errorf("%d examples name their request", checked)
	}
}

// textExampleDiff is the first piece of a text example, cut at each …, that the answer does not
// have after the pieces before it; "" when it has them all.
func textExampleDiff(example, answer string) string {
	for _, piece := range strings.Split(example, "…") {
		at := strings.Index(answer, piece)
		if at < 0 {
			return piece
		}
		answer = answer[at+len(piece):]
	}
	return ""
}

// exampleDiff is where an example differs from an answer, "" when it does not: an object has the
// answer's members, an array the answer's first items, anything else the same value; usage and
// request_id are the call's own.
func exampleDiff(at string, example, answer any) string {
	switch e := example.(type) {
	case map[string]any:
		a, ok := answer.(map[string]any)
		if !ok || len(a) != len(e) {
			return at
		}
		for k, v := range e {
			if k == "usage" || k == "request_id" {
				continue
			}
			if where := exampleDiff(at+"."+k, v, a[k]); where != "" {
				return where
			}
		}
	case []any:
		a, ok := answer.([]any)
		if !ok || len(a) < len(e) {
			return at
		}
		for k, v := range e {
			if where := exampleDiff(fmt.Sprintf("%s[%d]", at, k), v, a[k]); where != "" {
				return where
			}
		}
	default:
		if example != answer {
			return fmt.Sprintf("%s (%v, not %v)", at, example, answer)
		}
	}
	return ""
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

// TestExampleDiff: the comparison of an example with an answer finds a missing member, a value
// that differs and an array longer than the answer's.
func TestExampleDiff(t *testing.T) {
	answer := map[string]any{"a": []any{1.0, 2.0}, "b": "x", "usage": 3.0}
	for _, tc := range []struct {
		example map[string]any
		want    string
	}{
		{map[string]any{"a": []any{1.0}, "b": "x", "usage": 9.0}, ""},
		{map[string]any{"a": []any{2.0}, "b": "x", "usage": 9.0}, "$.a[0] (2, not 1)"},
		{map[string]any{"a": []any{1.0, 2.0, 3.0}, "b": "x", "usage": 9.0}, "$.a"},
		{map[string]any{"a": []any{}, "usage": 9.0}, "$"},
		{map[string]any{"a": []any{}, "c": "x", "usage": 9.0}, "$.c (x, not <nil>)"},
	} {
		got := exampleDiff("$", tc.example, answer)
		if got != tc.want {
			t.Errorf("exampleDiff(%v) = %q, want %q", tc.example, got, tc.want)
		}
	}
}
