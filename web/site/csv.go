package site

import (
	"bytes"
	"net/http"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/negotiate"
	"github.com/hensachi/hensachi/internal/param"
	"github.com/hensachi/hensachi/town"
)

// csvDownload serves municipalities as the API's CSV export (town.Export: UTF-8 with a byte-order
// mark for spreadsheets, a header row, one row per municipality), for the pages' download links:
// all of them, one prefecture's (?pref=) or the compared ones in their order (?codes=, as the
// compare page reads it). The site has no API key, so this is a public route of its own. Its
// validator is the dataset version, gzipped or not (their tags differ), and a conditional or HEAD
// request is answered by net/http.
func (s *Site) csvDownload(c *town.Catalog, q param.Query, rw http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	var body, gzipped []byte
	var filename string
	if q.Has("codes") {
		if q.Has("pref") {
			return &hensachi.Error{Code: hensachi.EInvalidParameter, Param: "pref", Message: "give pref or codes, not both",
				Japanese: "pref と codes はどちらか一方だけを指定してください。"}
		}
		towns, err := param.Compared(c, q)
		if err != nil {
			return err
		}
		if body, err = c.ExportCSV(strings.Split(codeList(towns), ",")); err != nil {
			return err
		}
		filename = "hensachi-compare-" + c.Meta.DataUpdated + ".csv"
	} else {
		pref, err := param.Prefecture(c, q)
		if err != nil {
			return err
		}
		e, ok := c.Export(town.CSV, param.PrefectureCode(pref))
		if !ok {
			return hensachi.Errorf(hensachi.ENotFound, "この都道府県コードはありません。")
		}
		body, gzipped, filename = e.Body, e.Gzip, e.Filename
	}
	h := rw.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="`+filename+`"`)
	h.Set("Cache-Control", "public, max-age=300")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Add("Vary", "Accept-Encoding")
	h.Set("ETag", `"`+c.Version+`"`)
	if gzipped != nil && negotiate.AcceptsGzip(r.Header) {
		body = gzipped
		h.Set("Content-Encoding", "gzip")
		h.Set("ETag", `"`+c.Version+`.gz"`)
	}
	http.ServeContent(rw, r, filename, time.Time{}, bytes.NewReader(body))
	return nil
}
