package export

import "strings"

// The columns' names: in English for the API and programs (code, population_2020_rank), or in
// Japanese for spreadsheets (header=ja): a column's identity in words joined by underscores, the
// unit in full-width brackets at the end where the column has one — 市区町村コード, 総人口_2020（人）,
// 総人口_2020_全国順位, 総人口_2020_偏差値, 総人口_2015→2020_増減率（%）. The Japanese names are
// made where the English ones are, so that a column of one language is never without its twin.

// names picks a column's name in the header's language.
type names struct{ japanese bool }

// of is the English name en or the Japanese name of parts and unit (jaName).
func (n names) of(en, unit string, parts ...string) string {
	if !n.japanese {
		return en
	}
	return jaName(unit, parts...)
}

// jaName is a Japanese column name: parts joined by underscores, then the unit in full-width
// brackets where there is one.
func jaName(unit string, parts ...string) string {
	name := strings.Join(parts, "_")
	if unit != "" {
		name += "（" + unit + "）"
	}
	return name
}

// Words of the Japanese names.
const (
	jaRank     = "全国順位"
	jaPeerRank = "類似団体内順位"
	jaHensachi = "偏差値"
)
