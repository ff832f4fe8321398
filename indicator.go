package hensachi

// Indicator is one entry of the indicator catalogue: a figure every municipality has, or may have,
// for each survey year its sources carry. The catalogue is declared in ingest/indicators.json; the
// ingest step adds the years it found and their national summaries.
type Indicator struct {
	Key         string `json:"key"`
	Label       string `json:"label"` // Japanese
	Unit        string `json:"unit"`
	Group       string `json:"group"` // one of IndicatorGroups
	Description string `json:"description"`
	Source      string `json:"source"` // survey and publisher
	// Direction says which way is better (DirectionHigherBetter, DirectionLowerBetter) or that
	// neither is (DirectionNeutral); ranks and deviation scores are oriented by it, so that rank 1
	// and a high score are the best. DirectionNote, when a reader could disagree, says why.
	Direction     string `json:"direction"`
	DirectionNote string `json:"direction_note,omitempty"`
	// Kind is what the figure is: KindCount measures size, KindRate a share or a rate, KindPerCapita
	// an amount per person (or per household, per school…), KindIndex an index or a published ratio.
	Kind    string  `json:"kind"`
	Formula Formula `json:"formula"`
	// DenominatorSource names where a ratio's denominator comes from and which date of it divides
	// the numerator's year (one of DenominatorSources); empty for a formula without a denominator.
	DenominatorSource string `json:"denominator_source,omitempty"`
	// Decimals is the number of decimal places a value is rounded to before it is ranked, so that
	// two municipalities showing the same figure share a rank.
	Decimals int `json:"decimals"`
	// FromYear and ToYear, when not 0, bound the survey years the indicator takes from its sources:
	// an entry whose items changed their definition can keep to the years of one definition.
	FromYear int `json:"from_year,omitempty"`
	ToYear   int `json:"to_year,omitempty"`
	// Breaks are the survey years from which an item of the formula has a new definition under
	// the same code; each is marked here and explained in Note, so that the series is never one
	// silent line across it.
	Breaks []int `json:"breaks,omitempty"`
	// Note explains a break in the series or anything a reader must know to compare its years.
	Note string `json:"note,omitempty"`
	// ZeroLabel says what a value of 0 means where the source writes it as a word or a dash
	// (将来負担比率's 「－」: 将来負担なし), for the pages to show beside the 0.
	ZeroLabel string `json:"zero_label,omitempty"`
	// Change is how a change between two of its years is measured (ChangeDifference, ChangePercent);
	// "" for an indicator of one year or one whose change means nothing.
	Change string `json:"change,omitempty"`
	// Years are the survey years with values, oldest first, each with its national summary.
	Years []IndicatorYear `json:"years,omitempty"`
}

// The directions of an indicator.
const (
	DirectionHigherBetter = "higher_better"
	DirectionLowerBetter  = "lower_better"
	DirectionNeutral      = "neutral"
)

// IndicatorDirections are the values Indicator.Direction may take.
var IndicatorDirections = []string{DirectionHigherBetter, DirectionLowerBetter, DirectionNeutral}

// The kinds of an indicator.
const (
	KindCount     = "count"
	KindRate      = "rate"
	KindPerCapita = "per_capita"
	KindIndex     = "index"
)

// IndicatorKinds are the values Indicator.Kind may take.
var IndicatorKinds = []string{KindCount, KindRate, KindPerCapita, KindIndex}

// The measures of an indicator's change between two years.
const (
	// ChangeDifference is the later value minus the earlier, in the indicator's unit (points for a
	// rate or an index): a share's change in percent of itself misleads.
	ChangeDifference = "difference"
	// ChangePercent is the difference in percent of the earlier value: for counts and amounts,
	// whose size differs by municipality.
	ChangePercent = "percent"
)

// IndicatorChanges are the values Indicator.Change may take.
var IndicatorChanges = []string{ChangeDifference, ChangePercent}

// LowerIsBetter reports whether the indicator ranks its lowest value first.
func (ind *Indicator) LowerIsBetter() bool { return ind.Direction == DirectionLowerBetter }

// Field is the indicator as a measure the pages show and map.
func (ind *Indicator) Field() Field {
	return Field{Key: ind.Key, Label: ind.Label, Unit: ind.Unit, Description: ind.Description, Decimals: ind.Decimals,
		Direction: ind.Direction, Kind: ind.Kind, ZeroLabel: ind.ZeroLabel}
}

