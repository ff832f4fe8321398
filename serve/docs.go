package serve

import (
	_ "embed"
	"net/http"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/param"
)

//go:embed openapi.json
var openAPIDoc []byte

// OpenAPI returns the API's OpenAPI document, which /openapi.json serves and the web front renders.
func OpenAPI() []byte { return openAPIDoc }

func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(openAPIDoc)
}

func serveProblemDoc(w http.ResponseWriter, r *http.Request, code string) {
	kind := hensachi.KindOf(code)
	if kind.Code != code {
		writeError(w, r, hensachi.Errorf(hensachi.ENotFound, "no problem type %q", param.Truncate(code)))
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte(code + ": " + kind.About + "\n"))
}
