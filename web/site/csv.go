package site

import (
	"bytes"
	"net/http"
	"time"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/export"
	"github.com/hensachi/hensachi/internal/negotiate"
	"github.com/hensachi/hensachi/town"
)

// csvDownload serves municipalities as the API's CSV export (package export: UTF-8 with a byte-order
// mark for spreadsheets, a header row, one row per municipality), for the pages' download links:
// all of them, one prefecture's (?pref=) or the compared ones in their order (?codes=, as the
// compare page reads it). The site has no API key, so this is a public route of its own. Its
// validator is the dataset version, gzipped or not (their tags differ); If-None-Match is read as
// the API reads it (negotiate.NoneMatch), and net/http answers HEAD and ranges.
func (s *Site) csvDownload(c *town.Catalog, rw http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	q := r.URL.Query()
	var body, gzipped []byte
	var filename string
	if q.Has("codes") {
		if q.Has("pref") {
			return hensachi.ParamError("pref", "pref と codes はどちらか一方だけを指定してください。")
		}
		codes, err := comparedCodes(q)
		if err != nil {
			return err
		}
		if _, err := comparedTowns(c, codes); err != nil {
			return err
		}
		f, err := export.OfCodes(c, export.CSV, codes)
		if err != nil {
			return err
		}
		body, filename = f.Body, f.Filename
	} else {
		pref, err := prefParam(c, q.Get("pref"))
		if err != nil {
			return err
		}
		code := ""
		if pref != nil {
			code = pref.Code
		}
		f, ok := export.Of(c, export.CSV, code)
		if !ok {
			return hensachi.Errorf(hensachi.ENotFound, "この都道府県コードはありません。")
		}
		body, gzipped, filename = f.Body, f.Gzipped(), f.Filename
	}
	h := rw.Header()
	h.Set("Cache-Control", "public, max-age=300")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Add("Vary", "Accept-Encoding")
	etag := `"` + c.Version + `"`
	if gzipped != nil && negotiate.AcceptsGzip(r.Header) {
		body = gzipped
		etag = `"` + c.Version + `.gz"`
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("ETag", etag)
	if negotiate.NoneMatch(r.Header, etag) {
		h.Del("Content-Encoding") // a 304 carries the validator and caching fields, not the body's
		rw.WriteHeader(http.StatusNotModified)
		return nil
	}
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="`+filename+`"`)
	// If-None-Match is answered above; net/http's own reading would take a malformed list
	unconditional := *r
	unconditional.Header = r.Header.Clone()
	unconditional.Header.Del("If-None-Match")
	http.ServeContent(rw, &unconditional, filename, time.Time{}, bytes.NewReader(body))
	return nil
}
