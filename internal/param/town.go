package param

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/town"
)

// Prefecture reads pref, an optional 2-digit prefecture code: nil when absent, and an invalid
// parameter when malformed or unknown.
func Prefecture(c *town.Catalog, q Query) (*hensachi.Prefecture, error) {
	code, ok, err := q.One("pref")
	if err != nil || !ok {
		return nil, err
	}
	if p, ok := c.Prefecture(code); ok {
		return &p, nil
	}
	if len(code) != 2 || !Digits(code) {
		return nil, invalid("pref", fmt.Sprintf("pref must be a 2-digit prefecture code such as 13, not %q", code),
			"都道府県は 2 桁のコード（例：28）で指定してください。")
	}
	return nil, invalid("pref", fmt.Sprintf("there is no prefecture %s; codes run from 01 to 47", code),
		"都道府県コード "+code+" はありません。01 から 47 までです。")
}

// PrefectureCode is Prefecture's code, "" for the whole country.
func PrefectureCode(p *hensachi.Prefecture) string {
	if p == nil {
		return ""
	}
	return p.Code
}

// PrefectureInPath reads a prefecture code that names a page: malformed is an invalid parameter,
// unknown not found.
func PrefectureInPath(c *town.Catalog, param, code string) (hensachi.Prefecture, error) {
	if len(code) != 2 || !Digits(code) {
		return hensachi.Prefecture{}, invalid(param, fmt.Sprintf("%s must be a 2-digit prefecture code such as 13, not %q", param, Truncate(code)),
			"都道府県は 2 桁のコード（例：28）で指定してください。")
	}
	p, ok := c.Prefecture(code)
	if !ok {
		return hensachi.Prefecture{}, notFound("there is no prefecture "+code+"; codes run from 01 to 47", "都道府県コード "+code+" はありません。")
	}
	return p, nil
}

// Municipality reads a municipality code given as param: malformed is an invalid parameter, a
// well-formed code of no municipality not found.
func Municipality(c *town.Catalog, param, code string) (*hensachi.Municipality, error) {
	if err := municipalityCode(param, code); err != nil {
		return nil, err
	}
	m, ok := c.Municipality(code)
	if !ok {
		return nil, notFound("there is no municipality "+code+"; GET /town/v1/municipalities lists the codes",
			"市区町村コード "+code+" はありません。")
	}
	return m, nil
}

// Peers reads peers, a municipality code whose 類似団体 a ranking is narrowed to: a malformed code
// is an invalid parameter, an unknown one not found, and one of a municipality without a group
// (the census counted nobody there) invalid too. It returns the municipality and its group, nils
// without peers.
func Peers(c *town.Catalog, q Query) (*hensachi.Municipality, *hensachi.PeerGroup, error) {
	code, ok, err := q.One("peers")
	if err != nil || !ok {
		return nil, nil, err
	}
	m, err := Municipality(c, "peers", code)
	if err != nil {
		return nil, nil, err
	}
	g, ok := c.PeerGroupOf(m.Code)
	if !ok {
		return nil, nil, invalid("peers", fmt.Sprintf("%s %s has no 類似団体: the census gives it no figures to class it by", m.Code, m.Name),
			m.Name+"は国勢調査の数値がないため、類似団体がありません。")
	}
	return m, g, nil
}

// PeerGroup reads name, the code of a 類似団体 of the latest census (hensachi.PeerGroup.Code), nil
// when absent; an unknown code is an invalid parameter.
func PeerGroup(c *town.Catalog, q Query, name string) (*hensachi.PeerGroup, error) {
	code, ok, err := q.One(name)
	if err != nil || !ok {
		return nil, err
	}
	if g, ok := c.PeerGroup(code); ok {
		return g, nil
	}
	return nil, invalid(name, fmt.Sprintf("there is no 類似団体 %q; GET /town/v1/peer-groups lists them", Truncate(code)),
		"「"+truncateRunes(code, 40)+"」という類似団体はありません。")
}

