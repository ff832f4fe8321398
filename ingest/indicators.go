package ingest

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/hensachi/hensachi"
)

// The indicator catalogue is declared in indicators.json, one entry per indicator (hensachi.Indicator
// without its years, which the ingest adds). An entry's formula names its inputs by item:
//
//   - an SSDSE-A item code, a capital letter and four to six digits (A4101, J250302): the column of
//     that code in every edition of SSDSE-A that has it;
//   - "<source>.<item>" for another source: finance.<header of 全市町村の主要財政指標> (財政力指数,
//     経常収支比率, 実質公債費比率, 将来負担比率, ラスパイレス指数), one value per fiscal year and file;
//     portal.C120110 and portal.C120120 (taxable income in thousand yen and taxpayers, e-Stat SSDS,
//     2010–2023 from the portal's TSDATA); furusato.receipts_thousand_yen, furusato.receipts_yen and
//     furusato.receipts_count (hometown-tax receipts in thousand yen as published, rounded where the
//     source is in yen; the same in yen, exact from the detail file; donations; per fiscal year, from
//     the detail file where it has the year, else from the history file).
//
// The year rule: an indicator's survey years are those of its counted items (items, or numerator
// for a ratio) and of the items it subtracts (minus); items summed or subtracted together must
// share the survey year within every SSDSE-A edition. A
// denominator takes its items' values for the latest survey year not after the indicator's year,
// or, when there is none, the earliest year after it. An SSDSE-A item's value for a year comes from
// the newest edition that holds the item for that year. indicatorMethod says the same to readers.

//go:embed indicators.json
var indicatorsJSON []byte

// indicatorMethod explains the indicators to readers of the catalogue.
const indicatorMethod = "各指標は式（formula）の項目から計算する。項目は SSDSE-A の項目コード（例：A4101）か、他の出典の「出典.項目」" +
	"（finance.財政力指数 などの主要財政指標、portal.C120110・portal.C120120 の課税対象所得と納税義務者数、furusato.receipts_thousand_yen・" +
	"furusato.receipts_yen・furusato.receipts_count のふるさと納税受入額（千円、円）と受入件数）。値は items の合計、または numerator の合計 ÷ denominator の合計で" +
	"（minus があればその合計を items または numerator の合計から引く。例：自然増減は出生数 − 死亡数）、" +
	"それぞれ scale を掛ける。指標の年は items（比率では numerator）の調査年とし、合計する項目は同じ版で同じ調査年である。" +
	"分母には、その年以前で最も新しい調査年の値を用い（例：2023年の出生数には2020年国勢調査の人口）、それがなければその年より後で最も古い調査年の値を用いる。" +
	"同じ項目・同じ調査年を複数の版の SSDSE-A が収録するときは最も新しい版の値を用いる。値は指標ごとの小数桁に四捨五入（0 から遠い方へ）してから順位を付け、" +
	"分母が 0 または欠けている市区町村は値なし（null）とする。丸めは10進の正確な値で行う（28.75 は 28.8）。" +
	"順位と偏差値は年ごとに各軸と同じ方法で、良い方から付ける：direction が lower_better（値が小さいほど良い）の指標は値の小さい順、" +
	"higher_better（大きいほど良い）と neutral（良し悪しの向きを決めない。数はすべてこれ）は値の大きい順の全国順位（同値は同順位）で、" +
	"1位と 50 を超える偏差値は向きのある指標では良い方、neutral では値の大きい方を示す。その平均順位 r̄ から p = (n − r̄ + 0.5) / n、偏差値 = 50 + 10 × Φ⁻¹(p)、小数第1位に丸める。"

// indicatorsFile names the manifest in errors.
const indicatorsFile = "ingest/indicators.json"

// Namespaces of the items that do not come from SSDSE-A, and the items each provides.
const (
	financeItems  = "finance"
	portalItems   = "portal"
	furusatoItems = "furusato"

	furusatoReceiptsItem    = "receipts_thousand_yen"
	furusatoReceiptsYenItem = "receipts_yen"
	furusatoCountItem       = "receipts_count"
)

// financeColumns are the figures of 全市町村の主要財政指標, by their header.
var financeColumns = []string{financeFiscal, "経常収支比率", "実質公債費比率", "将来負担比率", "ラスパイレス指数"}

