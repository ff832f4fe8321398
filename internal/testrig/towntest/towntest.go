// Package towntest builds a small catalog (package town) for the tests of its readers: five
// municipalities in two prefectures, with every kind of value the pages and the API show.
package towntest

import (
	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/town"
)

// PublicURL is the catalog's base URL.
const PublicURL = "https://hensachi.example"

// Catalog has five municipalities in two prefectures, ranked 札幌市 1, 千代田区 2, 函館市 3,
// 札内町 4, 中央区 5 on every axis; 01345 (札内町) has no value on the first axis and the first
// statistic.
func Catalog() *town.Catalog {
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
	return town.New(towns, meta, "v1", PublicURL)
}
