package serve

import (
	"math"
	"strconv"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/param"
	"github.com/hensachi/hensachi/town"
)

// The indicators' calls: the catalogue, one indicator's ranking in a survey year, and one
// municipality's standing on many indicators with their series. What does not depend on the call
// is encoded once per dataset version (indicatorBodies): every entry of the catalogue, the
// catalogue of each group, and the head of each indicator's item in a municipality's answer; a
// call writes the numbers of its municipality with strconv, which keeps the whole catalogue of one
// municipality (319 indicators, their series) within the budget of a cached call.

func (s *Server) listIndicators(c *call, _ httprouter.Params) ([]byte, error) {
	q, err := param.ParseAPI(c.r.URL.RawQuery, "group")
	if err != nil {
		return nil, err
	}
	group, err := param.IndicatorGroup(q)
	if err != nil {
		return nil, err
	}
	return c.serve(func() ([]byte, error) { return c.keptBody(indicatorBodies.Of(c.catalog).lists[group]), nil })
}

func (s *Server) getIndicatorRanking(c *call, ps httprouter.Params) ([]byte, error) {
	q, err := param.ParseAPI(c.r.URL.RawQuery, "year", "from", "to", "order", "pref", "peers", "limit", "offset")
	if err != nil {
		return nil, err
	}
	i, err := param.Indicator(c.catalog, ps.ByName("key"))
	if err != nil {
		return nil, err
	}
	ch, isChange, err := param.IndicatorChange(c.catalog, q, i)
	if err != nil {
		return nil, err
	}
	k, err := param.IndicatorYear(c.catalog, q, i)
	if err != nil {
		return nil, err
	}
	p, err := readRankingPage(c.catalog, q)
	if err != nil {
		return nil, err
	}
	if isChange {
		return c.serve(func() ([]byte, error) {
			page := c.catalog.IndicatorChangePage(i, ch.From, ch.To, p.order, p.scope, p.offset, p.limit)
			return indicatorBodies.Of(c.catalog).changeRankingData(i, page), nil
		})
	}
	return c.serve(func() ([]byte, error) {
		page := c.catalog.IndicatorRankingPage(i, k, p.order, p.scope, p.offset, p.limit)
		return indicatorBodies.Of(c.catalog).rankingData(i, page), nil
	})
}

func (s *Server) getMunicipalityIndicators(c *call, ps httprouter.Params) ([]byte, error) {
	q, err := param.ParseAPI(c.r.URL.RawQuery, "keys", "group")
	if err != nil {
		return nil, err
	}
	m, err := param.Municipality(c.catalog, "code", ps.ByName("code"))
	if err != nil {
		return nil, err
	}
	idx, err := param.IndicatorsOfMunicipality(c.catalog, q)
	if err != nil {
		return nil, err
	}
	return c.serve(func() ([]byte, error) {
		return indicatorBodies.Of(c.catalog).municipalityData(c.catalog.Index(m.Code), idx), nil
	})
}

// indicatorJSONs are the encoded parts of one catalog's indicator answers.
type indicatorJSONs struct {
	catalog *town.Catalog
	// entries[i] is indicator i's entry as a JSON object, its years and latest summary included.
	entries [][]byte
	// lists are the data of GET /town/v1/indicators by group, "" for all.
	lists map[string][]byte
	// heads[i] opens indicator i's item in a municipality's answer, up to its year's value;
	// points[i][k] opens the point of its k-th year in the series, `{"year":2020`.
	heads  [][]byte
	points [][][]byte
}

var indicatorBodies = town.NewMemo(func(c *town.Catalog) *indicatorJSONs {
	all := c.Indicators("")
	b := &indicatorJSONs{catalog: c, entries: make([][]byte, len(all)), heads: make([][]byte, len(all)),
		points: make([][][]byte, len(all)), lists: map[string][]byte{}}
	for i, ind := range all {
		for _, y := range ind.Years {
			b.points[i] = append(b.points[i], []byte(`{"year":`+strconv.Itoa(y.Year)))
		}
		b.entries[i] = jsonValue(newIndicatorJSON(ind))
		head := jsonValue(indicatorHeadJSON{Key: ind.Key, Label: ind.Label, Unit: ind.Unit, Group: ind.Group, Direction: ind.Direction, Kind: ind.Kind})
		b.heads[i] = append(head[:len(head)-1:len(head)-1], `,"year":`...)
	}
	for _, group := range append([]string{""}, hensachi.IndicatorGroups...) {
		idx := c.IndicatorGroupIndexes(group)
		d := []byte(`"data":{"method":`)
		d = append(d, jsonValue(c.IndicatorMethod())...)
		d = append(d, `,"group":`...)
		if group == "" {
			d = append(d, "null"...)
		} else {
			d = append(d, jsonValue(group)...)
		}
		d = append(d, `,"total":`...)
		d = strconv.AppendInt(d, int64(len(idx)), 10)
		d = append(d, `,"items":[`...)
		for k, i := range idx {
			if k > 0 {
				d = append(d, ',')
			}
			d = append(d, b.entries[i]...)
		}
		b.lists[group] = append(d, "]}"...)
	}
	return b
})

