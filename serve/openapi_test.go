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
	ts := newTestServer(t)
	var doc openAPI
	if err := json.Unmarshal(openAPIDoc, &doc); err != nil {
		t.Fatal(err)
	}
	registered := map[string]bool{}
	for _, path := range registeredRoutes(ts.Server) {
		p := routePattern.ReplaceAllString(path, "{$1}")
		registered[p] = true
		if _, ok := doc.Paths[p]["get"]; !ok {
			t.Errorf("route GET %s is not in openapi.json", p)
		}
	}
	for p := range doc.Paths {
		if !registered[p] {
			t.Errorf("openapi.json documents %s, which is not a route", p)
		}
	}
}

// registeredRoutes lists the GET routes by asking the router which paths it knows.
func registeredRoutes(s *Server) []string {
	var out []string
	for _, p := range []string{"/town/v1/municipalities/:code", "/town/v1/municipalities", "/town/v1/rankings/:axis", "/town/v1/meta",
		"/healthz", "/readyz", "/metrics", "/openapi.json", "/problems/:code", "/town/municipalities/:code"} {
		if h, _, _ := s.router.Lookup(http.MethodGet, routePattern.ReplaceAllString(p, "x")); h != nil {
			out = append(out, p)
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
	c := jsonschema.NewCompiler()
	raw, err := jsonschema.UnmarshalJSON(bytes.NewReader(openAPIDoc))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("openapi.json", raw); err != nil {
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
		sch, err := c.Compile("openapi.json" + ref.Ref)
		if err != nil {
			t.Fatalf("compile %s: %v", ref.Ref, err)
		}
		body, err := jsonschema.UnmarshalJSON(bytes.NewReader(r.body))
		if err != nil {
			t.Fatalf("GET %s: %v", tc.path, err)
		}
		if err := sch.Validate(body); err != nil {
			t.Errorf("GET %s (%d) does not match %s:\n%v", tc.path, r.status, ref.Ref, err)
		}
	}
}