// PeerGroupCode is Peers's group code, "" for every group.
func PeerGroupCode(g *hensachi.PeerGroup) string {
	if g == nil {
		return ""
	}
	return g.Code
}

// municipalityCode checks the form of a municipality code given as param.
func municipalityCode(param, code string) error {
	if len(code) != 5 || !Digits(code) {
		return invalid(param, fmt.Sprintf("%s must be a 5-digit municipality code such as 13101, not %q", param, Truncate(code)),
			"「"+truncateRunes(code, 20)+"」は市区町村コード（5 桁の数字、例：28214）ではありません。")
	}
	return nil
}

// Highlight reads highlight, the code of the municipality a ranking page opens at and marks (the
// link from a municipality's page of an indicator), "" when absent. A malformed code is an invalid
// parameter; a well-formed code the ranking does not hold is not refused: the page says so.
func Highlight(q Query) (string, error) {
	code, ok, err := q.One("highlight")
	if err != nil || !ok {
		return "", err
	}
	if err := municipalityCode("highlight", code); err != nil {
		return "", err
	}
	return code, nil
}

// MaxCompared is how many municipalities one comparison takes.
const MaxCompared = 10

// Compared reads codes, the municipalities of a comparison in their order: least to MaxCompared
// distinct codes, as one comma-separated list or the parameter repeated (a form's check boxes).
// The API compares two at least; the comparison page takes one, to which its reader adds others,
// so that a form sent with nothing ticked is no dead end. A malformed code comes before an
// unknown one, which is not found.
func Compared(c *town.Catalog, q Query, least int) ([]*hensachi.Municipality, error) {
	codes := q.List("codes")
	tooFew := fmt.Sprintf("比べる市区町村を %d つ以上選んでください。市区町村のページの「似ている市区町村」で、比べたいものにチェックを入れます。", least)
	switch {
	case !q.Has("codes"):
		return nil, invalid("codes", fmt.Sprintf("codes is required: %d to %d municipality codes separated by commas, such as 13101,27100", least, MaxCompared), tooFew)
	case len(codes) < least || len(codes) > MaxCompared:
		japanese := tooFew
		if len(codes) > MaxCompared {
			japanese = fmt.Sprintf("比べられるのは %d 市区町村までです。", MaxCompared)
		}
		return nil, invalid("codes", fmt.Sprintf("codes must name %d to %d municipalities, not %d", least, MaxCompared, len(codes)), japanese)
	}
	for k, code := range codes {
		if len(code) != 5 || !Digits(code) {
			return nil, invalid("codes", fmt.Sprintf("codes must hold 5-digit municipality codes such as 13101, not %q", Truncate(code)),
				"「"+truncateRunes(code, 20)+"」は市区町村コード（5 桁の数字、例：28214）ではありません。")
		}
		if slices.Contains(codes[:k], code) {
			return nil, invalid("codes", "codes names "+code+" twice", code+" が 2 回指定されています。")
		}
	}
	towns := make([]*hensachi.Municipality, len(codes))
	for k, code := range codes {
		var err error
		if towns[k], err = Municipality(c, "codes", code); err != nil {
			return nil, err
		}
	}
	return towns, nil
}

// Axis reads an axis key that names a ranking; one that is not an axis is not found.
func Axis(key string) (int, error) {
	if a := hensachi.AxisIndex(key); a >= 0 {
		return a, nil
	}
	return 0, notFound(fmt.Sprintf("there is no axis %q; axes are %s", Truncate(key), strings.Join(keys(hensachi.Axes), ", ")),
		"この軸はありません。")
}

// Order reads order, the direction of a ranking: desc (best first, the default) or asc.
func Order(q Query) (town.Order, error) {
	o, ok, err := q.One("order")
	switch {
	case err != nil:
		return "", err
	case !ok:
		return town.BestFirst, nil
	case o == string(town.BestFirst) || o == string(town.WorstFirst):
		return town.Order(o), nil
	}
	return "", invalid("order", fmt.Sprintf("order must be desc or asc, not %q", o), "order には desc か asc を指定してください。")
}

