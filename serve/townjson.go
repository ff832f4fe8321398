package serve

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/town"
)

// The statistics API's JSON (shapes in openapi.json): the answers of the read model (package
// town), each encoded as the `"data":…` member of the success envelope (writeSuccess). What every
// call of a dataset version shares is encoded once and kept with the catalog (bodies, a town.Memo):
// the meta document on the version's first call, a municipality on its first request, the lists
// of every prefecture together on the first list request, a municipality's similar list on its
// first request, the medians of a comparison, the JSON export of a prefecture on its first
// request. A call joins bytes; rankings and searches are encoded per call. A kept body is gzipped
// once, on its first compressed answer (compress.go).

// bodies are the encoded answers of one catalog.
type bodies struct {
	catalog *town.Catalog
	// etag is the version as a strong entity tag, the validator of every answer from the catalog;
	// gzipETag the validator of its answers to a client that accepts gzip, another representation
	// of the version. Header values: net/http only reads them.
	etag, gzipETag []string
	// gzipStarts are the compressed starts of the bodies kept here, by their first byte
	// (gzipStartOf).
	gzipStarts sync.Map
	meta       []byte
	// municipality[i] is the encoded data of row i, once requested.
	municipality []atomic.Pointer[[]byte]
	// similar[i] is the encoded similar list of row i, once requested.
	similar []atomic.Pointer[similarBody]
	// medians are the national medians of a comparison, as a JSON object.
	medians  []byte
	listOnce sync.Once
	lists    map[string][]byte // by prefecture code, "" for all
	// jsonExports are the JSON exports by prefecture code, "" for all (export.go).
	jsonExports map[string]*lazyJSONExport
}

// catalogBodies keeps the bodies of each catalog with it.
var catalogBodies = town.NewMemo(func(c *town.Catalog) *bodies {
	b := &bodies{catalog: c, etag: []string{`"` + c.Version + `"`}, gzipETag: []string{`"` + c.Version + `.gz"`}, meta: dataMember(c.Meta),
		municipality: make([]atomic.Pointer[[]byte], c.Len()), similar: make([]atomic.Pointer[similarBody], c.Len()),
		medians: encodeMedians(c.Medians()), jsonExports: map[string]*lazyJSONExport{"": {}}}
	for _, p := range c.Meta.Prefectures {
		b.jsonExports[p.Code] = &lazyJSONExport{}
	}
	return b
})

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

// jsonValue encodes v as a JSON value, as dataMember does.
func jsonValue(v any) []byte { return dataMember(v)[len(`"data":`):] }

// municipalityData is the data of GET /town/v1/municipalities/{code} for row i (town.Catalog.Index).
func (b *bodies) municipalityData(i int) []byte {
	if d := b.municipality[i].Load(); d != nil {
		return *d
	}
	c := b.catalog
	m := c.Row(i)
	meta := &c.Meta
	out := municipalityJSON{Code: m.Code, Name: m.Name, Prefecture: m.Prefecture,
		PageURL: c.PageURL(m), DataUpdated: meta.DataUpdated}
	if g, ok := c.PeerGroupOf(m.Code); ok {
		out.PeerGroup = newPeerGroupJSON(g)
	}
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
	d := dataMember(out)
	b.municipality[i].Store(&d)
	return d
}

// municipalityObject is the municipality m of the catalog as a JSON object.
func (b *bodies) municipalityObject(m *hensachi.Municipality) []byte {
	return b.municipalityData(b.catalog.Index(m.Code))[len(`"data":`):]
}

// listData is the data of GET /town/v1/municipalities for a prefecture ("" for all); the lists of
// every prefecture are encoded together on the first request.
func (b *bodies) listData(pref string) []byte {
	b.listOnce.Do(func() {
		c := b.catalog
		b.lists = map[string][]byte{}
		prefs := []string{""}
		for _, p := range c.Meta.Prefectures {
			prefs = append(prefs, p.Code)
		}
		for _, p := range prefs {
			l, _ := c.List(p)
			b.lists[p] = dataMember(encodeList(l))
		}
	})
	return b.lists[pref]
}

// searchData is the data of GET /town/v1/municipalities?q=.
func searchData(l town.List) []byte { return dataMember(encodeList(l)) }

func encodeList(l town.List) listJSON {
	out := listJSON{Prefecture: l.Prefecture, Total: len(l.Items), Items: make([]listItemJSON, len(l.Items))}
	for k, m := range l.Items {
		out.Items[k] = listItemJSON{Code: m.Code, Name: m.Name, Kana: m.Kana, Prefecture: m.Prefecture}
	}
	return out
}

