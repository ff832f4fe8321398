package export

import (
	"math"
	"strconv"
	"strings"

	"github.com/hensachi/hensachi"
)

// Columns are the table every format writes, one value per municipality of rows:
// code, name, prefecture_code, prefecture_name; per axis {axis}_hensachi, {axis}_value,
// {axis}_rank, {axis}_rank_total; each statistic by its key (an integer for a statistic of no
// decimals, a count); the hometown-tax figures as
// furusato_{receipts,deductions,balance}_… and furusato_history_fy{year}_thousand_yen for each
// fiscal year of the history. The values are those of GET /town/v1/municipalities/{code}.
func Columns(meta *hensachi.Meta, rows []*hensachi.Municipality) []hensachi.Column {
	return columns(meta, rows, names{})
}

// columnMaker makes a table's columns of rows.
type columnMaker []*hensachi.Municipality

func (rows columnMaker) str(name string, v func(m *hensachi.Municipality) string) hensachi.Column {
	col := hensachi.Column{Name: name, Strings: make([]string, len(rows))}
	for k, m := range rows {
		col.Strings[k] = v(m)
	}
	return col
}

func (rows columnMaker) ints(name string, v func(m *hensachi.Municipality) hensachi.Optional[int64]) hensachi.Column {
	col := hensachi.Column{Name: name, Ints: make([]hensachi.Optional[int64], len(rows))}
	for k, m := range rows {
		col.Ints[k] = v(m)
	}
	return col
}

func (rows columnMaker) floats(name string, v func(m *hensachi.Municipality) hensachi.Optional[float64]) hensachi.Column {
	col := hensachi.Column{Name: name, Floats: make([]hensachi.Optional[float64], len(rows))}
	for k, m := range rows {
		col.Floats[k] = v(m)
	}
	return col
}

// nameColumns are the columns that say which municipality a row is: code, name, prefecture_code,
// prefecture_name.
func nameColumns(rows []*hensachi.Municipality, n names) []hensachi.Column {
	column := columnMaker(rows)
	return []hensachi.Column{
		column.str(n.of("code", "", "市区町村コード"), func(m *hensachi.Municipality) string { return m.Code }),
		column.str(n.of("name", "", "市区町村名"), func(m *hensachi.Municipality) string { return m.Name }),
		column.str(n.of("prefecture_code", "", "都道府県コード"), func(m *hensachi.Municipality) string { return m.Prefecture.Code }),
		column.str(n.of("prefecture_name", "", "都道府県"), func(m *hensachi.Municipality) string { return m.Prefecture.Name }),
	}
}

// columns are Columns with their names in n's language.
func columns(meta *hensachi.Meta, rows []*hensachi.Municipality, n names) []hensachi.Column {
	column := columnMaker(rows)
	rank := func(r int, valid bool) hensachi.Optional[int64] {
		return hensachi.Optional[int64]{V: int64(r), Valid: valid}
	}
	cols := nameColumns(rows, n)
	for a, ax := range hensachi.Axes {
		total := int64(meta.Axes[a].Count)
		cols = append(cols,
			column.floats(n.of(ax.Key+"_hensachi", "", ax.Label, jaHensachi), func(m *hensachi.Municipality) hensachi.Optional[float64] {
				s := m.Scores[a]
				return hensachi.Optional[float64]{V: s.Hensachi, Valid: s.Value.Valid}
			}),
			column.floats(n.of(ax.Key+"_value", ax.Unit, ax.Label), func(m *hensachi.Municipality) hensachi.Optional[float64] { return m.Scores[a].Value }),
			column.ints(n.of(ax.Key+"_rank", "", ax.Label, jaRank), func(m *hensachi.Municipality) hensachi.Optional[int64] {
				return rank(m.Scores[a].Rank, m.Scores[a].Value.Valid)
			}),
			column.ints(n.of(ax.Key+"_rank_total", "", ax.Label, jaRank+"の対象数"), func(*hensachi.Municipality) hensachi.Optional[int64] { return hensachi.Some(total) }))
	}
	for s, st := range hensachi.Stats {
		name := n.of(st.Key, st.Unit, st.Label)
		if st.Decimals == 0 {
			cols = append(cols, column.ints(name, func(m *hensachi.Municipality) hensachi.Optional[int64] { return Whole(m.Stats[s]) }))
			continue
		}
		cols = append(cols, column.floats(name, func(m *hensachi.Municipality) hensachi.Optional[float64] { return m.Stats[s] }))
	}
	const furusato = "ふるさと納税"
	cols = append(cols,
		column.ints(n.of("furusato_receipts_amount_yen", "円", furusato, "受入額"), func(m *hensachi.Municipality) hensachi.Optional[int64] { return m.Furusato.ReceiptsYen }),
		column.ints(n.of("furusato_receipts_count", "件", furusato, "受入件数"), func(m *hensachi.Municipality) hensachi.Optional[int64] { return m.Furusato.ReceiptsCount }),
		column.ints(n.of("furusato_receipts_rank", "", furusato, "受入額", jaRank), func(m *hensachi.Municipality) hensachi.Optional[int64] {
			return rank(m.Furusato.ReceiptsRank, m.Furusato.ReceiptsYen.Valid)
		}),
		column.ints(n.of("furusato_deductions_amount_yen", "円", furusato, "住民税控除額"), func(m *hensachi.Municipality) hensachi.Optional[int64] { return m.Furusato.DeductionsYen }),
		column.ints(n.of("furusato_deductions_donors", "人", furusato, "控除適用者数"), func(m *hensachi.Municipality) hensachi.Optional[int64] { return m.Furusato.DeductionDonors }),
		column.ints(n.of("furusato_balance_amount_yen", "円", furusato, "収支"), func(m *hensachi.Municipality) hensachi.Optional[int64] { return m.Furusato.BalanceYen }),
		column.ints(n.of("furusato_balance_rank", "", furusato, "収支", jaRank), func(m *hensachi.Municipality) hensachi.Optional[int64] {
			return rank(m.Furusato.BalanceRank, m.Furusato.BalanceYen.Valid)
		}))
	for y, label := range meta.Furusato.History.FiscalYears {
		name := n.of("furusato_history_"+fiscalYearKey(label)+"_thousand_yen", "千円", furusato, "受入額", label)
		cols = append(cols, column.ints(name, func(m *hensachi.Municipality) hensachi.Optional[int64] {
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