// indicatorJSON is a catalogue entry as the API gives it.
type indicatorJSON struct {
	Key               string           `json:"key"`
	Label             string           `json:"label"`
	Unit              string           `json:"unit"`
	Group             string           `json:"group"`
	Description       string           `json:"description"`
	Source            string           `json:"source"`
	Direction         string           `json:"direction"`
	DirectionNote     string           `json:"direction_note"`
	Kind              string           `json:"kind"`
	Formula           hensachi.Formula `json:"formula"`
	DenominatorSource *string          `json:"denominator_source"`
	Decimals          int              `json:"decimals"`
	Breaks            []int            `json:"breaks"`
	Note              string           `json:"note"`
	// Change is how a change between two years is measured, null where the indicator has none.
	Change *string             `json:"change"`
	Years  []indicatorYearJSON `json:"years"`
	// Latest is the summary of the latest survey year, null for an indicator without a year.
	Latest *indicatorYearJSON `json:"latest"`
}

type indicatorYearJSON struct {
	Year   int      `json:"year"`
	Count  int      `json:"count"`
	Median *float64 `json:"median"`
	Mean   *float64 `json:"mean"`
	Min    *float64 `json:"min"`
	Max    *float64 `json:"max"`
}

func newIndicatorJSON(ind *hensachi.Indicator) indicatorJSON {
	out := indicatorJSON{Key: ind.Key, Label: ind.Label, Unit: ind.Unit, Group: ind.Group, Description: ind.Description,
		Source: ind.Source, Direction: ind.Direction, DirectionNote: ind.DirectionNote, Kind: ind.Kind, Formula: ind.Formula,
		Decimals: ind.Decimals, Breaks: ind.Breaks, Note: ind.Note, Years: make([]indicatorYearJSON, len(ind.Years))}
	if ind.DenominatorSource != "" {
		out.DenominatorSource = &ind.DenominatorSource
	}
	if ind.Change != "" {
		out.Change = &ind.Change
	}
	if out.Breaks == nil {
		out.Breaks = []int{}
	}
	for k, y := range ind.Years {
		out.Years[k] = indicatorYearJSON{Year: y.Year, Count: y.Count}
		if y.Count > 0 { // a year nobody has a value in has no summary
			out.Years[k].Median, out.Years[k].Mean, out.Years[k].Min, out.Years[k].Max = &y.Median, &y.Mean, &y.Min, &y.Max
		}
	}
	if n := len(out.Years); n > 0 {
		out.Latest = &out.Years[n-1]
	}
	return out
}

type indicatorHeadJSON struct {
	Key       string `json:"key"`
	Label     string `json:"label"`
	Unit      string `json:"unit"`
	Group     string `json:"group"`
	Direction string `json:"direction"`
	Kind      string `json:"kind"`
}

type indicatorRankingItemJSON struct {
	Rank        int                 `json:"rank"`
	Code        string              `json:"code"`
	Name        string              `json:"name"`
	Prefecture  hensachi.Prefecture `json:"prefecture"`
	Hensachi    float64             `json:"hensachi"`
	Value       float64             `json:"value"`
	Year        int                 `json:"year"`
	RankInPeers *int                `json:"rank_in_peers"`
}

type indicatorRankingJSON struct {
	Indicator  rawJSON                    `json:"indicator"`
	Year       int                        `json:"year"`
	Order      string                     `json:"order"`
	Prefecture *hensachi.Prefecture       `json:"prefecture"`
	PeerGroup  *peerGroupJSON             `json:"peer_group"`
	Total      int                        `json:"total"`
	Offset     int                        `json:"offset"`
	Limit      int                        `json:"limit"`
	Items      []indicatorRankingItemJSON `json:"items"`
}

// rawJSON is JSON encoded before, written as it is.
type rawJSON []byte

func (r rawJSON) MarshalJSON() ([]byte, error) { return r, nil }

