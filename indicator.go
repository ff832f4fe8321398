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
	// Note explains a break in the series or anything a reader must know to compare its years.
	Note string `json:"note,omitempty"`
	// Years are the survey years with values, oldest first, each with its national summary.
	Years []IndicatorYear `json:"years,omitempty"`
}

// Formula states an indicator in its sources' item codes, so that anyone can recompute it: the
// sum of Items less the sum of Minus (a count or a published ratio), or
// Scale × (sum(Numerator) − sum(Minus)) / sum(Denominator).
// An item is an SSDSE-A item code (A1101) or, for another source, that source's manifest id and
// its item, joined by a dot (finance.財政力指数, portal.C120110).
type Formula struct {
	Items     []string `json:"items,omitempty"`
	Numerator []string `json:"numerator,omitempty"`
	// Minus are subtracted from Items or Numerator, in the same survey year: natural increase is
	// births minus deaths, net migration movers in minus movers out.
	Minus       []string `json:"minus,omitempty"`
	Denominator []string `json:"denominator,omitempty"`
	Scale       float64  `json:"scale,omitempty"`
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

// IndicatorGroups are the catalogue's groups, in the order the API and the pages list them.
var IndicatorGroups = []string{"人口・世帯", "経済・雇用", "財政", "教育", "医療・福祉", "生活・環境", "ふるさと納税"}
