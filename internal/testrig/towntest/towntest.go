// Package towntest builds a small catalog (package town) for the tests of its readers: five
// municipalities in two prefectures, with every kind of value the pages and the API show.
package towntest

import (
	"math"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/compute"
	"github.com/hensachi/hensachi/geo"
	"github.com/hensachi/hensachi/town"
)

// PublicURL is the catalog's base URL.
const PublicURL = "https://hensachi.example"

// Catalog has five municipalities in two prefectures, ranked 札幌市 1, 千代田区 2, 函館市 3,
// 札内町 4, 中央区 5 on every axis; 01345 (札内町) has no value on the first axis and the first
// statistic. Its indicators are Indicators, its boundaries Boundaries.
func Catalog() *town.Catalog {
	cat, values := Indicators()
	return town.New(Municipalities(), Meta(), "v1", PublicURL).WithIndicators(cat, values).WithItemNames(ItemNames).WithBoundaries(Boundaries(), BoundaryMeta)
}

// ItemNames are the names of the items Catalog's formulas take, as a dataset carries them.
var ItemNames = map[string]string{"A4101": "出生数", "A1101": "総人口", "finance.財政力指数": "財政力指数"}

// Meta is Catalog's meta document as a dataset file holds it: with the 類似団体 (PeerGroups),
// which the catalog's own meta leaves out.
func Meta() hensachi.Meta {
	meta := hensachi.Meta{DataUpdated: "2026-01-01", Method: "順位を正規分布に当てはめる。",
		Source:      hensachi.Link{Name: "テスト統計", URL: "https://example.jp/stats"},
		Prefectures: []hensachi.Prefecture{{Code: "01", Name: "北海道"}, {Code: "13", Name: "東京都"}},
		Furusato: hensachi.FurusatoMeta{DataUpdated: "2025-07-31", Receipts: hensachi.FurusatoSource{FiscalYear: "令和6年度", Source: "受入の調査"},
			Deductions: hensachi.FurusatoTaxSource{TaxYear: "令和7年度", Source: "控除の調査"},
			History:    hensachi.FurusatoHistory{FiscalYears: []string{"令和5年度", "令和6年度"}, Unit: "千円", Source: "推移の調査"}}}
	for _, a := range hensachi.Axes {
		meta.Axes = append(meta.Axes, hensachi.AxisMeta{Key: a.Key, Label: a.Label, Source: "国勢調査（2020年）"})
	}
	for _, s := range hensachi.Stats {
		meta.Stats = append(meta.Stats, hensachi.StatMeta{Key: s.Key, Label: s.Label, Source: "統計調査（2021年）"})
	}
	meta.PeerGroups = PeerGroups
	return meta
}

// Municipalities are Catalog's municipalities in code order, for a test that builds a catalog or a
// dataset file of its own from them (with Meta).
func Municipalities() []hensachi.Municipality {
	municipality := func(code, name, kana, pref string, rank int) hensachi.Municipality {
		m := hensachi.Municipality{Code: code, Name: name, Kana: kana, Prefecture: hensachi.Prefecture{Code: code[:2], Name: pref}}
		for range hensachi.Axes {
			m.Scores = append(m.Scores, hensachi.Score{Value: hensachi.Some(float64(10 - rank)), Hensachi: 60 - 5*float64(rank), Rank: rank})
		}
		for s := range hensachi.Stats {
			m.Stats = append(m.Stats, hensachi.Some(float64(100*rank+s)))
		}
		m.Furusato = hensachi.Furusato{ReceiptsYen: hensachi.Some(int64(1_234_567_000)), ReceiptsRank: rank, ReceiptsCount: hensachi.Some(int64(4321)),
			DeductionsYen: hensachi.Some(int64(98_765)), BalanceYen: hensachi.Some(int64(1_234_468_235)), BalanceRank: rank,
			HistoryThousandYen: []hensachi.Optional[int64]{hensachi.Some(int64(900_000)), hensachi.Some(int64(1_234_567))}}
		return m
	}
	towns := []hensachi.Municipality{
		municipality("01100", "札幌市", "さっぽろし", "北海道", 1),
		municipality("01202", "函館市", "はこだてし", "北海道", 3),
		municipality("01345", "札内町", "さつないちょう", "北海道", 4),
		municipality("13101", "千代田区", "ちよだく", "東京都", 2),
		municipality("13102", "中央区", "ちゅうおうく", "東京都", 5),
	}
	towns[2].Scores[0] = hensachi.Score{}
	towns[2].Stats[0] = hensachi.Optional[float64]{}
	for _, g := range PeerGroups[:4] {
		for _, code := range g.Members {
			for i := range towns {
				if towns[i].Code == code {
					towns[i].PeerGroup = g.Code
				}
			}
		}
	}
	return towns
}