// rankingData is the data of GET /town/v1/indicators/{key}: indicator i's entry and a page of
// its ranking, the spec's ranking items with their survey year and rank within their 類似団体.
func (b *indicatorJSONs) rankingData(i int, p town.IndicatorRankingPage) []byte {
	out := indicatorRankingJSON{Indicator: b.entries[i], Year: p.Year, Order: string(p.Order), Prefecture: p.Prefecture,
		PeerGroup: newPeerGroupJSON(p.PeerGroup), Total: p.Total, Offset: p.Offset, Limit: p.Limit, Items: make([]indicatorRankingItemJSON, len(p.Items))}
	for k, it := range p.Items {
		m := it.Municipality
		out.Items[k] = indicatorRankingItemJSON{Rank: it.Rank, Code: m.Code, Name: m.Name, Prefecture: m.Prefecture,
			Hensachi: it.Hensachi, Value: it.Value.V, Year: it.Year, RankInPeers: rankIf(it.RankInPeers, it.RankInPeers > 0)}
	}
	return dataMember(out)
}

type indicatorChangeItemJSON struct {
	Rank        int                 `json:"rank"`
	Code        string              `json:"code"`
	Name        string              `json:"name"`
	Prefecture  hensachi.Prefecture `json:"prefecture"`
	Hensachi    float64             `json:"hensachi"`
	Change      float64             `json:"change"`
	FromYear    int                 `json:"from_year"`
	FromValue   float64             `json:"from_value"`
	ToYear      int                 `json:"to_year"`
	ToValue     float64             `json:"to_value"`
	RankInPeers *int                `json:"rank_in_peers"`
}

// changeJSON says what a change's ranking compares and how: the two survey years, the measure
// (hensachi.ChangeDifference or ChangePercent) and its unit.
type changeJSON struct {
	From    int    `json:"from"`
	To      int    `json:"to"`
	Measure string `json:"measure"`
	Unit    string `json:"unit"`
}

type indicatorChangeRankingJSON struct {
	Indicator  rawJSON                   `json:"indicator"`
	Change     changeJSON                `json:"change"`
	Order      string                    `json:"order"`
	Prefecture *hensachi.Prefecture      `json:"prefecture"`
	PeerGroup  *peerGroupJSON            `json:"peer_group"`
	Total      int                       `json:"total"`
	Offset     int                       `json:"offset"`
	Limit      int                       `json:"limit"`
	Items      []indicatorChangeItemJSON `json:"items"`
}

// changeRankingData is the data of GET /town/v1/indicators/{key}?from=&to=: indicator i's entry,
// what the change compares, and a page of its ranking, each item with its change, the two values it
// is computed from and its rank within its 類似団体.
func (b *indicatorJSONs) changeRankingData(i int, p town.IndicatorChangePage) []byte {
	ch := p.Change
	out := indicatorChangeRankingJSON{Indicator: b.entries[i],
		Change: changeJSON{From: ch.FromYear(), To: ch.ToYear(), Measure: ch.Indicator.Change, Unit: ch.Unit()},
		Order:  string(p.Order), Prefecture: p.Prefecture, PeerGroup: newPeerGroupJSON(p.PeerGroup), Total: p.Total, Offset: p.Offset, Limit: p.Limit,
		Items: make([]indicatorChangeItemJSON, len(p.Items))}
	for k, it := range p.Items {
		m := it.Municipality
		out.Items[k] = indicatorChangeItemJSON{Rank: it.Rank, Code: m.Code, Name: m.Name, Prefecture: m.Prefecture, Hensachi: it.Hensachi,
			Change: it.Change, FromYear: it.From.Year, FromValue: it.From.Value.V, ToYear: it.To.Year, ToValue: it.To.Value.V,
			RankInPeers: rankIf(it.RankInPeers, it.RankInPeers > 0)}
	}
	return dataMember(out)
}

