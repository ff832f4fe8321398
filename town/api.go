package town

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/hensachi/hensachi"
)

// The bodies of the statistics API (/town/v1, shapes in serve/openapi.json). Each is the
// `"data":…` member of the API's success envelope, so the transport writes it as it is: the meta
// document is encoded with the catalog, a municipality on first request, the lists of every
// prefecture together on the first list request, and rankings per request.

// bodies caches what is encoded once per dataset version.
type bodies struct {
	meta []byte
	// municipality[i] is the encoded data of row i, once requested.
	municipality []atomic.Pointer[[]byte]
	// similar[i] is the encoded similar list of row i, once requested.
	similar []atomic.Pointer[similarBody]
	// medians are the national medians of a comparison.
	medians  []byte
	listOnce sync.Once
	lists    map[string][]byte // by prefecture code, "" for all
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

// MetaData is the data of GET /town/v1/meta.
func (c *Catalog) MetaData() []byte { return c.bodies.meta }

// MunicipalityData is the data of GET /town/v1/municipalities/{code} for row i (see Index).
func (c *Catalog) MunicipalityData(i int) []byte {
	if b := c.bodies.municipality[i].Load(); b != nil {
		return *b
	}
	m := &c.towns[i]
	meta := &c.Meta
	out := municipalityJSON{Code: m.Code, Name: m.Name, Prefecture: m.Prefecture,
		PageURL: c.baseURL + "/town/municipalities/" + m.Code, DataUpdated: meta.DataUpdated}
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
	c.bodies.municipality[i].Store(&b)
	return b
}

// ListData is the data of GET /town/v1/municipalities for a prefecture ("" for all); the lists of
// every prefecture are encoded together on the first request.
func (c *Catalog) ListData(pref string) []byte {
	c.bodies.listOnce.Do(func() {
		byPref := map[string]*listJSON{"": {Items: []listItemJSON{}}}
		for code, p := range c.prefs {
			byPref[code] = &listJSON{Prefecture: &p, Items: []listItemJSON{}}
		}
		for _, m := range c.towns { // in code order, the documented list order
			item := listItemJSON{Code: m.Code, Name: m.Name, Prefecture: m.Prefecture}
			for _, key := range []string{"", m.Prefecture.Code} {
				l := byPref[key]
				l.Items = append(l.Items, item)
				l.Total++
			}
		}
		c.bodies.lists = map[string][]byte{}
		for k, l := range byPref {
			c.bodies.lists[k] = dataMember(l)
		}
	})
	return c.bodies.lists[pref]
}

// RankingData is the data of GET /town/v1/rankings/{axis} for axis a, of one prefecture ("" for
// the whole country).
func (c *Catalog) RankingData(a int, order Order, pref string, offset, limit int) []byte {
	page, total := c.Ranking(a, order, pref, offset, limit)
	am := c.Meta.Axes[a]
	out := rankingJSON{Axis: axisJSON{Key: am.Key, Label: am.Label, Unit: am.Unit, Description: am.Description, Source: am.Source},
		Order: string(order), Total: total, Offset: offset, Limit: limit, Items: []rankingItemJSON{}}
	if p, ok := c.prefs[pref]; ok {
		out.Prefecture = &p
	}
	for _, m := range page {
		s := m.Scores[a]
		out.Items = append(out.Items, rankingItemJSON{Rank: s.Rank, Code: m.Code, Name: m.Name, Prefecture: m.Prefecture,
			Hensachi: s.Hensachi, Value: s.Value.V})
	}
	return dataMember(out)
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

// SimilarData is the data of GET /town/v1/municipalities/{code}/similar: the municipality and its
// nearest neighbours (Similar), at most limit. Each municipality's fifty are encoded on its first
// request, so a call joins bytes.
func (c *Catalog) SimilarData(code string, limit int) ([]byte, error) {
	i, ok := c.byCode[code]
	if !ok {
		return nil, notFound(code)
	}
	body := c.bodies.similar[i].Load()
	if body == nil {
		body = c.encodeSimilar(i)
		c.bodies.similar[i].Store(body)
	}
	items := body.items[:min(limit, len(body.items))]
	n := len(body.head) + 32
	for _, it := range items {
		n += len(it) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, body.head...)
	b = strconv.AppendInt(b, int64(limit), 10)
	b = append(b, `,"items":[`...)
	for k, it := range items {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	return append(b, "]}"...), nil
}

// similarBody is the encoded similar list of one municipality: the data member up to the limit's
// value, and each neighbour's object.
type similarBody struct {
	head  []byte
	items [][]byte
}

func (c *Catalog) encodeSimilar(i int) *similarBody {
	m := &c.towns[i]
	near, _ := c.Similar(m.Code, MaxNeighbours)
	head := similarHeadJSON{Code: m.Code, Name: m.Name, Prefecture: m.Prefecture, MissingAxes: []string{}}
	for a, s := range m.Scores {
		if !s.Value.Valid {
			head.MissingAxes = append(head.MissingAxes, hensachi.Axes[a].Key)
		}
	}
	b := dataMember(head)
	body := &similarBody{head: append(b[:len(b)-1:len(b)-1], `,"limit":`...)} // the object left open
	for _, n := range near {
		item := neighbourJSON{Code: n.Municipality.Code, Name: n.Municipality.Name, Prefecture: n.Municipality.Prefecture,
			Distance: hensachi.Round(n.Distance, 2), Differences: make([]differenceJSON, len(n.Differences))}
		for j, d := range n.Differences {
			item.Differences[j] = differenceJSON{Axis: hensachi.Axes[d.Axis].Key, Label: hensachi.Axes[d.Axis].Label,
				Hensachi: n.Municipality.Scores[d.Axis].Hensachi, Difference: d.Difference}
		}
		body.items = append(body.items, dataMember(item)[len(`"data":`):])
	}
	return body
}

// CompareData is the data of GET /town/v1/compare: the municipalities of codes in their order, as
// GET /town/v1/municipalities/{code} gives them, and the national medians of every axis's values
// and every statistic. It fails with not_found naming the first unknown code.
func (c *Catalog) CompareData(codes []string) ([]byte, error) {
	rows, err := c.rows(codes)
	if err != nil {
		return nil, err
	}
	objects := make([][]byte, len(rows))
	n := len(c.bodies.medians) + 32
	for k, i := range rows {
		objects[k] = c.municipalityObject(i)
		n += len(objects[k]) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, `"data":{"items":[`...)
	for k, o := range objects {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, o...)
	}
	b = append(b, `],"medians":`...)
	b = append(b, c.bodies.medians...)
	return append(b, '}'), nil
}

// mediansObject encodes the national medians of a comparison.
func (c *Catalog) mediansObject() []byte {
	// a median of an even count is the mean of two values, so it gets one decimal more than they
	// have, and no more (the mean of 31.18 and 31.20 is 31.19, not 31.189999999999998)
	median := func(m hensachi.Optional[float64], f hensachi.Field) *float64 {
		m.V = hensachi.Round(m.V, f.Decimals+1)
		return optF(m)
	}
	var scores, stats orderedObject
	for a, ax := range hensachi.Axes {
		scores = append(scores, member{ax.Key, median(c.AxisMedian(a), ax)})
	}
	for s, st := range hensachi.Stats {
		stats = append(stats, member{st.Key, median(c.StatMedian(s), st)})
	}
	return dataMember(mediansJSON{Scores: scores, Stats: stats})[len(`"data":`):]
}

// SearchData is the data of GET /town/v1/municipalities?q=: the list of the municipalities Search
// finds for query, of one prefecture ("" for all), in Search's order.
func (c *Catalog) SearchData(query, pref string) []byte {
	out := listJSON{Items: []listItemJSON{}}
	if p, ok := c.prefs[pref]; ok {
		out.Prefecture = &p
	}
	for _, m := range c.Search(query, len(c.towns)) {
		if pref == "" || m.Prefecture.Code == pref {
			out.Items = append(out.Items, listItemJSON{Code: m.Code, Name: m.Name, Prefecture: m.Prefecture})
		}
	}
	out.Total = len(out.Items)
	return dataMember(out)
}

type differenceJSON struct {
	Axis       string  `json:"axis"`
	Label      string  `json:"label"`
	Hensachi   float64 `json:"hensachi"` // the neighbour's
	Difference float64 `json:"difference"`
}

type neighbourJSON struct {
	Code        string              `json:"code"`
	Name        string              `json:"name"`
	Prefecture  hensachi.Prefecture `json:"prefecture"`
	Distance    float64             `json:"distance"`
	Differences []differenceJSON    `json:"differences"`
}

// similarHeadJSON is the similar list's data before its limit and items.
type similarHeadJSON struct {
	Code       string              `json:"code"`
	Name       string              `json:"name"`
	Prefecture hensachi.Prefecture `json:"prefecture"`
	// MissingAxes are the axes the municipality has no value on, left out of every distance.
	MissingAxes []string `json:"missing_axes"`
}

type mediansJSON struct {
	Scores orderedObject `json:"scores"`
	Stats  orderedObject `json:"stats"`
}
