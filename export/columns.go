package export

import (
	"math"
	"strconv"
	"strings"

	"github.com/hensachi/hensachi"
)

// Columns are the table every format of the export writes, one value per municipality of rows:
// code, name, prefecture_code, prefecture_name; per axis {axis}_hensachi, {axis}_value,
// {axis}_rank, {axis}_rank_total; each statistic by its key (an integer for a statistic of no
// decimals, a count); the hometown-tax figures as
// furusato_{receipts,deductions,balance}_… and furusato_history_fy{year}_thousand_yen for each
// fiscal year of the history. The values are those of GET /town/v1/municipalities/{code}.
func Columns(meta *hensachi.Meta, rows []*hensachi.Municipality) []hensachi.Column {
	n := len(rows)
	str := func(name string, v func(m *hensachi.Municipality) string) hensachi.Column {
		col := hensachi.Column{Name: name, Strings: make([]string, n)}
		for k, m := range rows {
			col.Strings[k] = v(m)
		}
		return col
	}
	ints := func(name string, v func(m *hensachi.Municipality) hensachi.Optional[int64]) hensachi.Column {
		col := hensachi.Column{Name: name, Ints: make([]hensachi.Optional[int64], n)}
		for k, m := range rows {
			col.Ints[k] = v(m)
		}
		return col
	}
	floats := func(name string, v func(m *hensachi.Municipality) hensachi.Optional[float64]) hensachi.Column {
		col := hensachi.Column{Name: name, Floats: make([]hensachi.Optional[float64], n)}
		for k, m := range rows {
			col.Floats[k] = v(m)
		}
		return col
	}
	rank := func(r int, valid bool) hensachi.Optional[int64] {
		return hensachi.Optional[int64]{V: int64(r), Valid: valid}
	}
	cols := []hensachi.Column{
		str("code", func(m *hensachi.Municipality) string { return m.Code }),
		str("name", func(m *hensachi.Municipality) string { return m.Name }),
		str("prefecture_code", func(m *hensachi.Municipality) string { return m.Prefecture.Code }),
		str("prefecture_name", func(m *hensachi.Municipality) string { return m.Prefecture.Name }),
	}
	for a, ax := range hensachi.Axes {
		total := int64(meta.Axes[a].Count)
		cols = append(cols,
			floats(ax.Key+"_hensachi", func(m *hensachi.Municipality) hensachi.Optional[float64] {
				s := m.Scores[a]
				return hensachi.Optional[float64]{V: s.Hensachi, Valid: s.Value.Valid}
			}),
			floats(ax.Key+"_value", func(m *hensachi.Municipality) hensachi.Optional[float64] { return m.Scores[a].Value }),
			ints(ax.Key+"_rank", func(m *hensachi.Municipality) hensachi.Optional[int64] {
				return rank(m.Scores[a].Rank, m.Scores[a].Value.Valid)
			}),
			ints(ax.Key+"_rank_total", func(*hensachi.Municipality) hensachi.Optional[int64] { return hensachi.Some(total) }))
	}
	for s, st := range hensachi.Stats {
		if st.Decimals == 0 {
			cols = append(cols, ints(st.Key, func(m *hensachi.Municipality) hensachi.Optional[int64] { return Whole(m.Stats[s]) }))
			continue
		}
		cols = append(cols, floats(st.Key, func(m *hensachi.Municipality) hensachi.Optional[float64] { return m.Stats[s] }))
	}
	cols = append(cols,
		ints("furusato_receipts_amount_yen", func(m *hensachi.Municipality) hensachi.Optional[int64] { return m.Furusato.ReceiptsYen }),
		ints("furusato_receipts_count", func(m *hensachi.Municipality) hensachi.Optional[int64] { return m.Furusato.ReceiptsCount }),
		ints("furusato_receipts_rank", func(m *hensachi.Municipality) hensachi.Optional[int64] {
			return rank(m.Furusato.ReceiptsRank, m.Furusato.ReceiptsYen.Valid)
		}),
		ints("furusato_deductions_amount_yen", func(m *hensachi.Municipality) hensachi.Optional[int64] { return m.Furusato.DeductionsYen }),
		ints("furusato_deductions_donors", func(m *hensachi.Municipality) hensachi.Optional[int64] { return m.Furusato.DeductionDonors }),
		ints("furusato_balance_amount_yen", func(m *hensachi.Municipality) hensachi.Optional[int64] { return m.Furusato.BalanceYen }),
		ints("furusato_balance_rank", func(m *hensachi.Municipality) hensachi.Optional[int64] {
			return rank(m.Furusato.BalanceRank, m.Furusato.BalanceYen.Valid)
		}))
	for y, label := range meta.Furusato.History.FiscalYears {
		cols = append(cols, ints("furusato_history_"+fiscalYearKey(label)+"_thousand_yen", func(m *hensachi.Municipality) hensachi.Optional[int64] {
			return m.Furusato.HistoryThousandYen[y]
		}))
	}
	return cols
}

// Whole is a value of a measure of no decimals (a count: pop, nursery, an indicator's births) as
// the integer it is, so that Parquet stores it as INT64 and GIS reads an integer field rather than
// a real one. The rounding only drops a float's representation error.
func Whole(v hensachi.Optional[float64]) hensachi.Optional[int64] {
	return hensachi.Optional[int64]{V: int64(math.Round(v.V)), Valid: v.Valid}
}

// fiscalYearKey names a fiscal year such as 令和6年度 in a column name: fy2024. A label in no era
// this knows is kept as it is.
func fiscalYearKey(label string) string {
	for _, era := range []struct {
		name string
		base int // the Western year of the era's year 0
	}{{"令和", 2018}, {"平成", 1988}} {
		n, ok := strings.CutPrefix(label, era.name)
		if !ok {
			continue
		}
		n = strings.TrimSuffix(strings.TrimSuffix(n, "年度"), "年")
		if n == "元" {
			n = "1"
		}
		if y, err := strconv.Atoi(n); err == nil {
			return "fy" + strconv.Itoa(era.base+y)
		}
	}
	return label
}