// municipalityData is the data of GET /town/v1/municipalities/{code}/indicators for row m and
// the indicators idx: the municipality and, per indicator, its latest year's standing and series.
func (b *indicatorJSONs) municipalityData(m int, idx []int) []byte {
	c := b.catalog
	row := c.Row(m)
	n := 128
	for _, i := range idx {
		n += 128 + len(b.heads[i]) + 64*len(b.points[i])
	}
	d := make([]byte, 0, n)
	d = append(d, `"data":{"code":"`...)
	d = append(d, row.Code...)
	d = append(d, `","name":`...)
	d = append(d, jsonValue(row.Name)...)
	d = append(d, `,"prefecture":`...)
	d = append(d, jsonValue(row.Prefecture)...)
	d = append(d, `,"total":`...)
	d = strconv.AppendInt(d, int64(len(idx)), 10)
	d = append(d, `,"items":[`...)
	for k, i := range idx {
		if k > 0 {
			d = append(d, ',')
		}
		ind, points := c.Indicator(i), b.points[i]
		last := len(points) - 1
		d = append(d, b.heads[i]...)
		d = append(d, points[last][len(`{"year":`):]...)
		d = appendStanding(d, c.IndicatorPoint(i, last, m), ind)
		d = append(d, `,"rank_total":`...)
		d = strconv.AppendInt(d, int64(ind.Years[last].Count), 10)
		d = append(d, `,"series":[`...)
		for y, open := range points {
			if y > 0 {
				d = append(d, ',')
			}
			d = append(d, open...)
			d = appendStanding(d, c.IndicatorPoint(i, y, m), ind)
			d = append(d, '}')
		}
		d = append(d, "]}"...)
	}
	return append(d, "]}"...)
}

// appendStanding appends `,"value":…,"rank":…,"hensachi":…` of a point of indicator ind, nulls
// without a value.
func appendStanding(d []byte, p town.IndicatorPoint, ind *hensachi.Indicator) []byte {
	if !p.Value.Valid {
		return append(d, `,"value":null,"rank":null,"hensachi":null`...)
	}
	d = append(d, `,"value":`...)
	d = appendDecimal(d, p.Value.V, ind.Decimals)
	d = append(d, `,"rank":`...)
	d = strconv.AppendInt(d, int64(p.Rank), 10)
	d = append(d, `,"hensachi":`...)
	return appendDecimal(d, p.Hensachi, 1)
}

// pow10 are the scales of the decimals a value is rounded to.
var pow10 = [...]float64{1, 10, 100, 1e3, 1e4, 1e5, 1e6}

// appendDecimal appends v as encoding/json writes it, the shortest decimal that reads back as v,
// for a v rounded to decimals places: then that decimal is v's digits scaled by 10^decimals
// without its trailing zeros, written with integer arithmetic, which is several times faster than
// the general algorithm (the whole catalogue of a municipality is some 4,000 numbers). Any other
// v, and one too large for the scaled digits to be exact, takes strconv's way.
func appendDecimal(d []byte, v float64, decimals int) []byte {
	if decimals < 0 || decimals >= len(pow10) {
		return strconv.AppendFloat(d, v, 'f', -1, 64)
	}
	scaled := math.Round(v * pow10[decimals])
	if math.Abs(scaled) >= 1<<53 || scaled/pow10[decimals] != v {
		return strconv.AppendFloat(d, v, 'f', -1, 64)
	}
	n := int64(scaled)
	if n < 0 {
		d = append(d, '-')
		n = -n
	}
	for decimals > 0 && n%10 == 0 && n != 0 {
		n /= 10
		decimals--
	}
	if n == 0 {
		if math.Signbit(v) {
			return append(d, "-0"...)
		}
		return append(d, '0')
	}
	start := len(d)
	d = strconv.AppendInt(d, n, 10)
	if decimals == 0 {
		return d
	}
	digits := len(d) - start
	if digits <= decimals { // 0.0…: pad with zeros after the point
		pad := decimals - digits + 2 // "0." and the zeros
		d = append(d, make([]byte, pad)...)
		copy(d[start+pad:], d[start:start+digits])
		d[start], d[start+1] = '0', '.'
		for k := start + 2; k < start+pad; k++ {
			d[k] = '0'
		}
		return d
	}
	point := len(d) - decimals
	d = append(d, 0)
	copy(d[point+1:], d[point:])
	d[point] = '.'
	return d
}

// similarOnData is the data of GET /town/v1/municipalities/{code}/similar?measures=: the
// municipality, the measures (keys) and those it has no value on, and its nearest neighbours on
// them.
func similarOnData(c *town.Catalog, m *hensachi.Municipality, dims []town.Dimension, keys []string, limit int) []byte {
	near, missing := c.SimilarOn(c.Index(m.Code), dims, limit)
	out := similarOnJSON{Code: m.Code, Name: m.Name, Prefecture: m.Prefecture, Measures: keys, MissingMeasures: make([]string, len(missing)),
		Limit: limit, Items: make([]measuredNeighbourJSON, len(near))}
	for k, d := range missing {
		out.MissingMeasures[k] = keys[d]
	}
	for k, n := range near {
		r := c.Row(n.Row)
		item := measuredNeighbourJSON{Code: r.Code, Name: r.Name, Prefecture: r.Prefecture, Distance: hensachi.Round(n.Distance, 2),
			Differences: make([]measureDifferenceJSON, len(n.Differences))}
		for j, d := range n.Differences {
			item.Differences[j] = measureDifferenceJSON{Measure: keys[d.Dimension], Label: dimensionLabel(c, dims[d.Dimension]),
				Hensachi: d.Hensachi, Difference: d.Difference}
		}
		out.Items[k] = item
	}
	return dataMember(out)
}

