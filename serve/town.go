package serve

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/dataset"
	"github.com/hensachi/hensachi/webui"
)

// town is what the statistics handlers serve from one dataset: the mapped file and what is
// derived from it once (ranking orders, the meta document) or lazily (encoded municipalities).
type town struct {
	ds      *dataset.Dataset
	baseURL string
	etag    string
	// etagHeader is the ETag field's value, shared by every response: net/http only reads it
	etagHeader []string
	meta       []byte // `"data":{…}` of GET /meta
	prefs      map[string]hensachi.Prefecture
	// ranking[a] lists the rows ranked on axis a, best first, ties by code.
	ranking [][]int
	// municipalityJSON[i] caches the encoded data of row i; built on first use.
	municipalityJSON []atomic.Pointer[[]byte]
	listOnce         sync.Once
	lists            map[string][]byte // by prefecture code, "" for all
	catalogOnce      sync.Once
	pages            *webui.Catalog // the web pages' view, built on first use
}

func newTown(ds *dataset.Dataset, baseURL string) *town {
	etag := `"` + ds.Version + `"`
	t := &town{ds: ds, baseURL: strings.TrimSuffix(baseURL, "/"), etag: etag, etagHeader: []string{etag},
		prefs: map[string]hensachi.Prefecture{}, municipalityJSON: make([]atomic.Pointer[[]byte], ds.Len())}
	for _, p := range ds.Meta.Prefectures {
		t.prefs[p.Code] = p
	}
	t.meta = dataMember(ds.Meta)
	for a := range hensachi.Axes {
		var rows []int
		for i := range ds.Len() {
			if ds.Score(a, i).Value.Valid {
				rows = append(rows, i)
			}
		}
		slices.SortStableFunc(rows, func(x, y int) int { return ds.Score(a, x).Rank - ds.Score(a, y).Rank })
		t.ranking = append(t.ranking, rows)
	}
	return t
}

