package webui

import (
	"bytes"
	"html/template"
	"net/http"
	"strconv"

	"github.com/hensachi/hensachi"
	"github.com/julienschmidt/httprouter"
)

// Towns looks municipalities up in the dataset the server is serving.
type Towns interface {
	// ViewMunicipality calls view with the municipality of a code and the meta document of its
	// dataset while the dataset stays mapped: their strings live in the mapping, so view must not
	// keep them. An unknown code is hensachi.ENotFound.
	ViewMunicipality(code string, view func(hensachi.Municipality, hensachi.Meta)) error
}

var pageTemplate = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="ja"><meta charset="utf-8"><title>{{.Name}}（{{.Prefecture.Name}}） — 市区町村偏差値</title>
<style>body{font-family:sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}td,th{padding:.2rem .6rem;text-align:left}td.n{text-align:right}</style>
<h1>{{.Name}} <small>{{.Prefecture.Name}} · {{.Code}}</small></h1>
<h2>偏差値</h2><table>{{range .Scores}}<tr><th>{{.Label}}</th><td class=n>{{.Hensachi}}</td><td class=n>{{.Value}} {{.Unit}}</td><td>{{.Rank}}</td></tr>{{end}}</table>
<h2>統計</h2><table>{{range .Stats}}<tr><th>{{.Label}}</th><td class=n>{{.Value}} {{.Unit}}</td></tr>{{end}}</table>
<h2>ふるさと納税（{{.FiscalYear}}）</h2><table><tr><th>受入額</th><td class=n>{{.Receipts}} 円</td></tr><tr><th>住民税控除額</th><td class=n>{{.Deductions}} 円</td></tr></table>
<p>データ更新日 {{.Updated}}。出典は <a href="/town/v1/meta">/town/v1/meta</a> の source を参照（政府統計を加工して作成）。</p>
</html>
`))

type pageRow struct{ Label, Hensachi, Value, Unit, Rank string }

// municipalityPage is the human page that page_url points at; it needs no key.
func (w *UI) municipalityPage(rw http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	var page bytes.Buffer
	var renderErr error
	err := w.deps.Towns.ViewMunicipality(ps.ByName("code"), func(m hensachi.Municipality, meta hensachi.Meta) {
		renderErr = pageTemplate.Execute(&page, municipalityData(m, meta))
	})
	switch hensachi.ErrorCode(err) {
	case "":
	case hensachi.ENotFound:
		message(rw, r, http.StatusNotFound, "Not found", "There is no municipality with this code.", false)
		return
	default:
		w.fail(rw, r, http.StatusServiceUnavailable, "Unavailable", "The data cannot be read just now. Try again shortly.", "municipality page", err)
		return
	}
	if renderErr != nil {
		w.fail(rw, r, http.StatusInternalServerError, "Page failed", "This page could not be shown.", "render municipality page", renderErr)
		return
	}
	writePage(rw, r, http.StatusOK, page.Bytes())
}

type municipalityPageData struct {
	hensachi.Municipality
	Scores, Stats                             []pageRow
	FiscalYear, Receipts, Deductions, Updated string
}

func municipalityData(m hensachi.Municipality, meta hensachi.Meta) municipalityPageData {
	num := func(o hensachi.Optional[float64]) string {
		if !o.Valid {
			return "—"
		}
		return formatFloat(o.V)
	}
	data := municipalityPageData{Municipality: m, FiscalYear: meta.Furusato.Receipts.FiscalYear, Updated: meta.DataUpdated}
	for a, sc := range m.Scores {
		row := pageRow{Label: hensachi.Axes[a].Label, Value: num(sc.Value), Unit: hensachi.Axes[a].Unit, Hensachi: "—"}
		if sc.Value.Valid {
			row.Hensachi, row.Rank = formatFloat(sc.Hensachi), "全国 "+strconv.Itoa(sc.Rank)+" 位"
		}
		data.Scores = append(data.Scores, row)
	}
	for i, v := range m.Stats {
		data.Stats = append(data.Stats, pageRow{Label: hensachi.Stats[i].Label, Value: num(v), Unit: hensachi.Stats[i].Unit})
	}
	data.Receipts, data.Deductions = intText(m.Furusato.ReceiptsYen), intText(m.Furusato.DeductionsYen)
	return data
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// intText writes a yen amount with thousands separators, or a dash when there is none.
func intText(o hensachi.Optional[int64]) string {
	if !o.Valid {
		return "—"
	}
	s := strconv.FormatInt(o.V, 10)
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	var b []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	if neg {
		return "-" + string(b)
	}
	return string(b)
}