// Measure is what a measure key names: the value of one of the six axes (not its deviation score,
// which is the value's rank put on a normal curve and so hides the units), one of the sixteen
// statistics, or an indicator in one survey year.
type Measure struct {
	hensachi.Field
	Median hensachi.Optional[float64]
	Value  func(*hensachi.Municipality) hensachi.Optional[float64]
}

// MeasureOf reads the measure key given as name, def when absent: an axis, a statistic (the two
// key sets do not overlap), or an indicator key, in its latest survey year or, written
// key@year (births_per_1000@2020), in that year. Anything else is an invalid parameter.
func MeasureOf(c *town.Catalog, q Query, name, def string) (Measure, error) {
	key, ok, err := q.One(name)
	if err != nil {
		return Measure{}, err
	}
	if !ok {
		key = def
	}
	if a := hensachi.AxisIndex(key); a >= 0 {
		return Measure{Field: hensachi.Axes[a], Median: c.AxisMedian(a),
			Value: func(m *hensachi.Municipality) hensachi.Optional[float64] { return m.Scores[a].Value }}, nil
	}
	if s := hensachi.StatIndex(key); s >= 0 {
		return Measure{Field: hensachi.Stats[s], Median: c.StatMedian(s),
			Value: func(m *hensachi.Municipality) hensachi.Optional[float64] { return m.Stats[s] }}, nil
	}
	if i, k, err := datedIndicator(c, name, key); err != nil || i >= 0 {
		if err != nil {
			return Measure{}, err
		}
		return indicatorMeasure(c, i, k), nil
	}
	return Measure{}, invalid(name, fmt.Sprintf("%s must be an axis, a statistic (%s) or an indicator key (GET /town/v1/indicators lists them; key@year for a survey year), not %q", name,
		strings.Join(append(keys(hensachi.Axes), keys(hensachi.Stats)...), ", "), Truncate(key)),
		name+" には 6 軸か 16 の統計のキー（例：income、pop）、または指標のキー（例：births_per_1000、年を付けて births_per_1000@2020）を指定してください。")
}

// MeasureYearOf is MeasureOf with an indicator's survey year given apart, as yearName (the map's
// form sends m and year, the scatter's x and xyear): m=births_per_1000&year=2020 is
// m=births_per_1000@2020. A year beside a measure that is not an undated indicator is an invalid
// parameter.
func MeasureYearOf(c *town.Catalog, q Query, name, yearName, def string) (Measure, error) {
	if !q.Has(yearName) {
		return MeasureOf(c, q, name, def)
	}
	key, ok, err := q.One(name)
	if err != nil {
		return Measure{}, err
	}
	if !ok {
		key = def
	}
	i := c.IndicatorIndex(key)
	if i < 0 {
		return Measure{}, invalid(yearName, fmt.Sprintf("%s goes with an indicator key, not %q", yearName, Truncate(key)),
			yearName+" は指標のキー（年を付けないもの）と一緒に指定してください。")
	}
	k, err := indicatorYearOf(c, q, i, yearName)
	if err != nil {
		return Measure{}, err
	}
	return indicatorMeasure(c, i, k), nil
}

// datedIndicator reads key, an indicator key (its latest survey year) or key@year given as name:
// its position and the year's; i is -1 when key names no indicator, and a year the indicator does
// not have is an invalid parameter.
func datedIndicator(c *town.Catalog, name, key string) (i, k int, err error) {
	indicator, year, dated := strings.Cut(key, "@")
	if i = c.IndicatorIndex(indicator); i < 0 {
		return -1, 0, nil
	}
	ind := c.Indicator(i)
	if !dated {
		return i, len(ind.Years) - 1, nil
	}
	y, err := surveyYear(name, year)
	if err != nil {
		return 0, 0, err
	}
	if k = ind.YearIndex(y); k < 0 {
		return 0, 0, invalid(name, fmt.Sprintf("%s: indicator %s has no survey year %d; its years are %s", name, indicator, y, years(ind)),
			name+" の指標 "+indicator+" の年は "+years(ind)+" のいずれかです。")
	}
	return i, k, nil
}

