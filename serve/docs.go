package serve

import (
	"bytes"
	_ "embed"
	"net/http"
	"sync"

	"github.com/klauspost/compress/gzip"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/negotiate"
	"github.com/hensachi/hensachi/internal/param"
)

//go:embed openapi.json
var openAPIDoc []byte

// OpenAPI returns the API's OpenAPI document, which /openapi.json serves and the web front renders.
func OpenAPI() []byte { return openAPIDoc }

// gzippedOpenAPI is the document gzipped once, at the best compression: it is large (some 330 KB)
// and never changes while the binary runs.
var gzippedOpenAPI = sync.OnceValue(func() []byte {
	var b bytes.Buffer
	z, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	z.Write(openAPIDoc)
	z.Close()
	return b.Bytes()
})

func serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Vary", "Accept-Encoding")
	if negotiate.AcceptsGzip(r.Header) {
		h.Set("Content-Encoding", "gzip")
		w.Write(gzippedOpenAPI())
		return
	}
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
