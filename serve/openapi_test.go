package serve

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

type openAPI struct {
	Paths map[string]map[string]struct {
		Responses map[string]struct {
			Content map[string]struct {
				Schema json.RawMessage `json:"schema"`
			} `json:"content"`
		} `json:"responses"`
	} `json:"paths"`
}

// routePattern turns httprouter's :name into OpenAPI's {name}.
var routePattern = regexp.MustCompile(`:([a-z]+)`)

// TestOpenAPIRoutes checks that every registered route is documented, and every documented
// route exists.
func TestOpenAPIRoutes(t *testing.T) {
	ts := newTestServer(t, withFaces(t))
	var doc openAPI
	if err := json.Unmarshal(openAPIDoc, &doc); err != nil {
		t.Fatal(err)
	}
	registered := map[string]bool{}
	for _, route := range registeredRoutes(ts.Server) {
		p := routePattern.ReplaceAllString(route.path, "{$1}")
		registered[p] = true
		if _, ok := doc.Paths[p][strings.ToLower(route.method)]; !ok {
			t.Errorf("route %s %s is not in openapi.json", route.method, p)
		}
	}
	for p := range doc.Paths {
		if !registered[p] {
			t.Errorf("openapi.json documents %s, which is not a route", p)
		}
	}
}

type route struct{ method, path string }

// registeredRoutes lists the routes the router knows among every method and path the server could
// register.
func registeredRoutes(s *Server) []route {
	var out []route
	for _, r := range []route{{"GET", "/town/v1/municipalities/:code"}, {"GET", "/town/v1/municipalities"}, {"GET", "/town/v1/rankings/:axis"},
		{"GET", "/town/v1/meta"}, {"GET", "/healthz"}, {"GET", "/readyz"}, {"GET", "/metrics"}, {"GET", "/openapi.json"},
		{"GET", "/problems/:code"}, {"GET", "/town/municipalities/:code"}, {"POST", "/face/v1/predict"}} {
		if h, _, _ := s.router.Lookup(r.method, routePattern.ReplaceAllString(r.path, "x")); h != nil {
			out = append(out, r)
		}
	}
	return out
}

// TestResponsesMatchOpenAPI validates real responses, successes and problems, against the schemas
// the document gives for their path and status.
func TestResponsesMatchOpenAPI(t *testing.T) {
	ts := newTestServer(t)
	var doc openAPI
	if err := json.Unmarshal(openAPIDoc, &doc); err != nil {
		t.Fatal(err)
	}
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
	}
	for _, tc := range cases {
		r := ts.get(t, tc.path)
		status := http.StatusText(r.status)
		resp, ok := doc.Paths[tc.template]["get"].Responses[strconv.Itoa(r.status)]
		if !ok {
			t.Errorf("GET %s: status %d (%s) is not documented", tc.path, r.status, status)
			continue
		}
		ct := strings.TrimSpace(strings.Split(r.header.Get("Content-Type"), ";")[0])
		content, ok := resp.Content[ct]
		if !ok {
			t.Errorf("GET %s: content type %s is not documented for %d", tc.path, ct, r.status)
			continue
		}
		var ref struct {
			Ref string `json:"$ref"`
		}
		json.Unmarshal(content.Schema, &ref)
		if err := validateSchema(t, ref.Ref, r.body); err != nil {
			t.Errorf("GET %s (%d) does not match %s:\n%v", tc.path, r.status, ref.Ref, err)
		}
	}
}

// validateSchema validates a JSON body against a schema of openapi.json, e.g.
// "#/components/schemas/Problem".
func validateSchema(t testing.TB, ref string, body []byte) error {
	t.Helper()
	c := jsonschema.NewCompiler()
	raw, err := jsonschema.UnmarshalJSON(bytes.NewReader(openAPIDoc))
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