// indicatorMeasure is indicator i in its k-th survey year as a measure: its key and label name the
// year, its median is that year's national one.
func indicatorMeasure(c *town.Catalog, i, k int) Measure {
	ind := c.Indicator(i)
	y := ind.Years[k]
	m := Measure{Field: ind.Field()}
	m.Key, m.Label = ind.Key+"@"+strconv.Itoa(y.Year), fmt.Sprintf("%s（%d年）", ind.Label, y.Year)
	if y.Count > 0 {
		m.Median = hensachi.Some(y.Median)
	}
	m.Value = func(mun *hensachi.Municipality) hensachi.Optional[float64] {
		row := c.Index(mun.Code)
		if row < 0 {
			return hensachi.Optional[float64]{}
		}
		return c.IndicatorPoint(i, k, row).Value
	}
	return m
}

// Indicator reads an indicator key that names a page or a call; one the catalogue does not have is
// not found.
func Indicator(c *town.Catalog, key string) (int, error) {
	if i := c.IndicatorIndex(key); i >= 0 {
		return i, nil
	}
	return 0, notFound(fmt.Sprintf("there is no indicator %q; GET /town/v1/indicators lists them", Truncate(key)), "この指標はありません。")
}

// IndicatorYear reads year, a survey year of indicator i: its position in the indicator's Years,
// the latest when absent; a year the indicator does not have is an invalid parameter.
func IndicatorYear(c *town.Catalog, q Query, i int) (int, error) {
	return indicatorYearOf(c, q, i, "year")
}

// indicatorYearOf is IndicatorYear of the parameter name.
func indicatorYearOf(c *town.Catalog, q Query, i int, name string) (int, error) {
	ind := c.Indicator(i)
	y, ok, err := q.One(name)
	switch {
	case err != nil:
		return 0, err
	case !ok:
		return len(ind.Years) - 1, nil
	}
	year, err := surveyYear(name, y)
	if err != nil {
		return 0, err
	}
	if k := ind.YearIndex(year); k >= 0 {
		return k, nil
	}
	return 0, invalid(name, fmt.Sprintf("indicator %s has no survey year %d; its years are %s", ind.Key, year, years(ind)),
		"この指標の年は "+years(ind)+" のいずれかです。")
}

// IndicatorGroup reads group, a group of the catalogue (hensachi.IndicatorGroups), "" when absent.
func IndicatorGroup(q Query) (string, error) {
	g, ok, err := q.One("group")
	if err != nil || !ok {
		return "", err
	}
	if slices.Contains(hensachi.IndicatorGroups, g) {
		return g, nil
	}
	list := strings.Join(hensachi.IndicatorGroups, ", ")
	return "", invalid("group", fmt.Sprintf("group must be one of %s, not %q", list, Truncate(g)), "group には "+list+" のいずれかを指定してください。")
}

// surveyYear reads a survey year given as name (year, or a measure's key@year): four digits as
// years are written, 2020. Every call reads a year here, so that one spelling is one answer
// everywhere: 02020 or +2020 is refused, naming name, rather than read as 2020 by one call and
// refused by another.
func surveyYear(name, s string) (int, error) {
	if len(s) != 4 || !Digits(s) || s[0] == '0' {
		return 0, invalid(name, fmt.Sprintf("%s: the survey year must be four digits such as 2020, not %q", name, Truncate(s)),
			name+" の調査年は 4 桁の数字（例：2020）で指定してください。")
	}
	y, _ := strconv.Atoi(s) // four digits always convert
	return y, nil
}

// years lists an indicator's survey years for a message.
func years(ind *hensachi.Indicator) string {
	s := make([]string, len(ind.Years))
	for k, y := range ind.Years {
		s[k] = strconv.Itoa(y.Year)
	}
	return strings.Join(s, ", ")
}

func keys(fields []hensachi.Field) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.Key
	}
	return out
}

// truncateRunes shortens a value to at most n characters for a page's message.
func truncateRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
