package site

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/export"
	"github.com/hensachi/hensachi/internal/negotiate"
	"github.com/hensachi/hensachi/internal/param"
	"github.com/hensachi/hensachi/town"
)

// The pages' downloads: files of the API's export (package export), public since the site has no
// API key. Each page offers the CSV of what it shows, linked with header=ja: the CSV for
// spreadsheets, Japanese column names with units and the credit as its last row (the default,
// header=en, is the API's file). The files are built through the export's one path and kept as
// it keeps them: the country's and the prefectures' once per dataset version, an indicator's in
// the export's byte budget; a municipality's series, a few rows, is written for the call.

// download serves municipalities as a file in a format: the CSV for spreadsheets (UTF-8 with a
// byte-order mark, a header row, one row per municipality) or the GeoJSON for GIS (one feature
// per municipality, its boundary and the CSV's columns), for the pages' download links: all of
// them, one prefecture's (?pref=) or the compared ones in their order (?codes=, as the compare page
// reads it). A format the dataset cannot fill (GeoJSON without boundaries) is the API's 503 with
// the reason.
func (s *Site) download(format *export.Format) catalogHandler {
	return func(c *town.Catalog, q param.Query, rw http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
		format, err := withHeader(q, format)
		if err != nil {
			return err
		}
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
		return sendFile(c, f, rw, r)
	}
}

// indicatorCSV serves /town/indicators/{key}.csv, what the indicator page shows: every
// municipality of the country or of a prefecture (pref=), or of a municipality's 類似団体 (peers=,
// with the rank among them), with the indicator's value, national rank and deviation score in a
// survey year (year=, the latest without), or with from= and to= also its change between them,
// ranked; the parameters are the page's, read as it reads them.
func (s *Site) indicatorCSV(c *town.Catalog, q param.Query, rw http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	i, err := param.Indicator(c, strings.TrimSuffix(ps.ByName("key"), ".csv"))
	if err != nil {
		return err
	}
	ind := c.Indicator(i)
	sel := export.Selection{Indicators: []int{i}, Only: true}
	ch, isChange, err := param.IndicatorChange(c, q, i)
	if err != nil {
		return err
	}
	if isChange {
		sel.Change = [2]int{ind.Years[ch.From].Year, ind.Years[ch.To].Year}
		sel.Year = sel.Change[1]
	} else {
		k, err := param.IndicatorYear(c, q, i)
		if err != nil {
			return err
		}
		sel.Year = ind.Years[k].Year
	}
	pref, err := param.Prefecture(c, q)
	if err != nil {
		return err
	}
	peers, err := readPeers(c, q)
	if err != nil {
		return err
	}
	if peers != nil {
		sel.Peers = peers.Group.Code
	}
	format, err := withHeader(q, export.CSV)
	if err != nil {
		return err
	}
	f, err := export.WithIndicators(c, format, param.PrefectureCode(pref), sel)
	if err != nil {
		return err
	}
	return sendFile(c, f, rw, r)
}

// townIndicatorCSV serves /town/municipalities/{code}/indicators/{key}.csv, what the page of a
// municipality's indicator shows: its value, national rank and deviation score in every survey
// year, as rows of the indicators' long table.
func (s *Site) townIndicatorCSV(c *town.Catalog, q param.Query, rw http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	m, err := param.Municipality(c, "code", ps.ByName("code"))
	if err != nil {
		return err
	}
	i, err := param.Indicator(c, strings.TrimSuffix(ps.ByName("key"), ".csv"))
	if err != nil {
		return err
	}
	format, err := withHeader(q, export.CSV)
	if err != nil {
		return err
	}
	f, err := export.TownSeries(c, format, m, i)
	if err != nil {
		return err
	}
	return sendFile(c, f, rw, r)
}

// withHeader is format with its columns named in the language of header= (param.Header).
func withHeader(q param.Query, format *export.Format) (*export.Format, error) {
	lang, err := param.Header(q)
	if err != nil {
		return nil, err
	}
	return format.WithHeader(lang)
}

// csvLink is the address of a page's CSV: path with the page's query and header=ja, the file for
// spreadsheets that every link of the site offers.
func csvLink(path string, query url.Values) string {
	v := url.Values{"header": {"ja"}}
	for k, vs := range query {
		v[k] = vs
	}
	return path + "?" + v.Encode()
}

// withPref adds a prefecture, when there is one, to a query.
func withPref(v url.Values, pref *hensachi.Prefecture) url.Values {
	if pref != nil {
		v.Set("pref", pref.Code)
	}
	return v
}

// sendFile answers with a file of the export held in memory, gzipped for a client that accepts it.
// Its validator is the dataset version, gzipped or not (their tags differ); If-None-Match is read as
// the API reads it (negotiate.NoneMatch), and net/http answers HEAD and ranges.
func sendFile(c *town.Catalog, f *export.File, rw http.ResponseWriter, r *http.Request) error {
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
