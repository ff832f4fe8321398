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
//     the detail file where it has the year, else from the history file); jumin.population,
//     jumin.households (住民基本台帳 stocks of 1 January: year Y is the release of 1 January Y),
//     jumin.births, jumin.deaths, jumin.moves_in, jumin.moves_out (flows of calendar year Y, in the
//     release of 1 January Y+1).
//
// The year rule: an indicator's survey years are those of its counted items (items, or numerator
// for a ratio) and of the items it subtracts (minus); items summed or subtracted together must
// share the survey year within every SSDSE-A edition. A change over N years (change_over) has the
// years Y whose year Y−N its items have too, and divides by the items of Y−N. A ratio's denominator
// year is given by its denominator_source (hensachi.DenominatorSources): same_year and
// jumin_january take the numerator's year Y, jumin_next_january Y+1, census and census_japanese
// the census year nearest Y that the items have (ties to the earlier), area the latest year not
// after Y or else the earliest; a year whose denominator year the items do not have is left out.
// Census and census_japanese rates are null for a municipality whose census population of that
// census year is under half its 住民基本台帳 population of the next 1 January (evacuation). An
// SSDSE-A item's value for a year comes from the newest edition that holds the item for that year.
// indicatorMethod says the same to readers.

//go:embed indicators.json
var indicatorsJSON []byte

// indicatorMethod explains the indicators to readers of the catalogue.
const indicatorMethod = "各指標は式（formula）の項目から計算する。項目は SSDSE-A の項目コード（例：A4101）か、他の出典の「出典.項目」" +
	"（finance.財政力指数 などの主要財政指標、portal.C120110・portal.C120120 の課税対象所得と納税義務者数、furusato.receipts_thousand_yen・" +
	"furusato.receipts_yen・furusato.receipts_count のふるさと納税受入額（千円、円）と受入件数、" +
	"jumin.population・jumin.households の住民基本台帳人口・世帯数（Y年1月1日現在をY年とする）、jumin.births・jumin.deaths・jumin.moves_in・" +
	"jumin.moves_out の出生者数・死亡者数・転入者数・転出者数（Y年1月1日から12月31日までをY年とし、Y+1年1月1日現在の公表に載る））。" +
	"値は items の合計、または numerator の合計 ÷ denominator の合計で" +
	"（minus があればその合計を items または numerator の合計から引く。例：自然増減は出生数 − 死亡数）、" +
	"それぞれ scale を掛ける。change_over が N のときは items の合計の N 年前からの変化率（（Y年の値 − (Y−N)年の値） ÷ (Y−N)年の値 × scale）で、" +
	"両方の年に値がある年だけを出す。指標の年は items（比率では numerator）の調査年とし、合計する項目は同じ版で同じ調査年である。" +
	"分母の年は指標ごとの denominator_source で決める：same_year は分子と同じ年（同じ調査、または同じ年度）、" +
	"census は分子の年に最も近い国勢調査年（等距離なら前の調査。例：2017年の値には2015年、2018年の値には2020年、2023年の値には2020年の国勢調査）の人口、" +
	"census_japanese は同じく国勢調査の日本人人口（人口動態統計・住民基本台帳人口移動報告の日本人の件数に対応）、" +
	"jumin_next_january はY+1年1月1日現在の住民基本台帳人口（Y年度の金額、Y年中の件数、Y年中に数えた施設・人数などをその年の終わりの登録人口で割る）、" +
	"jumin_january はY年1月1日現在の住民基本台帳の値（その日の値どうし）、area はその年以前で最も新しい面積調査の値（なければ最も古い値）。" +
	"分母の年の値がない年は出さない（例：住民基本台帳人口は2014年1月1日からなので、年度の金額の1人当たりは2013年度から）。" +
	"国勢調査人口がその翌年1月1日の住民基本台帳人口の半分未満の市町村（原子力災害の避難指示を受けた福島県の町村）は、その国勢調査人口または日本人人口を分母とする値を出さない。" +
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
	juminItems    = "jumin"

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
	juminItems:    juminFigures,
}

var (
	indicatorKey = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	ssdseItem    = regexp.MustCompile(`^[A-Z][0-9]{4,6}$`)
	// censusResidents are SSDSE-A's census counts of residents: population with its sexes,
	// nationality and age groups (A1…), households (A7…) and household types (A8…).
	censusResidents = regexp.MustCompile(`^A[178][0-9]{3,5}$`)
	// areaItems are SSDSE-A's areas (B1101 total, B1103 habitable).
	areaItems = regexp.MustCompile(`^B11[0-9]{2}$`)
)

