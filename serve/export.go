package serve

import (
	"bytes"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/export"
	"github.com/hensachi/hensachi/internal/param"
	"github.com/hensachi/hensachi/town"
)

// GET /town/v1/export: every municipality, or one prefecture's, as a file built once per dataset
// version, so a call writes bytes and compresses nothing. The table's formats (CSV, Parquet,
// GeoJSON) are package export's, shared with the pages' downloads; the JSON export is this API's
// envelope of its municipality objects, made here.

// jsonFormat is the JSON export's name, beside export.Formats.
const jsonFormat = "json"

// exportFormats are the formats the API takes, in the order it documents them.
var exportFormats = func() []string {
	names := []string{jsonFormat}
	for _, f := range export.Formats {
		names = append(names, f.Name)
	}
	slices.Sort(names)
	return names
}()

// getExport answers GET /town/v1/export, with the indicators' columns when asked (indicators=,
// year=) and their change columns (change=).
func (s *Server) getExport(c *call, _ httprouter.Params) ([]byte, error) {
	q, err := param.ParseAPI(c.r.URL.RawQuery, "format", "pref", "indicators", "year", "change")
	if err != nil {
		return nil, err
	}
	format, err := exportFormat(q, exportFormats)
	if err != nil {
		return nil, err
	}
	pref, err := param.Prefecture(c.catalog, q)
	if err != nil {
		return nil, err
	}
	idx, err := param.IndicatorKeys(c.catalog, q, "indicators", true)
	if err != nil {
		return nil, err
	}
	var sel export.Selection
	if sel.Indicators, sel.Year, err = param.IndicatorsYear(c.catalog, q, idx, isAll(q)); err != nil {
		return nil, err
	}
	if sel.Indicators, sel.Change, err = param.ExportChange(c.catalog, q, sel.Indicators, isAll(q)); err != nil {
		return nil, err
	}
	if format == jsonFormat && len(sel.Indicators) > 0 {
		return nil, hensachi.ParamError("indicators", "indicators add columns to the csv, parquet and geojson exports; "+
			"the JSON of a municipality's indicators is GET /town/v1/municipalities/{code}/indicators")
	}
	if f := export.FormatNamed(format); f != nil {
		// before the quota: a file the dataset cannot fill costs no unit
		if err := f.Available(c.catalog); err != nil {
			return nil, err
		}
	}
	if format != jsonFormat && !export.FormatNamed(format).Gzip {
		c.gzip = false // a format compressed inside the file
	}
	return c.serve(func() ([]byte, error) {
		if format == jsonFormat {
			c.jsonExport = c.bodies().jsonExport(param.PrefectureCode(pref))
		} else {
			var err error
			if c.file, err = export.WithIndicators(c.catalog, export.FormatNamed(format), param.PrefectureCode(pref), sel); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
}

// isAll tells whether the export asks for every indicator (indicators=all).
func isAll(q param.Query) bool {
	l := q.List("indicators")
	return len(l) == 1 && l[0] == "all"
}

// seriesFormats are the formats of the indicators' long table.
var seriesFormats = func() []string {
	var names []string
	for _, f := range export.Formats {
		if export.SeriesFormat(f) {
			names = append(names, f.Name)
		}
	}
	slices.Sort(names)
	return names
}()

// getSeriesExport answers GET /town/v1/export/series: the indicators' long table, or with change=
// its rows of the later year with the change (export.SeriesChange).
func (s *Server) getSeriesExport(c *call, _ httprouter.Params) ([]byte, error) {
	q, err := param.ParseAPI(c.r.URL.RawQuery, "format", "indicators", "pref", "change")
	if err != nil {
		return nil, err
	}
	format, err := exportFormat(q, seriesFormats)
	if err != nil {
		return nil, err
	}
	idx, err := param.IndicatorKeys(c.catalog, q, "indicators", true)
	if err != nil {
		return nil, err
	}
	all := idx == nil || isAll(q)
	if idx == nil {
		idx = c.catalog.IndicatorGroupIndexes("")
	}
	idx, change, err := param.ExportChange(c.catalog, q, idx, all)
	if err != nil {
		return nil, err
	}
	pref, err := param.Prefecture(c.catalog, q)
	if err != nil {
		return nil, err
	}
	f := export.FormatNamed(format)
	if !f.Gzip {
		c.gzip = false // a format compressed inside the file
	}
	return c.serve(func() ([]byte, error) {
		var err error
		if change != [2]int{} {
			c.file, err = export.SeriesChange(c.r.Context(), c.catalog, f, param.PrefectureCode(pref), idx, change)
		} else {
			c.file, err = export.Series(c.r.Context(), c.catalog, f, param.PrefectureCode(pref), idx)
		}
		return nil, err
	})
}

// exportFormat reads format, one of formats and required.
func exportFormat(q param.Query, formats []string) (string, error) {
	format, ok, err := q.One("format")
	switch {
	case err != nil:
		return "", err
	case !ok:
		return "", hensachi.ParamError("format", "format is required: %s", strings.Join(formats, ", "))
	case !slices.Contains(formats, format):
		return "", hensachi.ParamError("format", "format must be one of %s, not %q", strings.Join(formats, ", "), param.Truncate(format))
	}
	return format, nil
}

// writeExport writes the call's export: gzipped when the client accepts it and the format is
// not compressed already, the envelope's usage in a JSON export's last part, the body paced by the
// export bodies' budget.
func (c *call) writeExport(used, limit int64) {
	var w io.Writer = c.w // a HEAD's body, which net/http drops, takes nothing from the budget
	if c.r.Method != http.MethodHead {
		w = c.s.exports.writer(c.r.Context(), c.w)
	}
	var parts [][]byte
	if e := c.jsonExport; e != nil {
		tail := c.appendUsage(nil, used, limit)
		if c.gzip {
			parts = [][]byte{e.gzip.bytes, e.gzip.finish(tail)}
		} else {
			parts = [][]byte{[]byte(envelopeHead), e.body, tail}
		}
		n := 0
		for _, p := range parts {
			n += len(p)
		}
		c.exportHeader("application/json", e.filename, int64(n))
		for _, p := range parts {
			w.Write(p)
		}
		return
	}
	f := c.file
	n, write := f.Len(), f.WriteBody
	if c.gzip {
		n, write = f.GzipLen(), f.WriteGzipped
	}
	c.exportHeader(f.Format.ContentType, f.Filename, n)
	if c.r.Method != http.MethodHead { // whose body net/http would drop after a file on disk is read
		write(w) // a client gone is no error of the server's
	}
}

// exportHeader writes the header of an export of n bytes.
func (c *call) exportHeader(contentType, filename string, n int64) {
	h := c.w.Header()
	h["Content-Type"] = []string{contentType}
	h["Content-Disposition"] = []string{`attachment; filename="` + filename + `"`}
	if c.gzip {
		h["Content-Encoding"] = []string{"gzip"}
	}
	h["Content-Length"] = []string{strconv.FormatInt(n, 10)}
	c.w.WriteHeader(http.StatusOK)
}

// jsonExport is the JSON export of a prefecture or the whole country.
type jsonExport struct {
	// body is the "data":… member of the envelope: the prefecture, the total and the items, each
	// item the object of GET /town/v1/municipalities/{code}.
	body     []byte
	filename string
	// gzip starts the gzip stream of envelopeHead and body.
	gzip *gzipStart
}

// lazyJSONExport is built on first request.
type lazyJSONExport struct {
	once   sync.Once
	export *jsonExport
}

// jsonExport returns the JSON export of a prefecture ("" for the whole country), building it on
// its first request.
func (b *bodies) jsonExport(pref string) *jsonExport {
	l := b.jsonExports[pref]
	l.once.Do(func() {
		list, _ := b.catalog.List(pref)
		e := &jsonExport{body: b.itemsData(list), filename: export.Filename(&b.catalog.Meta, pref, jsonFormat)}
		e.gzip = newGzipStart(envelopeHead, e.body)
		l.export = e
	})
	return l.export
}

// itemsData is `"data":{"prefecture":…,"total":n,"items":[…]}` with the municipality objects of
// the list, as GET /town/v1/municipalities/{code} gives them.
func (b *bodies) itemsData(l town.List) []byte {
	var d bytes.Buffer
	d.WriteString(`"data":{"prefecture":`)
	if l.Prefecture == nil {
		d.WriteString("null")
	} else {
		d.Write(jsonValue(l.Prefecture))
	}
	d.WriteString(`,"total":` + strconv.Itoa(len(l.Items)) + `,"items":[`)
	for k, m := range l.Items {
		if k > 0 {
			d.WriteByte(',')
		}
		d.Write(b.municipalityObject(m))
	}
	d.WriteString("]}")
	return d.Bytes()
}
