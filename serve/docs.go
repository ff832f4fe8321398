package serve

import (
	_ "embed"
	"html/template"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
)

//go:embed openapi.json
var openAPIDoc []byte

func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(openAPIDoc)
}

// problemDocs explains each error code at the problem's type address, /problems/<code>.
var problemDocs = map[string]string{
	hensachi.EInvalidParameter:   "A parameter is missing, empty, repeated, unknown, of the wrong type or out of range; `param` names it.",
	hensachi.EMissingFile:        "The multipart body has no part named `file`, or it is empty.",
	hensachi.EInvalidImage:       "The image is truncated or corrupt, or larger in pixels than the service decodes.",
	hensachi.EMissingAPIKey:      "No API key was sent. Send it in `X-API-Key` or `Authorization: Bearer`.",
	hensachi.EInvalidAPIKey:      "The API key is not one this service issued.",
	hensachi.ERevokedAPIKey:      "The API key was revoked, for example by rotation. Use the account's current key.",
	hensachi.ENotFound:           "No such route, municipality code or axis.",
	hensachi.EMethodNotAllowed:   "The route exists but not for this method; `Allow` lists the methods.",
	hensachi.EFileTooLarge:       "The upload is larger than 10 MiB.",
	hensachi.EUnsupportedMedia:   "The file is neither JPEG nor PNG (judged by its content).",
	hensachi.EDailyLimitExceeded: "The plan's daily limit for this service is reached. It resets at 00:00 Asia/Tokyo; `Retry-After` gives the seconds.",
	hensachi.EOverloaded:         "The service is busy. Retry after `Retry-After` seconds.",
	hensachi.EUnavailable:        "A dependency of the service is unavailable. Retry after `Retry-After` seconds.",
	hensachi.EInternal:           "The server failed. Quote `request_id` when reporting it.",
}

func serveProblemDoc(w http.ResponseWriter, r *http.Request, code string) {
	doc, ok := problemDocs[code]
	if !ok {
		writeError(w, r, hensachi.Errorf(hensachi.ENotFound, "no problem type %q", truncateParam(code)))
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte(code + ": " + doc + "\n"))
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
func (s *Server) municipalityPage(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	snap := s.datasets.Acquire()
	if snap == nil {
		writeError(w, r, hensachi.Errorf(hensachi.EUnavailable, "the server is shutting down"))
		return
	}
	defer snap.Release()
	i := snap.Derived.ds.Index(ps.ByName("code"))
	if i < 0 {
		writeError(w, r, hensachi.Errorf(hensachi.ENotFound, "there is no municipality %q", truncateParam(ps.ByName("code"))))
		return
	}
	m := snap.Derived.ds.Municipality(i)
	num := func(o hensachi.Optional[float64]) string {
		if !o.Valid {
			return "—"
		}
		return formatFloat(o.V)
	}
	data := struct {
		hensachi.Municipality
		Scores, Stats                             []pageRow
		FiscalYear, Receipts, Deductions, Updated string
	}{Municipality: m, FiscalYear: snap.Derived.ds.Meta.Furusato.Receipts.FiscalYear, Updated: snap.Derived.ds.Meta.DataUpdated}
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
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := pageTemplate.Execute(w, data); err != nil {
		slog.ErrorContext(r.Context(), "render page", "err", err)
	}
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
