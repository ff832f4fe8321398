package serve

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/negotiate"
	"github.com/hensachi/hensachi/internal/param"
	"github.com/hensachi/hensachi/town"
)

// getExport answers GET /town/v1/export: every municipality, or one prefecture's, as a file built
// once per dataset version (town.Export), so a call writes bytes and compresses nothing.
func (s *Server) getExport(c *call, _ httprouter.Params) ([]byte, error) {
	q, err := param.ParseAPI(c.r.URL.RawQuery, "format", "pref")
	if err != nil {
		return nil, err
	}
	format, ok, err := q.One("format")
	if err != nil {
		return nil, err
	}
	if !ok || !slices.Contains(town.Formats, town.Format(format)) {
		names := make([]string, len(town.Formats))
		for i, f := range town.Formats {
			names[i] = string(f)
		}
		if !ok {
			return nil, hensachi.ParamError("format", "format is required: %s", strings.Join(names, ", "))
		}
		return nil, hensachi.ParamError("format", "format must be one of %s, not %q", strings.Join(names, ", "), format)
	}
	pref, err := param.Prefecture(c.town, q)
	if err != nil {
		return nil, err
	}
	return c.serve(func() ([]byte, error) {
		c.export, _ = c.town.Export(town.Format(format), param.PrefectureCode(pref))
		return nil, nil
	})
}

// writeExport writes the call's export: gzipped when the client accepts it and the format is
// not compressed already, the envelope's usage in a JSON export's last part.
func (c *call) writeExport(used, limit int64) {
	e := c.export
	h := c.w.Header()
	h["Content-Type"] = []string{e.ContentType}
	h["Content-Disposition"] = []string{`attachment; filename="` + e.Filename + `"`}
	h["Cache-Control"] = privateNoCache
	var parts [][]byte
	gzipped := e.Format != town.Parquet && negotiate.AcceptsGzip(c.r.Header)
	switch {
	case e.Format == town.JSON:
		tail := c.appendUsage(nil, used, limit)
		if gzipped {
			start, end := e.GzipEnvelope(tail)
			parts = [][]byte{start, end}
		} else {
			parts = [][]byte{[]byte(town.EnvelopeHead), e.Body, tail}
		}
	case gzipped:
		parts = [][]byte{e.Gzip}
	default:
		parts = [][]byte{e.Body}
	}
	if e.Format != town.Parquet {
		h["Vary"] = []string{"Accept-Encoding"}
	}
	if gzipped {
		h["Content-Encoding"] = []string{"gzip"}
		// the compressed bytes are another representation of the version: a weak tag, which
		// If-None-Match still matches (weak comparison)
		h["Etag"] = []string{"W/" + c.town.ETag}
	}
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	h["Content-Length"] = []string{strconv.Itoa(n)}
	c.w.WriteHeader(http.StatusOK)
	for _, p := range parts {
		c.w.Write(p)
	}
}
