package export

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/town"
)

// The long table with a change (GET /town/v1/export/series?change=Y1-Y2) is the long table's rows
// of the later year with the change from the earlier beside them. It is not cut from the national
// long table: that table is built once per version, and its CSV's byte ranges and deflated parts
// hold no room for columns that depend on a pair of years, of which there are over a hundred (18
// fiscal years alone make 153). So it is written for the call from the indicators' changes, which
// the read model ranks once per pair (town.Catalog.IndicatorChange), and kept in the byte budget of
// the exports with indicator columns: every indicator of 2015–2020 for the whole country is 137
// indicators × 1,741 rows, 22.6 MB of CSV written in about 2 s of a loaded core
// (BenchmarkSeriesChange), which is why it is built one at a time with the national long tables.

// SeriesChange returns the long table of indicators (catalogue positions, each with a change
// between the survey years of change, earlier first: param.ExportChange) for a prefecture ("" for
// the whole country) in a format that writes in parts: per indicator, the rows of the later year
// with a value, in code order, with the long table's columns (code, name, prefecture_code,
// indicator, year, value, rank, hensachi) and change_from_year, change_from_value, change_measure
// (difference or percent), change, change_rank (national) and change_hensachi, null where the
// municipality has no change. A call that finds a table being built waits for it as Series does;
// an unknown prefecture is not_found.
func SeriesChange(ctx context.Context, c *town.Catalog, f *Format, pref string, indicators []int, change [2]int) (*File, error) {
	list, ok := c.List(pref)
	if !ok {
		return nil, unknownPrefecture(pref)
	}
	sel := Selection{Indicators: indicators, Change: change}
	ctx, cancel := context.WithTimeout(ctx, buildWait)
	defer cancel()
	file, err := withIndicators.Get(ctx, c, selectionKey{f, pref, "series:" + sel.key()}, func() (*File, error) {
		select {
		case buildSlot <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		defer func() { <-buildSlot }()
		var b bytes.Buffer
		tw := f.stream(&b, f.credits(c))
		n := names{f.Japanese}
		index := rowIndexes(c, list.Items)
		for _, i := range indicators {
			if err := tw.Write(seriesChangePart(c, list.Items, index, i, change, n)); err != nil {
				return nil, fmt.Errorf("export: the long table with a change: %w", err)
			}
		}
		if len(indicators) == 0 {
			if err := tw.Write(seriesChangePart(c, nil, nil, -1, change, n)); err != nil {
				return nil, fmt.Errorf("export: the long table with a change: %w", err)
			}
		}
		if err := tw.Close(); err != nil {
			return nil, fmt.Errorf("export: the long table with a change: %w", err)
		}
		name := SeriesFilename(&c.Meta, pref, f.Name)
		file := &File{Format: f, Body: b.Bytes(), Filename: strings.TrimSuffix(name, "."+f.Name) + changeInName(change) + "." + f.Name}
		file.Gzipped()
		return file, nil
	})
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return nil, (&hensachi.Error{Code: hensachi.EOverloaded, Cause: err,
			Message: "another of the indicators' long tables is being built; retry in a few seconds"}).RetryIn(busyRetry)
	}
	return file, err
}

// seriesChangePart is indicator i's rows of the long table with a change: the rows of the later
// year of change with a value, in rows' order (index: their rows in the catalog). i < 0 gives the
// columns empty. In Japanese, the measure is named with the change's unit: 増減率（%）, 増減（人）.
func seriesChangePart(c *town.Catalog, rows []*hensachi.Municipality, index []int, i int, change [2]int, n names) []hensachi.Column {
	cols := seriesPart(nil, nil, nil, -1, n)
	cols = append(cols,
		hensachi.Column{Name: n.of("change_from_year", "", "変化の起点の年"), Ints: []hensachi.Optional[int64]{}},
		hensachi.Column{Name: n.of("change_from_value", "", "変化の起点の値"), Floats: []hensachi.Optional[float64]{}},
		hensachi.Column{Name: n.of("change_measure", "", "変化の測り方"), Strings: []string{}},
		hensachi.Column{Name: n.of("change", "", "変化"), Floats: []hensachi.Optional[float64]{}},
		hensachi.Column{Name: n.of("change_rank", "", "変化", jaRank), Ints: []hensachi.Optional[int64]{}},
		hensachi.Column{Name: n.of("change_hensachi", "", "変化", jaHensachi), Floats: []hensachi.Optional[float64]{}})
	if i < 0 {
		return cols
	}
	ind := c.Indicator(i)
	indicator, measure := n.of(ind.Key, ind.Unit, ind.Label), n.of(ind.Change, town.ChangeUnit(ind), jaChange(ind))
	from, to := ind.YearIndex(change[0]), ind.YearIndex(change[1])
	ch := c.IndicatorChange(i, from, to)
	for k, m := range index {
		p := c.IndicatorPoint(i, to, m)
		if !p.Value.Valid {
			continue
		}
		appendSeriesRow(cols, rows[k], indicator, p)
		cols[8].Ints = append(cols[8].Ints, hensachi.Some(int64(change[0])))
		cols[9].Floats = append(cols[9].Floats, c.IndicatorPoint(i, from, m).Value)
		cols[10].Strings = append(cols[10].Strings, measure)
		v := ch.Values[m]
		cols[11].Floats = append(cols[11].Floats, v)
		if v.Valid {
			cols[12].Ints = append(cols[12].Ints, hensachi.Some(int64(ch.Ranks[m])))
			cols[13].Floats = append(cols[13].Floats, hensachi.Some(ch.Hensachi[m]))
		} else {
			cols[12].Ints = append(cols[12].Ints, hensachi.Optional[int64]{})
			cols[13].Floats = append(cols[13].Floats, hensachi.Optional[float64]{})
		}
	}
	return cols
}