// The denominator sources of a ratio: which figures divide, and of which date. A numerator year
// whose denominator year the source does not have is not computed.
const (
	// DenominatorSameYear: the denominator's items of the numerator's own year (the same survey,
	// as teachers for pupils or the workforce for the unemployed, or the same fiscal year of
	// another source, as revenue for hometown-tax receipts).
	DenominatorSameYear = "same_year"
	// DenominatorCensus: the census's count of the residents (population, its sexes and age groups,
	// households) of the census year nearest the numerator's among those the data has (ties to the
	// earlier); for a census stock that is its own year (2015, 2020). Where a municipality's census
	// population is under half its 住民基本台帳 population of the next 1 January (the evacuated
	// towns of Fukushima), the census does not describe it and the rate is null.
	DenominatorCensus = "census"
	// DenominatorCensusJapanese: the census's Japanese population (日本人人口 A1102, or its sexes) of
	// the nearest census year as for DenominatorCensus, for counts of Japanese nationals only
	// (人口動態統計, 住民基本台帳人口移動報告); the same evacuation rule applies.
	DenominatorCensusJapanese = "census_japanese"
	// DenominatorJuminNextJanuary: the 住民基本台帳 population of 1 January Y+1, for amounts of
	// fiscal year Y, flows of calendar year Y and stocks counted during year Y: the registered
	// population at the end of the year the numerator covers.
	DenominatorJuminNextJanuary = "jumin_next_january"
	// DenominatorJuminJanuary: the 住民基本台帳 figures (population, households) of 1 January Y,
	// for stocks of that date.
	DenominatorJuminJanuary = "jumin_january"
	// DenominatorArea: the area survey of the latest year not after Y (else the earliest).
	DenominatorArea = "area"
)

// DenominatorSources are the values Indicator.DenominatorSource may take.
var DenominatorSources = []string{DenominatorSameYear, DenominatorCensus, DenominatorCensusJapanese,
	DenominatorJuminNextJanuary, DenominatorJuminJanuary, DenominatorArea}

// Formula states an indicator in its sources' item codes, so that anyone can recompute it:
// Scale × (the sum of Items − the sum of Minus) (a count or a published ratio),
// Scale × (sum(Numerator) − sum(Minus)) / sum(Denominator), or, with ChangeOver N,
// Scale × (sum(Items) of Y − sum(Items) of Y−N) / sum(Items) of Y−N (a change over N years).
// Scale is 1 when it is not given. An item is an SSDSE-A item code (A1101) or, for another source,
// that source's manifest id and its item, joined by a dot (finance.財政力指数, portal.C120110,
// furusato.receipts_thousand_yen, jumin.population).
type Formula struct {
	Items     []string `json:"items,omitempty"`
	Numerator []string `json:"numerator,omitempty"`
	// Minus are subtracted from Items or Numerator, in the same survey year: natural increase is
	// births minus deaths, net moves movers in minus movers out.
	Minus       []string `json:"minus,omitempty"`
	Denominator []string `json:"denominator,omitempty"`
	Scale       float64  `json:"scale,omitempty"`
	// ChangeOver, when not 0, makes the formula the change of Items over that many years, relative
	// to the earlier year: a year has a value only where the items have both it and the year
	// ChangeOver before.
	ChangeOver int `json:"change_over,omitempty"`
}

// Factor is the scale the formula multiplies by: Scale, or 1 when it is not given.
func (f Formula) Factor() float64 {
	if f.Scale == 0 {
		return 1
	}
	return f.Scale
}

// Counted are the items whose survey year is the indicator's: Items, or Numerator for a ratio.
func (f Formula) Counted() []string {
	if len(f.Items) > 0 {
		return f.Items
	}
	return f.Numerator
}

// IndicatorYear is one survey year of an indicator and its national summary over the
// municipalities that have a value.
type IndicatorYear struct {
	Year   int     `json:"year"`
	Count  int     `json:"count"`
	Median float64 `json:"median"`
	Mean   float64 `json:"mean"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// YearIndex returns the position of a survey year in Years, or -1.
func (ind *Indicator) YearIndex(year int) int {
	for k, y := range ind.Years {
		if y.Year == year {
			return k
		}
	}
	return -1
}

// IndicatorGroups are the catalogue's groups, in the order the API and the pages list them.
var IndicatorGroups = []string{"人口・世帯", "経済・雇用", "財政", "教育", "医療・福祉", "生活・環境", "ふるさと納税"}

// IndicatorCatalogue is the catalogue as the dataset carries it: how every indicator is computed
// and ranked, and the entries with their years.
type IndicatorCatalogue struct {
	Method     string      `json:"method"`
	Indicators []Indicator `json:"indicators"`
}

// IndicatorValues are the catalogue's figures: v[i][k][m] is indicator i's value in its k-th
// survey year (Indicators[i].Years[k]) for municipality m, the municipalities in code order, each
// rounded to the indicator's decimals; null where the municipality has none.
type IndicatorValues [][][]Optional[float64]