// rankingData is the data of GET /town/v1/rankings/{axis}.
func (b *bodies) rankingData(p town.RankingPage) []byte {
	am := b.catalog.Meta.Axes[p.Axis]
	c := b.catalog
	out := rankingJSON{Axis: axisJSON{Key: am.Key, Label: am.Label, Unit: am.Unit, Description: am.Description, Source: am.Source},
		Order: string(p.Order), Prefecture: p.Prefecture, PeerGroup: newPeerGroupJSON(p.PeerGroup), Total: p.Total, Offset: p.Offset, Limit: p.Limit,
		Items: make([]rankingItemJSON, len(p.Items))}
	for k, m := range p.Items {
		s := m.Scores[p.Axis]
		within := c.AxisRankInPeers(p.Axis, c.Index(m.Code)).Rank
		out.Items[k] = rankingItemJSON{Rank: s.Rank, Code: m.Code, Name: m.Name, Prefecture: m.Prefecture,
			Hensachi: s.Hensachi, Value: s.Value.V, RankInPeers: rankIf(within, within > 0)}
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
	Corporate   *corporateJSON `json:"corporate"` // nil: no obtainable source has per-municipality results
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
	PeerGroup   *peerGroupJSON      `json:"peer_group"` // null: the census gives no figures to class it by
}

// peerGroupJSON names a 類似団体 where a municipality or a ranking refers to it.
type peerGroupJSON struct {
	Code string `json:"code"`
	Name string `json:"name"`
	Size int    `json:"size"`
}

func newPeerGroupJSON(g *hensachi.PeerGroup) *peerGroupJSON {
	if g == nil {
		return nil
	}
	return &peerGroupJSON{Code: g.Code, Name: g.Name, Size: len(g.Members)}
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
	Kana       string              `json:"kana"` // beyond the spec's item: the site shows the reading too
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
	Rank        int                 `json:"rank"`
	Code        string              `json:"code"`
	Name        string              `json:"name"`
	Prefecture  hensachi.Prefecture `json:"prefecture"`
	Hensachi    float64             `json:"hensachi"`
	Value       float64             `json:"value"`
	RankInPeers *int                `json:"rank_in_peers"` // within its 類似団体; null without one
}

type rankingJSON struct {
	Axis       axisJSON             `json:"axis"`
	Order      string               `json:"order"`
	Prefecture *hensachi.Prefecture `json:"prefecture"`
	PeerGroup  *peerGroupJSON       `json:"peer_group"` // the group of peers=, null without

	Total  int               `json:"total"`
	Offset int               `json:"offset"`
	Limit  int               `json:"limit"`
	Items  []rankingItemJSON `json:"items"`
}

// similarData is the data of GET /town/v1/municipalities/{code}/similar: the municipality and
// its nearest neighbours, at most limit. Each municipality's fifty are encoded on its first
// request, so a call joins bytes.
func (b *bodies) similarData(code string, limit int) ([]byte, error) {
	i := b.catalog.Index(code)
	if i < 0 {
		_, err := b.catalog.SimilarList(code, 0) // its not_found
		return nil, err
	}
	body := b.similar[i].Load()
	if body == nil {
		body = encodeSimilar(b.catalog, code)
		b.similar[i].Store(body)
	}
	items := body.items[:min(limit, len(body.items))]
	n := len(body.head) + 32
	for _, it := range items {
		n += len(it) + 1
	}
	d := make([]byte, 0, n)
	d = append(d, body.head...)
	d = strconv.AppendInt(d, int64(limit), 10)
	d = append(d, `,"items":[`...)
	for k, it := range items {
		if k > 0 {
			d = append(d, ',')
		}
		d = append(d, it...)
	}
	return append(d, "]}"...), nil
}

// similarBody is the encoded similar list of one municipality: the data member up to the limit's
// value, and each neighbour's object.
type similarBody struct {
	head  []byte
	items [][]byte
}

func encodeSimilar(c *town.Catalog, code string) *similarBody {
	l, _ := c.SimilarList(code, town.MaxNeighbours)
	m := l.Municipality
	head := similarHeadJSON{Code: m.Code, Name: m.Name, Prefecture: m.Prefecture, MissingAxes: make([]string, len(l.MissingAxes))}
	for k, a := range l.MissingAxes {
		head.MissingAxes[k] = hensachi.Axes[a].Key
	}
	d := dataMember(head)
	body := &similarBody{head: append(d[:len(d)-1:len(d)-1], `,"limit":`...)} // the object left open
	for _, n := range l.Neighbours {
		item := neighbourJSON{Code: n.Municipality.Code, Name: n.Municipality.Name, Prefecture: n.Municipality.Prefecture,
			Distance: hensachi.Round(n.Distance, 2), Differences: make([]differenceJSON, len(n.Differences))}
		for j, d := range n.Differences {
			item.Differences[j] = differenceJSON{Axis: hensachi.Axes[d.Axis].Key, Label: hensachi.Axes[d.Axis].Label,
				Hensachi: n.Municipality.Scores[d.Axis].Hensachi, Difference: d.Difference}
		}
		body.items = append(body.items, jsonValue(item))
	}
	return body
}

// compareData is the data of GET /town/v1/compare: the municipalities in their order, as GET
// /town/v1/municipalities/{code} gives them, and the national medians of every axis's values and
// every statistic.
func (b *bodies) compareData(cmp town.Comparison) []byte {
	objects := make([][]byte, len(cmp.Items))
	n := len(b.medians) + 32
	for k, m := range cmp.Items {
		objects[k] = b.municipalityObject(m)
		n += len(objects[k]) + 1
	}
	d := make([]byte, 0, n)
	d = append(d, `"data":{"items":[`...)
	for k, o := range objects {
		if k > 0 {
			d = append(d, ',')
		}
		d = append(d, o...)
	}
	d = append(d, `],"medians":`...)
	d = append(d, b.medians...)
	return append(d, '}')
}

// encodeMedians encodes the national medians of a comparison.
func encodeMedians(m *town.Medians) []byte {
	var scores, stats orderedObject
	for a, ax := range hensachi.Axes {
		scores = append(scores, member{ax.Key, optF(m.Scores[a])})
	}
	for s, st := range hensachi.Stats {
		stats = append(stats, member{st.Key, optF(m.Stats[s])})
	}
	return jsonValue(mediansJSON{Scores: scores, Stats: stats})
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
