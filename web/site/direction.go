package site

import (
	"slices"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/town"
)

// How the pages say which way a measure is better, in one sentence each: on the indicator's page
// (what rank 1 and the deviation score mean) and on its map (what the colours mean). A count is
// said to measure size, so that nobody reads a large town's many schools as a merit.

// rankingReading says what rank 1 and a deviation score above 50 mean for a measure.
func rankingReading(f hensachi.Field) string {
	s := ""
	if f.Kind == hensachi.KindCount {
		s = "市区町村の規模（数そのもの）を示す指標で、人口の多いところほど大きくなります。"
	}
	switch f.Direction {
	case hensachi.DirectionHigherBetter:
		return s + "値が大きいほど良いとみる指標です。1位は値の最も大きい市区町村で、偏差値は 50 を超えるほど良い方を示します。"
	case hensachi.DirectionLowerBetter:
		return s + "値が小さいほど良いとみる指標です。1位は値の最も小さい市区町村で、偏差値は 50 を超えるほど良い方（値の小さい方）を示します。"
	}
	return s + "良し悪しの向きを決めていない指標です。1位は値の最も大きい市区町村で、偏差値は値の大きさを示すだけで、良し悪しは示しません。"
}

// mapReading says what a measure's map colours mean.
func mapReading(f hensachi.Field) string {
	switch f.Direction {
	case hensachi.DirectionHigherBetter:
		return "値が大きいほど良いとみる指標です。良い方を青、悪い方を赤で塗ります。"
	case hensachi.DirectionLowerBetter:
		return "値が小さいほど良いとみる指標です。良い方（値の小さい方）を青、悪い方を赤で塗ります。"
	}
	s := "良し悪しの向きを決めていない指標なので、値が大きいほど濃い紫の一色で塗ります。"
	if f.Kind == hensachi.KindCount {
		s += "数そのものは市区町村の規模を示し、人口の多いところほど濃くなります。"
	}
	return s
}

// changeReading says what rank 1 and a deviation score above 50 mean for a change of a measure.
func changeReading(f hensachi.Field) string {
	switch f.Direction {
	case hensachi.DirectionHigherBetter:
		return "値が大きいほど良いとみる指標なので、最も増えた（上がった）市区町村が1位で、偏差値は 50 を超えるほど良い方への変化を示します。"
	case hensachi.DirectionLowerBetter:
		return "値が小さいほど良いとみる指標なので、最も減った（下がった）市区町村が1位で、偏差値は 50 を超えるほど良い方（値の減る方）への変化を示します。"
	}
	return "良し悪しの向きを決めていない指標です。1位は最も増えた市区町村で、順位と偏差値は変化の大きさと向きを示すだけで、良し悪しは示しません。"
}

// mapChangeReading says what the colours of a map of a change mean.
func mapChangeReading(f hensachi.Field) string {
	switch f.Direction {
	case hensachi.DirectionHigherBetter:
		return "値が大きいほど良いとみる指標です。増えた（良くなった）市区町村を青、減った（悪くなった）市区町村を赤で、変化の大きいほど濃く塗ります。"
	case hensachi.DirectionLowerBetter:
		return "値が小さいほど良いとみる指標です。減った（良くなった）市区町村を青、増えた（悪くなった）市区町村を赤で、変化の大きいほど濃く塗ります。"
	}
	return "良し悪しの向きを決めていない指標なので、増えた市区町村を紫、減った市区町村を橙で、変化の大きいほど濃く塗ります。色は増減の向きと大きさだけを示します。"
}

// directionLabel is a measure's direction in a few words for lists, "" for a neutral one.
func directionLabel(direction string) string {
	switch direction {
	case hensachi.DirectionHigherBetter:
		return "大きいほど良い"
	case hensachi.DirectionLowerBetter:
		return "小さいほど良い"
	}
	return ""
}

// comparableFirst orders a group's indicators (positions in the catalogue) as the pages offer
// them: those that compare municipalities of any size (rates, amounts per person, indices) first,
// then the counts, which measure size; each part in catalogue order. The API keeps catalogue order.
func comparableFirst(c *town.Catalog, idx []int) []int {
	out := slices.Clone(idx)
	slices.SortStableFunc(out, func(a, b int) int {
		return isCount(c.Indicator(a)) - isCount(c.Indicator(b))
	})
	return out
}

func isCount(ind *hensachi.Indicator) int {
	if ind.Kind == hensachi.KindCount {
		return 1
	}
	return 0
}
