package hensachi

// Indicator is one entry of the indicator catalogue: a figure every municipality has, or may have,
// for each survey year its sources carry. The catalogue is declared in ingest/indicators.json; the
// ingest step adds the years it found and their national summaries.
type Indicator struct {
	Key         string  `json:"key"`
	Label       string  `json:"label"` // Japanese
	Unit        string  `json:"unit"`
	Group       string  `json:"group"` // one of IndicatorGroups
	Description string  `json:"description"`
	Source      string  `json:"source"` // survey and publisher
	Formula     Formula `json:"formula"`
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
	// Years are the survey years with values, oldest first, each with its national summary.
	Years []IndicatorYear `json:"years,omitempty"`
}

// Formula states an indicator in its sources' item codes, so that anyone can recompute it:
// Scale × (the sum of Items − the sum of Minus) (a count or a published ratio), or
// Scale × (sum(Numerator) − sum(Minus)) / sum(Denominator). Scale is 1 when it is not given. An
// item is an SSDSE-A item code (A1101) or, for another source, that source's manifest id and its
// item, joined by a dot (finance.財政力指数, portal.C120110, furusato.receipts_thousand_yen).
type Formula struct {
	Items     []string `json:"items,omitempty"`
	Numerator []string `json:"numerator,omitempty"`
	// Minus are subtracted from Items or Numerator, in the same survey year: natural increase is
	// births minus deaths, net migration movers in minus movers out.
	Minus       []string `json:"minus,omitempty"`
	Denominator []string `json:"denominator,omitempty"`
	Scale       float64  `json:"scale,omitempty"`
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