// censusJapanese are the census's Japanese population and its sexes: the denominators of counts
// of Japanese nationals.
var censusJapanese = []string{"A1102", "A110201", "A110202"}

// maxChangeOver bounds change_over: the sources span a few decades at most.
const maxChangeOver = 50

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
	if err := checkChange(ind); err != nil {
		return err
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
	if err := checkDenominatorSource(key, ind); err != nil {
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
	case f.ChangeOver != 0 && (len(f.Items) == 0 || len(f.Minus) > 0):
		return manifestErr(key, "formula.change_over", "a change over years is of items alone, without numerator, denominator or minus")
	case f.ChangeOver < 0 || f.ChangeOver > maxChangeOver:
		return manifestErr(key, "formula.change_over", "%d is not a number of years from 1 to %d", f.ChangeOver, maxChangeOver)
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

// checkChange checks the measure of a change between years, where one is declared: one of
// hensachi.IndicatorChanges, and none for an indicator that is itself a change (change_over),
// whose change between two years would be its growth's acceleration, which readers take for the
// growth. Whether an entry must declare one depends on its survey years, which only the sources
// tell (checkChangeDeclared).
func checkChange(ind hensachi.Indicator) error {
	switch {
	case ind.Change == "":
		return nil
	case !slices.Contains(hensachi.IndicatorChanges, ind.Change):
		return manifestErr(ind.Key, "change", "%q is not one of %s", ind.Change, strings.Join(hensachi.IndicatorChanges, ", "))
	case ind.Formula.ChangeOver != 0:
		return manifestErr(ind.Key, "change", "the indicator is itself a change (formula.change_over); a change of it between years means nothing a reader would look for: give none")
	}
	return nil
}

// checkChangeDeclared requires a measure of change of an indicator found with two or more survey
// years that is not itself a change: how its years compare is the manifest's to say, not a
// default's.
func checkChangeDeclared(ind hensachi.Indicator) error {
	if len(ind.Years) < 2 || ind.Change != "" || ind.Formula.ChangeOver != 0 {
		return nil
	}
	years := make([]int, len(ind.Years))
	for k, y := range ind.Years {
		years[k] = y.Year
	}
	return manifestErr(ind.Key, "change", "the indicator has %d survey years (%s): declare how a change between two of them is measured, %s",
		len(years), intList(years), strings.Join(hensachi.IndicatorChanges, " or "))
}

// checkDenominatorSource requires denominator_source exactly when the formula has a denominator,
// and denominator items that the rule can take: census residents for census, the census's
// Japanese population for census_japanese, 住民基本台帳 stocks for the jumin rules, areas for area.
func checkDenominatorSource(key string, ind hensachi.Indicator) error {
	den := ind.Formula.Denominator
	switch {
	case len(den) == 0 && ind.DenominatorSource != "":
		return manifestErr(key, "denominator_source", "only a ratio has a denominator source; the formula has no denominator")
	case len(den) == 0:
		return nil
	case !slices.Contains(hensachi.DenominatorSources, ind.DenominatorSource):
		return manifestErr(key, "denominator_source", "%q is not one of %s", ind.DenominatorSource, strings.Join(hensachi.DenominatorSources, ", "))
	}
	for i, raw := range den {
		it, err := parseItem(raw)
		if err != nil {
			return err // checkFormula has reported it
		}
		fits, want := true, ""
		switch ind.DenominatorSource {
		case hensachi.DenominatorCensus:
			fits, want = it.source == "" && censusResidents.MatchString(it.name), "a census count of residents (A1…, A7…, A8…)"
		case hensachi.DenominatorCensusJapanese:
			fits, want = it.source == "" && slices.Contains(censusJapanese, it.name), "the census's Japanese population ("+strings.Join(censusJapanese, ", ")+")"
		case hensachi.DenominatorJuminNextJanuary, hensachi.DenominatorJuminJanuary:
			fits, want = it.source == juminItems && slices.Contains(juminStocks, it.name), "a 住民基本台帳 stock (jumin."+strings.Join(juminStocks, ", jumin.")+")"
		case hensachi.DenominatorArea:
			fits, want = it.source == "" && areaItems.MatchString(it.name), "an area (B11…)"
		}
		if !fits {
			return manifestErr(key, fmt.Sprintf("formula.denominator[%d]", i), "%s does not fit denominator_source %s, which divides by %s", raw, ind.DenominatorSource, want)
		}
	}
	return nil
}

// inYears reports whether a survey year is within the entry's from_year–to_year.
func inYears(ind hensachi.Indicator, year int) bool {
	return (ind.FromYear == 0 || year >= ind.FromYear) && (ind.ToYear == 0 || year <= ind.ToYear)
}