// PeerGroups are Catalog's 類似団体, latest census first: in 2020 札幌市 a designated city, 函館市
// a 中核市, 札内町 町村Ⅱ-2 and the two wards special wards; in 2015 札内町 was 町村Ⅲ-2.
var PeerGroups = []hensachi.PeerGroup{
	{Code: "designated_city", Name: "政令指定都市", CensusYear: 2020, Members: []string{"01100"}},
	{Code: "core_city", Name: "中核市", CensusYear: 2020, Members: []string{"01202"}},
	{Code: "special_ward", Name: "特別区", CensusYear: 2020, Members: []string{"13101", "13102"}},
	{Code: "town-2-2", Name: "町村Ⅱ-2", CensusYear: 2020, Members: []string{"01345"}},
	{Code: "designated_city", Name: "政令指定都市", CensusYear: 2015, Members: []string{"01100"}},
	{Code: "core_city", Name: "中核市", CensusYear: 2015, Members: []string{"01202"}},
	{Code: "special_ward", Name: "特別区", CensusYear: 2015, Members: []string{"13101", "13102"}},
	{Code: "town-3-2", Name: "町村Ⅲ-2", CensusYear: 2015, Members: []string{"01345"}},
}

// BoundaryMeta describes Boundaries.
var BoundaryMeta = hensachi.BoundaryMeta{Source: hensachi.Link{Name: "テスト境界", URL: "https://example.jp/boundaries"},
	Credit: "出典：テスト境界を加工して作成", Files: []hensachi.BoundaryFile{{Name: "test.topojson", SHA256: "00", Detail: "テスト"}}}

// Boundaries gives Catalog's municipalities (in code order) squares side by side, 北海道's in one
// row, 東京都's below: 0.1° at the coarse level, the same squares on a grid ten times finer at the
// fine one; 札内町 has an islet besides.
func Boundaries() geo.Boundaries {
	square := func(x, y, size int32) geo.QPolygon {
		return geo.QPolygon{{{x, y}, {x + size, y}, {x + size, y + size}, {x, y + size}, {x, y}}}
	}
	at := [][2]int32{{0, 10}, {10, 10}, {20, 10}, {0, 0}, {10, 0}}
	var b geo.Boundaries
	b.Coarse.Transform = geo.Transform{Scale: [2]float64{0.01, 0.01}, Translate: [2]float64{139, 35}}
	b.Fine.Transform = geo.Transform{Scale: [2]float64{0.001, 0.001}, Translate: [2]float64{139, 35}}
	for i, p := range at {
		coarse := geo.QShape{square(p[0], p[1], 8)}
		fine := geo.QShape{square(10*p[0], 10*p[1], 80)}
		if i == 2 {
			coarse = append(coarse, square(p[0]+9, p[1]+9, 1))
			fine = append(fine, square(10*p[0]+90, 10*p[1]+90, 5))
		}
		b.Coarse.Shapes = append(b.Coarse.Shapes, coarse)
		b.Fine.Shapes = append(b.Fine.Shapes, fine)
	}
	return b
}

// Indicators is a catalogue of two indicators over Catalog's municipalities (in code order 札幌市,
// 函館市, 札内町, 千代田区, 中央区), their national summaries filled in:
//
//	births_per_1000 (人口・世帯)  2020: 6.5, 5.25, null, 7.1, 5.25   2023: 6.1, 5.0, 4.2, 6.8, 5.6
//	fiscal_strength (財政)        2022: 0.72, 0.41, 0.2, 0.87, 1.09
func Indicators() (hensachi.IndicatorCatalogue, hensachi.IndicatorValues) {
	some := func(vs ...float64) []hensachi.Optional[float64] {
		out := make([]hensachi.Optional[float64], len(vs))
		for i, v := range vs {
			if v == v { // NaN is null
				out[i] = hensachi.Some(v)
			}
		}
		return out
	}
	cat := hensachi.IndicatorCatalogue{Method: "年ごとに順位を付ける。", Indicators: []hensachi.Indicator{
		{Key: "births_per_1000", Label: "出生率（人口千人当たり）", Unit: "‰", Group: "人口・世帯", Description: "人口千人当たりの出生数。",
			Source: "人口動態統計", Direction: hensachi.DirectionHigherBetter, Kind: hensachi.KindRate, Formula: hensachi.Formula{Numerator: []string{"A4101"}, Denominator: []string{"A1101"}, Scale: 1000}, Decimals: 2,
			Change: hensachi.ChangeDifference, Years: []hensachi.IndicatorYear{{Year: 2020}, {Year: 2023}}},
		{Key: "fiscal_strength", Label: "財政力指数", Group: "財政", Description: "基準財政収入額を基準財政需要額で割った値の3年平均。",
			Source: "主要財政指標", Direction: hensachi.DirectionHigherBetter, Kind: hensachi.KindIndex,
			Formula: hensachi.Formula{Items: []string{"finance.財政力指数"}}, Decimals: 2,
			Years: []hensachi.IndicatorYear{{Year: 2022}}},
	}}
	values := hensachi.IndicatorValues{
		{some(6.5, 5.25, math.NaN(), 7.1, 5.25), some(6.1, 5.0, 4.2, 6.8, 5.6)},
		{some(0.72, 0.41, 0.2, 0.87, 1.09)},
	}
	compute.ApplyIndicators(&cat, values)
	return cat, values
}