var sourceItems = map[string][]string{
	financeItems:  financeColumns,
	portalItems:   {PortalTaxableIncome, PortalTaxpayers},
	furusatoItems: {furusatoReceiptsItem, furusatoReceiptsYenItem, furusatoCountItem},
}

var (
	indicatorKey = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	ssdseItem    = regexp.MustCompile(`^[A-Z][0-9]{4,6}$`)
)

// ManifestError is a fault of the indicator manifest: the entry (its key, or its position when it
// has no usable key) and the field at fault.
type ManifestError struct {
	Entry string
	Field string
	Err   error
}

func (e *ManifestError) Error() string {
	if e.Entry == "" {
		return fmt.Sprintf("%s: %v", indicatorsFile, e.Err)
	}
	return fmt.Sprintf("%s: entry %s field %s: %v", indicatorsFile, e.Entry, e.Field, e.Err)
}

func (e *ManifestError) Unwrap() error { return e.Err }

func manifestErr(entry, field, format string, args ...any) error {
	return &ManifestError{Entry: entry, Field: field, Err: fmt.Errorf(format, args...)}
}

// item is one input of a formula: an SSDSE-A item code (source "") or another source's item.
type item struct {
	source, name string
}

func (it item) String() string {
	if it.source == "" {
		return it.name
	}
	return it.source + "." + it.name
}

// parseItem reads an item of a formula by the grammar above.
func parseItem(s string) (item, error) {
	if ssdseItem.MatchString(s) {
		return item{name: s}, nil
	}
	source, name, ok := strings.Cut(s, ".")
	if !ok {
		return item{}, fmt.Errorf("%q is neither an SSDSE-A item code (a capital letter and 4 to 6 digits) nor <source>.<item>", s)
	}
	known, ok := sourceItems[source]
	if !ok {
		return item{}, fmt.Errorf("%q names no source with items (%s)", s, strings.Join(slices.Sorted(maps.Keys(sourceItems)), ", "))
	}
	if !slices.Contains(known, name) {
		return item{}, fmt.Errorf("%q: %s has no item %q (it has %s)", s, source, name, strings.Join(known, ", "))
	}
	return item{source: source, name: name}, nil
}

// LoadIndicators returns the indicator manifest compiled into the binary, checked.
func LoadIndicators() ([]hensachi.Indicator, error) { return parseIndicators(indicatorsJSON) }

// parseIndicators reads and checks an indicator manifest: unknown fields, keys that are not unique
// snake_case, a group not in hensachi.IndicatorGroups, a formula that is neither items nor a ratio,
// an item outside the grammar, and years already filled in are errors naming the entry and field.
// Whether an SSDSE-A code exists is known only once the editions are read (see newIndicatorPlan).
func parseIndicators(data []byte) ([]hensachi.Indicator, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var doc struct {
		Indicators []hensachi.Indicator `json:"indicators"`
		// ExcludedItems are the SSDSE-A items the catalogue has no indicator of, each with its
		// reason, for readers; indicators_test.go holds them against the editions.
		ExcludedItems []struct {
			Item   string `json:"item"`
			SameAs string `json:"same_as"`
			Reason string `json:"reason"`
		} `json:"excluded_items"`
	}
	if err := dec.Decode(&doc); err != nil {
		return nil, &ManifestError{Err: fmt.Errorf("not the expected JSON document: %w", err)}
	}
	if len(doc.Indicators) == 0 {
		return nil, &ManifestError{Err: errors.New("no indicators")}
	}
	seen := map[string]bool{}
	for i, ind := range doc.Indicators {
		entry := ind.Key
		if !indicatorKey.MatchString(ind.Key) {
			entry = fmt.Sprintf("#%d", i+1)
			return nil, manifestErr(entry, "key", "%q is not a snake_case key (lower-case letters and digits joined by _)", ind.Key)
		}
		if seen[ind.Key] {
			return nil, manifestErr(entry, "key", "the key is used by an earlier entry")
		}
		seen[ind.Key] = true
		if err := checkIndicator(ind); err != nil {
			return nil, err
		}
	}
	return doc.Indicators, nil
}

