package ingest

import (
	"fmt"

	"github.com/hensachi/hensachi"
)

const (
	metaTitle       = "市区町村偏差値データセット"
	metaMethod      = "各軸の値が大きい順に全国順位を付け（同値は同順位、その平均順位を用いる）、順位 r̄ を p = (n − r̄ + 0.5) / n で累積確率に直し、偏差値 = 50 + 10 × Φ⁻¹(p) とした（Φ⁻¹ は標準正規分布の分位関数、n はその軸で値のある市区町村の数）。50 が全国の真ん中に当たる。外れ値で 100 を超えることがないよう、実数値ではなく順位を正規分布に当てはめている。小数第1位に丸める。6つの軸はいずれも値の大きい方を上位とする。指標（/town/v1/indicators）は良い方を上位にそろえ、値が小さいほど良い指標（direction が lower_better、完全失業率や将来負担比率など）は値の小さい方を1位とし偏差値が 50 を超える。向きを決めない指標（neutral、数はすべてこれ）は値の大きい方を1位とするが、良し悪しは示さない。"
	metaNote        = "市区町村数は 1,741（792市・743町・183村・東京23特別区）。政令指定都市は市全体で1件とし、行政区は含めない。東京23区は区ごとに数える。北方領土の6村は含めない。"
	metaSourceName  = "独立行政法人統計センター「教育用標準データセット SSDSE-A」ほか 政府統計の総合窓口(e-Stat)・総務省の公表データ"
	metaSourceURL   = "https://www.nstac.go.jp/use/literacy/ssdse/"
	furusatoSource  = "総務省「ふるさと納税に関する現況調査結果」"
	furusatoURL     = "https://www.soumu.go.jp/main_sosiki/jichi_zeisei/czaisei/czaisei_seido/furusato/"
	corporateSource = "内閣府「企業版ふるさと納税（地方創生応援税制）」— 市区町村別の実績は公表元から入手できず未収録（全市区町村 null）"
	corporateURL    = "https://www.chisou.go.jp/tiiki/tiikisaisei/kigyou_furusato.html"
)

// EraFiscalYear writes a fiscal year the Japanese way: 2024 → 令和6年度, 2019 → 令和元年度, 2015 → 平成27年度.
func EraFiscalYear(year int) string {
	era, n := "令和", year-2018
	if year < 2019 {
		era, n = "平成", year-1988
	}
	if n == 1 {
		return era + "元年度"
	}
	return fmt.Sprintf("%s%d年度", era, n)
}

func meta(man *Manifest, cl *CodeList, axes, stats []derivation, fu *furusatoTables) hensachi.Meta {
	m := hensachi.Meta{
		Title:          metaTitle,
		Municipalities: len(cl.Entries),
		DataUpdated:    man.DataUpdated,
		Method:         metaMethod,
		Note:           metaNote,
		Source:         hensachi.Link{Name: metaSourceName, URL: metaSourceURL},
		Prefectures:    cl.Prefectures,
		Wards:          cl.Wards,
	}
	for _, d := range axes {
		m.Axes = append(m.Axes, hensachi.AxisMeta{Key: d.field.Key, Label: d.field.Label, Unit: d.field.Unit,
			Description: d.field.Description, Source: d.source(man)})
	}
	for _, d := range stats {
		m.Stats = append(m.Stats, hensachi.StatMeta{Key: d.field.Key, Label: d.field.Label, Unit: d.field.Unit, Source: d.source(man)})
	}
	years := make([]string, len(fu.historyYears))
	for i, y := range fu.historyYears {
		years[i] = EraFiscalYear(y)
	}
	m.Furusato = hensachi.FurusatoMeta{
		DataUpdated: fu.dataUpdated,
		Receipts: hensachi.FurusatoSource{FiscalYear: EraFiscalYear(fu.year),
			Source: furusatoSource + "（受入額・受入件数）", URL: fu.deduction.ReceiptURL},
		Deductions: hensachi.FurusatoTaxSource{TaxYear: taxYear(fu.year),
			Source: fmt.Sprintf("総務省「%s課税における住民税控除額の実績等」（市町村民税控除額）", taxYear(fu.year)), URL: fu.deduction.TaxURL},
		History: hensachi.FurusatoHistory{FiscalYears: years, Unit: "千円",
			Source: furusatoSource + "（各年度の受入額）", URL: furusatoURL},
		Corporate: hensachi.FurusatoSource{FiscalYear: "", Source: corporateSource, URL: corporateURL},
	}
	return m
}

// taxYear names the resident-tax year that deducts donations made in a fiscal year: the next one,
// written 令和7年度 for donations of 2024.
func taxYear(donationYear int) string { return EraFiscalYear(donationYear + 1) }