// dataMember encodes v as the `"data":…` member of the envelope.
func dataMember(v any) []byte {
	var b bytes.Buffer
	b.WriteString(`"data":`)
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only the fixed types of this file are encoded
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// orderedObject is a JSON object whose members keep their order (axes and statistics in spec order).
type orderedObject []member

type member struct {
	key   string
	value any
}

func (k orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range k {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(m.key)
		b.Write(key)
		b.WriteByte(':')
		v, err := json.Marshal(m.value)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

type scoreJSON struct {
	Label     string   `json:"label"`
	Hensachi  *float64 `json:"hensachi"`
	Value     *float64 `json:"value"`
	Unit      string   `json:"unit"`
	Rank      *int     `json:"rank"`
	RankTotal int      `json:"rank_total"`
}

type statJSON struct {
	Label string   `json:"label"`
	Value *float64 `json:"value"`
	Unit  string   `json:"unit"`
}

type receiptsJSON struct {
	FiscalYear string `json:"fiscal_year"`
	AmountYen  *int64 `json:"amount_yen"`
	Count      *int64 `json:"count"`
	Rank       *int   `json:"rank"`
}

type deductionsJSON struct {
	TaxYear   string `json:"tax_year"`
	AmountYen *int64 `json:"amount_yen"`
	Donors    *int64 `json:"donors"`
}

type balanceJSON struct {
	AmountYen *int64 `json:"amount_yen"`
	Rank      *int   `json:"rank"`
}

type historyJSON struct {
	FiscalYear        string `json:"fiscal_year"`
	AmountThousandYen *int64 `json:"amount_thousand_yen"`
}

// corporateJSON is the shape openapi.json gives corporate donations (企業版ふるさと納税), so that
// clients generated today keep working once a source publishes per-municipality results.
type corporateJSON struct {
	FiscalYear string `json:"fiscal_year"`
	AmountYen  *int64 `json:"amount_yen"`
	Count      *int64 `json:"count"`
}

type furusatoJSON struct {
	Receipts    receiptsJSON   `json:"receipts"`
	Deductions  deductionsJSON `json:"deductions"`
	Balance     balanceJSON    `json:"balance"`
	History     []historyJSON  `json:"history"`
	Corporate   *corporateJSON `json:"corporate"` // nil: no source publishes per-municipality results
	DataUpdated string         `json:"data_updated"`
}

type municipalityJSON struct {
	Code        string              `json:"code"`
	Name        string              `json:"name"`
	Prefecture  hensachi.Prefecture `json:"prefecture"`
	Scores      orderedObject       `json:"scores"`
	Stats       orderedObject       `json:"stats"`
	Furusato    furusatoJSON        `json:"furusato"`
	PageURL     string              `json:"page_url"`
	DataUpdated string              `json:"data_updated"`
}

func optF(o hensachi.Optional[float64]) *float64 {
	if !o.Valid {
		return nil
	}
	return &o.V
}

func optI(o hensachi.Optional[int64]) *int64 {
	if !o.Valid {
		return nil
	}
	return &o.V
}

// rankIf returns a pointer to rank when valid: ranks exist only where the ranked value does.
func rankIf(rank int, valid bool) *int {
	if !valid {
		return nil
	}
	return &rank
}

func (t *town) pageURL(code string) string { return t.baseURL + "/town/municipalities/" + code }

func (t *town) municipalityData(i int) []byte {
	if b := t.municipalityJSON[i].Load(); b != nil {
		return *b
	}
	m := t.ds.Municipality(i)
	meta := &t.ds.Meta
	out := municipalityJSON{Code: m.Code, Name: m.Name, Prefecture: m.Prefecture,
		PageURL: t.pageURL(m.Code), DataUpdated: meta.DataUpdated}
	for a, s := range m.Scores {
		var h *float64
		if s.Value.Valid {
			h = &s.Hensachi
		}
		out.Scores = append(out.Scores, member{hensachi.Axes[a].Key, scoreJSON{
			Label: hensachi.Axes[a].Label, Hensachi: h, Value: optF(s.Value), Unit: hensachi.Axes[a].Unit,
			Rank: rankIf(s.Rank, s.Value.Valid), RankTotal: meta.Axes[a].Count}})
	}
	for i, v := range m.Stats {
		st := hensachi.Stats[i]
		out.Stats = append(out.Stats, member{st.Key, statJSON{Label: st.Label, Value: optF(v), Unit: st.Unit}})
	}
	f := m.Furusato
	out.Furusato = furusatoJSON{
		Receipts: receiptsJSON{FiscalYear: meta.Furusato.Receipts.FiscalYear, AmountYen: optI(f.ReceiptsYen),
			Count: optI(f.ReceiptsCount), Rank: rankIf(f.ReceiptsRank, f.ReceiptsYen.Valid)},
		Deductions: deductionsJSON{TaxYear: meta.Furusato.Deductions.TaxYear, AmountYen: optI(f.DeductionsYen),
			Donors: optI(f.DeductionDonors)},
		Balance:     balanceJSON{AmountYen: optI(f.BalanceYen), Rank: rankIf(f.BalanceRank, f.BalanceYen.Valid)},
		History:     make([]historyJSON, len(f.HistoryThousandYen)),
		DataUpdated: meta.Furusato.DataUpdated,
	}
	for j, h := range f.HistoryThousandYen {
		out.Furusato.History[j] = historyJSON{FiscalYear: meta.Furusato.History.FiscalYears[j], AmountThousandYen: optI(h)}
	}
	b := dataMember(out)
	t.municipalityJSON[i].Store(&b)
	return b
}

type listItemJSON struct {
	Code       string              `json:"code"`
	Name       string              `json:"name"`
	Prefecture hensachi.Prefecture `json:"prefecture"`
}

type listJSON struct {
	Prefecture *hensachi.Prefecture `json:"prefecture"`
	Total      int                  `json:"total"`
	Items      []listItemJSON       `json:"items"`
}

// list returns the encoded list for a prefecture ("" for all), built for every prefecture at once.
func (t *town) list(pref string) []byte {
	t.listOnce.Do(func() {
		byPref := map[string]*listJSON{"": {Items: []listItemJSON{}}}
		for code, p := range t.prefs {
			byPref[code] = &listJSON{Prefecture: &p, Items: []listItemJSON{}}
		}
		for i := range t.ds.Len() { // rows are in code order, the documented list order
			m := t.ds.Municipality(i)
			item := listItemJSON{Code: m.Code, Name: m.Name, Prefecture: m.Prefecture}
			for _, key := range []string{"", m.Prefecture.Code} {
				l := byPref[key]
				l.Items = append(l.Items, item)
				l.Total++
			}
		}
		t.lists = map[string][]byte{}
		for k, l := range byPref {
			t.lists[k] = dataMember(l)
		}
	})
	return t.lists[pref]
}

type axisJSON struct {
	Key         string `json:"key"`
	Label       string `json:"label"`
	Unit        string `json:"unit"`
	Description string `json:"description"`
	Source      string `json:"source"`
}

type rankingItemJSON struct {
	Rank       int                 `json:"rank"`
	Code       string              `json:"code"`
	Name       string              `json:"name"`
	Prefecture hensachi.Prefecture `json:"prefecture"`
	Hensachi   float64             `json:"hensachi"`
	Value      float64             `json:"value"`
}

type rankingJSON struct {
	Axis       axisJSON             `json:"axis"`
	Order      string               `json:"order"`
	Prefecture *hensachi.Prefecture `json:"prefecture"`
	Total      int                  `json:"total"`
	Offset     int                  `json:"offset"`
	Limit      int                  `json:"limit"`
	Items      []rankingItemJSON    `json:"items"`
}

// prefecture validates a pref parameter; absent gives nil.
func (t *town) prefecture(q map[string]string) (*hensachi.Prefecture, error) {
	code, ok := q["pref"]
	if !ok {
		return nil, nil
	}
	if p, ok := t.prefs[code]; ok {
		return &p, nil
	}
	if len(code) != 2 || !allDigits(code) {
		return nil, hensachi.ParamError("pref", "pref must be a 2-digit prefecture code such as 13, not %q", code)
	}
	return nil, hensachi.ParamError("pref", "there is no prefecture %s; codes run from 01 to 47", code)
}

// Handlers of the statistics service. Each validates its input before reserving quota.

func (s *Server) getMunicipality(c *call, ps httprouter.Params) ([]byte, error) {
	if _, err := parseQuery(c.r.URL.RawQuery); err != nil {
		return nil, err
	}
	code := ps.ByName("code")
	if len(code) != 5 || !allDigits(code) {
		return nil, hensachi.ParamError("code", "code must be a 5-digit municipality code such as 13101, not %q", truncateParam(code))
	}
	i := c.town.ds.Index(code)
	if i < 0 {
		return nil, hensachi.Errorf(hensachi.ENotFound, "there is no municipality %s; GET /town/v1/municipalities lists the codes", code)
	}
	return c.serve(func() ([]byte, error) { return c.town.municipalityData(i), nil })
}

func (s *Server) getRanking(c *call, ps httprouter.Params) ([]byte, error) {
	q, err := parseQuery(c.r.URL.RawQuery, "order", "pref", "limit", "offset")
	if err != nil {
		return nil, err
	}
	a := hensachi.AxisIndex(ps.ByName("axis"))
	if a < 0 {
		keys := make([]string, len(hensachi.Axes))
		for i, ax := range hensachi.Axes {
			keys[i] = ax.Key
		}
		return nil, hensachi.Errorf(hensachi.ENotFound, "there is no axis %q; axes are %s", truncateParam(ps.ByName("axis")), strings.Join(keys, ", "))
	}
	order := "desc"
	if o, ok := q["order"]; ok {
		if o != "desc" && o != "asc" {
			return nil, hensachi.ParamError("order", "order must be desc or asc, not %q", o)
		}
		order = o
	}
	pref, err := c.town.prefecture(q)
	if err != nil {
		return nil, err
	}
	limit, err := intParam(q, "limit", 20, 1, 100)
	if err != nil {
		return nil, err
	}
	offset, err := intParam(q, "offset", 0, 0, 1_000_000)
	if err != nil {
		return nil, err
	}
	return c.serve(func() ([]byte, error) {
		t := c.town
		rows := t.ranking[a]
		if pref != nil {
			rows = slices.DeleteFunc(slices.Clone(rows), func(i int) bool { return !strings.HasPrefix(t.ds.Code(i), pref.Code) })
		}
		if order == "asc" {
			rows = ascending(t, a, rows)
		}
		am := t.ds.Meta.Axes[a]
		out := rankingJSON{Axis: axisJSON{Key: am.Key, Label: am.Label, Unit: am.Unit, Description: am.Description, Source: am.Source},
			Order: order, Prefecture: pref, Total: len(rows), Offset: offset, Limit: limit, Items: []rankingItemJSON{}}
		for _, i := range rows[min(offset, len(rows)):min(offset+limit, len(rows))] {
			sc := t.ds.Score(a, i)
			m := t.ds.Municipality(i)
			out.Items = append(out.Items, rankingItemJSON{Rank: sc.Rank, Code: m.Code, Name: m.Name, Prefecture: m.Prefecture,
				Hensachi: sc.Hensachi, Value: sc.Value.V})
		}
		return dataMember(out), nil
	})
}

// ascending reverses a best-first ranking to worst first, keeping ties in code order.
func ascending(t *town, a int, rows []int) []int {
	out := slices.Clone(rows)
	slices.SortStableFunc(out, func(x, y int) int { return t.ds.Score(a, y).Rank - t.ds.Score(a, x).Rank })
	return out
}

func (s *Server) listMunicipalities(c *call, _ httprouter.Params) ([]byte, error) {
	q, err := parseQuery(c.r.URL.RawQuery, "pref")
	if err != nil {
		return nil, err
	}
	pref, err := c.town.prefecture(q)
	if err != nil {
		return nil, err
	}
	key := ""
	if pref != nil {
		key = pref.Code
	}
	return c.serve(func() ([]byte, error) { return c.town.list(key), nil })
}

func (s *Server) getMeta(c *call, _ httprouter.Params) ([]byte, error) {
	if _, err := parseQuery(c.r.URL.RawQuery); err != nil {
		return nil, err
	}
	return c.serve(func() ([]byte, error) { return c.town.meta, nil })
}

// datasetTowns gives the web pages the municipalities of the dataset being served.
type datasetTowns struct{ holder *dataset.Holder[*town] }

func (d datasetTowns) Catalog() (*webui.Catalog, error) {
	snap := d.holder.Acquire()
	if snap == nil {
		return nil, hensachi.Errorf(hensachi.EUnavailable, "the server is shutting down")
	}
	defer snap.Release()
	return snap.Derived.catalog(), nil
}

// catalog builds the pages' catalog on first use, with strings copied out of the mapping.
func (t *town) catalog() *webui.Catalog {
	t.catalogOnce.Do(func() {
		towns := make([]hensachi.Municipality, t.ds.Len())
		for i := range towns {
			m := t.ds.Municipality(i)
			m.Code, m.Name, m.Kana = strings.Clone(m.Code), strings.Clone(m.Name), strings.Clone(m.Kana)
			m.Prefecture = hensachi.Prefecture{Code: strings.Clone(m.Prefecture.Code), Name: strings.Clone(m.Prefecture.Name)}
			towns[i] = m
		}
		t.pages = webui.NewCatalog(towns, t.ds.Meta, t.ds.Version)
	})
	return t.pages
}
