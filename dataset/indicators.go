package dataset

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/geo"
)

// The indicators are stored after the municipalities' own columns: one nullable float64 column per
// indicator and survey year (IndicatorColumn), holding the values only. Their ranks and deviation
// scores are the read model's to compute when it loads the file (package town), which takes a
// fraction of a second and keeps the file a third of the size. The catalogue (the entries, their
// years and national summaries, and the method) is the JSON of hensachi.IndicatorCatalogue under
// the schema metadata key indicatorsKey, beside the meta document, whose shape it leaves alone.
const indicatorsKey = "hensachi.indicators"

// itemsKey holds the names of the items the catalogue's formulas take (Dataset.ItemNames), as a
// JSON object: kept beside the catalogue, whose entries (hensachi.Indicator) name items by code.
const itemsKey = "hensachi.items"

// Option is something more for Write to write.
type Option func(*options)

type options struct {
	indicators      hensachi.IndicatorCatalogue
	indicatorValues hensachi.IndicatorValues
	itemNames       map[string]string
	boundaries      *geo.Boundaries
	noBoundaries    string
}

// WithIndicators writes the indicator catalogue and its values, which must hold a value per
// municipality for every survey year of every indicator.
func WithIndicators(cat hensachi.IndicatorCatalogue, values hensachi.IndicatorValues) Option {
	return func(o *options) { o.indicators, o.indicatorValues = cat, values }
}

// WithItemNames writes the names of the items the catalogue's formulas take, keyed as a formula
// writes the item (A4101, finance.財政力指数).
func WithItemNames(names map[string]string) Option {
	return func(o *options) { o.itemNames = names }
}

// IndicatorColumn names the column of an indicator's values in one survey year.
func IndicatorColumn(key string, year int) string {
	return "indicator_" + key + "_" + strconv.Itoa(year)
}

// indicatorFields are the columns of the catalogue's values, indicator by indicator, year by year.
func indicatorFields(cat hensachi.IndicatorCatalogue) []arrow.Field {
	var fields []arrow.Field
	for _, ind := range cat.Indicators {
		for _, y := range ind.Years {
			fields = append(fields, arrow.Field{Name: IndicatorColumn(ind.Key, y.Year), Type: arrow.PrimitiveTypes.Float64, Nullable: true})
		}
	}
	return fields
}

// checkIndicatorValues checks that values has a value per municipality for every year of every
// indicator of the catalogue.
func checkIndicatorValues(cat hensachi.IndicatorCatalogue, values hensachi.IndicatorValues, rows int) error {
	if len(values) != len(cat.Indicators) {
		return fmt.Errorf("%d indicators have values, the catalogue has %d", len(values), len(cat.Indicators))
	}
	for i, ind := range cat.Indicators {
		if len(values[i]) != len(ind.Years) {
			return fmt.Errorf("indicator %s has values for %d years, the catalogue lists %d", ind.Key, len(values[i]), len(ind.Years))
		}
		for k, v := range values[i] {
			if len(v) != rows {
				return fmt.Errorf("indicator %s has %d values in %d for %d municipalities", ind.Key, len(v), ind.Years[k].Year, rows)
			}
		}
	}
	return nil
}

// appendIndicators fills the indicator columns, taking each column's builder from next.
func appendIndicators(next func() array.Builder, values hensachi.IndicatorValues) {
	for _, years := range values {
		for _, col := range years {
			fb := next().(*array.Float64Builder)
			for _, v := range col {
				if v.Valid {
					fb.Append(v.V)
				} else {
					fb.AppendNull()
				}
			}
		}
	}
}

// bindIndicators reads the catalogue from the metadata and finds its columns.
func (d *Dataset) bindIndicators(catJSON string) error {
	if err := json.Unmarshal([]byte(catJSON), &d.Indicators); err != nil {
		return fmt.Errorf("%w: indicator catalogue: %v", ErrDataset, err)
	}
	var err error
	d.indicatorValues = make([][]*array.Float64, len(d.Indicators.Indicators))
	for i, ind := range d.Indicators.Indicators {
		if len(ind.Years) == 0 {
			return fmt.Errorf("%w: indicator %s has no survey year", ErrDataset, ind.Key)
		}
		for _, y := range ind.Years {
			d.indicatorValues[i] = append(d.indicatorValues[i], bind[*array.Float64](d.rec, IndicatorColumn(ind.Key, y.Year), &err))
		}
	}
	return err
}

// IndicatorValue returns the value of indicator i in its k-th survey year
// (Indicators.Indicators[i].Years[k]) for row m.
func (d *Dataset) IndicatorValue(i, k, m int) hensachi.Optional[float64] {
	return opt[float64](d.indicatorValues[i][k], m)
}
