package site

import (
	"bytes"
	"net/http"
	"time"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/export"
	"github.com/hensachi/hensachi/internal/negotiate"
	"github.com/hensachi/hensachi/internal/param"
	"github.com/hensachi/hensachi/town"
)

// download serves municipalities as a file of the API's export in a format (package export): the
// CSV for spreadsheets (UTF-8 with a byte-order mark, a header row, one row per municipality) or
// the GeoJSON for GIS (one feature per municipality, its boundary and the CSV's columns), for the
// pages' download links: all of them, one prefecture's (?pref=) or the compared ones in their
// order (?codes=, as the compare page reads it). The site has no API key, so this is a public route
// of its own. Each is gzipped for a client that accepts it: the prefectures' and the country's
// files once per dataset version, the compared ones per request. Its validator is the dataset
// version, gzipped or not (their tags differ); If-None-Match is read as the API reads it
// (negotiate.NoneMatch), and net/http answers HEAD and ranges. A format the dataset cannot fill
// (GeoJSON without boundaries) is the API's 503 with the reason.
func (s *Site) download(format *export.Format) catalogHandler {
	return func(c *town.Catalog, q param.Query, rw http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
		if err := format.Available(c); err != nil {
			return err
		}
		var f *export.File
		if q.Has("codes") {
			if q.Has("pref") {
				return &hensachi.Error{Code: hensachi.EInvalidParameter, Param: "pref", Message: "give pref or codes, not both",
					Japanese: "pref と codes はどちらか一方だけを指定してください。"}
			}
			towns, err := param.Compared(c, q, 1) // the comparison page's, of one before others are added
			if err != nil {
				return err
			}
			if f, err = export.Compared(c, format, towns); err != nil {
				return err
			}
		} else {
			pref, err := param.Prefecture(c, q)
			if err != nil {
				return err
			}
			if f, err = export.Of(c, format, param.PrefectureCode(pref)); err != nil {
				return err
			}
		}
		h := rw.Header()
		h.Set("Cache-Control", "public, max-age=300")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Add("Vary", "Accept-Encoding")
		gzipped := f.Format.Gzip && negotiate.AcceptsGzip(r.Header)
		etag := `"` + c.Version + `"`
		if gzipped {
			etag = `"` + c.Version + `.gz"`
		}
		h.Set("ETag", etag)
		if negotiate.NoneMatch(r.Header, etag) {
			// the validator and caching fields, not the body's; nothing compressed
			rw.WriteHeader(http.StatusNotModified)
			return nil
		}
		body := f.Body
		if gzipped {
			body = f.Gzipped()
			h.Set("Content-Encoding", "gzip")
		}
		h.Set("Content-Type", f.Format.ContentType)
		h.Set("Content-Disposition", `attachment; filename="`+f.Filename+`"`)
		// If-None-Match is answered above; net/http's own reading would take a malformed list
		unconditional := *r
		unconditional.Header = r.Header.Clone()
		unconditional.Header.Del("If-None-Match")
		http.ServeContent(rw, &unconditional, f.Filename, time.Time{}, bytes.NewReader(body))
		return nil
	}
}