// dimensionLabel names a dimension as the pages do: an axis's label, an indicator's with its year.
func dimensionLabel(c *town.Catalog, d town.Dimension) string {
	if d.Indicator < 0 {
		return hensachi.Axes[d.Axis].Label
	}
	ind := c.Indicator(d.Indicator)
	return ind.Label + "（" + strconv.Itoa(ind.Years[d.Year].Year) + "年）"
}

type similarOnJSON struct {
	Code            string                  `json:"code"`
	Name            string                  `json:"name"`
	Prefecture      hensachi.Prefecture     `json:"prefecture"`
	Measures        []string                `json:"measures"`
	MissingMeasures []string                `json:"missing_measures"`
	Limit           int                     `json:"limit"`
	Items           []measuredNeighbourJSON `json:"items"`
}

type measuredNeighbourJSON struct {
	Code        string                  `json:"code"`
	Name        string                  `json:"name"`
	Prefecture  hensachi.Prefecture     `json:"prefecture"`
	Distance    float64                 `json:"distance"`
	Differences []measureDifferenceJSON `json:"differences"`
}

type measureDifferenceJSON struct {
	Measure    string  `json:"measure"`
	Label      string  `json:"label"`
	Hensachi   float64 `json:"hensachi"` // the neighbour's
	Difference float64 `json:"difference"`
}

// appendComparedIndicators closes a comparison's data, open (its final brace left off), with
// `"indicators":[…]`: per indicator (dims, named keys) in its survey year, its national median
// and each compared municipality's standing in their order, with its series of every survey year.
func appendComparedIndicators(d []byte, c *town.Catalog, towns []*hensachi.Municipality, dims []town.Dimension, keys []string) []byte {
	out := make([]comparedIndicatorJSON, len(dims))
	for k, dim := range dims {
		ind := c.Indicator(dim.Indicator)
		y := ind.Years[dim.Year]
		ci := comparedIndicatorJSON{Key: keys[k], Label: ind.Label, Unit: ind.Unit, Direction: ind.Direction, Year: y.Year,
			Breaks: ind.Breaks, Items: make([]comparedStandingJSON, len(towns))}
		if ci.Breaks == nil {
			ci.Breaks = []int{}
		}
		if y.Count > 0 {
			ci.Median = &y.Median
		}
		for j, m := range towns {
			row := c.Index(m.Code)
			series := make([]seriesPointJSON, len(ind.Years))
			for yk := range ind.Years {
				series[yk] = newSeriesPointJSON(c.IndicatorPoint(dim.Indicator, yk, row))
			}
			p := series[dim.Year]
			ci.Items[j] = comparedStandingJSON{Code: m.Code, Value: p.Value, Rank: p.Rank, Hensachi: p.Hensachi, Series: series}
		}
		out[k] = ci
	}
	d = append(d, `,"indicators":`...)
	d = append(d, jsonValue(out)...)
	return append(d, '}')
}

type comparedIndicatorJSON struct {
	Key       string                 `json:"key"`
	Label     string                 `json:"label"`
	Unit      string                 `json:"unit"`
	Direction string                 `json:"direction"`
	Year      int                    `json:"year"`
	Median    *float64               `json:"median"`
	Breaks    []int                  `json:"breaks"`
	Items     []comparedStandingJSON `json:"items"`
}

type comparedStandingJSON struct {
	Code     string            `json:"code"`
	Value    *float64          `json:"value"`
	Rank     *int              `json:"rank"`
	Hensachi *float64          `json:"hensachi"`
	Series   []seriesPointJSON `json:"series"` // every survey year, oldest first
}

// seriesPointJSON is a municipality's standing in one survey year, as the series of GET
// /town/v1/municipalities/{code}/indicators writes it: nulls without a value.
type seriesPointJSON struct {
	Year     int      `json:"year"`
	Value    *float64 `json:"value"`
	Rank     *int     `json:"rank"`
	Hensachi *float64 `json:"hensachi"`
}

func newSeriesPointJSON(p town.IndicatorPoint) seriesPointJSON {
	out := seriesPointJSON{Year: p.Year}
	if p.Value.Valid {
		out.Value, out.Rank, out.Hensachi = &p.Value.V, &p.Rank, &p.Hensachi
	}
	return out
}