// checkIndicator checks one entry's fields other than its key.
func checkIndicator(ind hensachi.Indicator) error {
	key := ind.Key
	for _, f := range []struct{ name, value string }{
		{"label", ind.Label}, {"description", ind.Description}, {"source", ind.Source},
	} {
		if strings.TrimSpace(f.value) == "" {
			return manifestErr(key, f.name, "empty")
		}
	}
	if !slices.Contains(hensachi.IndicatorDirections, ind.Direction) {
		return manifestErr(key, "direction", "%q is not one of %s", ind.Direction, strings.Join(hensachi.IndicatorDirections, ", "))
	}
	if !slices.Contains(hensachi.IndicatorKinds, ind.Kind) {
		return manifestErr(key, "kind", "%q is not one of %s", ind.Kind, strings.Join(hensachi.IndicatorKinds, ", "))
	}
	// a count measures a municipality's size, which is neither good nor bad
	if ind.Kind == hensachi.KindCount && ind.Direction != hensachi.DirectionNeutral {
		return manifestErr(key, "direction", "a count is %s, not %s", hensachi.DirectionNeutral, ind.Direction)
	}
	if ind.DirectionNote != "" && strings.TrimSpace(ind.DirectionNote) == "" {
		return manifestErr(key, "direction_note", "blank")
	}
	if !slices.Contains(hensachi.IndicatorGroups, ind.Group) {
		return manifestErr(key, "group", "%q is not one of %s", ind.Group, strings.Join(hensachi.IndicatorGroups, ", "))
	}
	if ind.Decimals < 0 || ind.Decimals > 6 {
		return manifestErr(key, "decimals", "%d is not from 0 to 6", ind.Decimals)
	}
	if len(ind.Years) > 0 {
		return manifestErr(key, "years", "the ingest adds the years; the manifest must not give them")
	}
	if err := checkFormula(key, ind.Formula); err != nil {
		return err
	}
	for _, y := range []struct {
		name string
		year int
	}{{"from_year", ind.FromYear}, {"to_year", ind.ToYear}} {
		if y.year != 0 && (y.year < 1900 || y.year > 2100) {
			return manifestErr(key, y.name, "%d is not a survey year", y.year)
		}
	}
	if ind.FromYear != 0 && ind.ToYear != 0 && ind.FromYear > ind.ToYear {
		return manifestErr(key, "to_year", "%d is before from_year %d", ind.ToYear, ind.FromYear)
	}
	for i, b := range ind.Breaks {
		if i > 0 && b <= ind.Breaks[i-1] {
			return manifestErr(key, "breaks", "years must ascend without repeats")
		}
		if !inYears(ind, b) {
			return manifestErr(key, "breaks", "%d is outside from_year–to_year", b)
		}
	}
	if len(ind.Breaks) > 0 && strings.TrimSpace(ind.Note) == "" {
		return manifestErr(key, "note", "a break in the series must be explained in note")
	}
	return nil
}

func checkFormula(key string, f hensachi.Formula) error {
	switch {
	case len(f.Items) > 0 && (len(f.Numerator) > 0 || len(f.Denominator) > 0):
		return manifestErr(key, "formula", "give either items or numerator and denominator, not both")
	case len(f.Items) == 0 && len(f.Numerator) == 0:
		return manifestErr(key, "formula", "give items, or numerator and denominator")
	case len(f.Numerator) > 0 && len(f.Denominator) == 0:
		return manifestErr(key, "formula.denominator", "a ratio needs a denominator")
	case f.Scale < 0 || math.IsInf(f.Scale, 0) || math.IsNaN(f.Scale):
		return manifestErr(key, "formula.scale", "%v is not a positive number", f.Scale)
	}
	for _, part := range []struct {
		name  string
		items []string
	}{{"items", f.Items}, {"numerator", f.Numerator}, {"minus", f.Minus}, {"denominator", f.Denominator}} {
		for i, s := range part.items {
			field := fmt.Sprintf("formula.%s[%d]", part.name, i)
			if _, err := parseItem(s); err != nil {
				return &ManifestError{Entry: key, Field: field, Err: err}
			}
			if slices.Contains(part.items[:i], s) {
				return manifestErr(key, field, "%s is summed twice", s)
			}
		}
	}
	return nil
}

// inYears reports whether a survey year is within the entry's from_year–to_year.
func inYears(ind hensachi.Indicator, year int) bool {
	return (ind.FromYear == 0 || year >= ind.FromYear) && (ind.ToYear == 0 || year <= ind.ToYear)
}
