package town_test

import (
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/realdata"
)

// TestRealIndicators reads figures of the real dataset's indicators that were worked out by hand
// from the raw files (see each line), through the read model the API and the pages use.
func TestRealIndicators(t *testing.T) {
	c := realdata.Catalog(t, "https://hensachi.example")
	point := func(key string, year int, code string) (hensachi.Indicator, int, int, int) {
		t.Helper()
		i := c.IndicatorIndex(key)
		if i < 0 {
			t.Fatalf("no indicator %s", key)
		}
		k := c.Indicator(i).YearIndex(year)
		m := c.Index(code)
		if k < 0 || m < 0 {
			t.Fatalf("%s has no year %d or no municipality %s", key, year, code)
		}
		return *c.Indicator(i), i, k, m
	}
	for _, tc := range []struct {
		key  string
		year int
		code string
		want float64
		why  string
	}{
		{"births_per_1000", 2023, "01100", 5.36, "SSDSE-A-2026: A4101 10352 (2023) / A1102 日本人人口 1933094 (2020) × 1000 = 5.3551"},
		{"births_per_1000", 2016, "01100", 7.24, "SSDSE-A-2018: A4101 14021 (2016) / A1102 1937785 (2015) × 1000 = 7.2356"},
		{"births_per_1000", 2016, "40231", 9.91, "SSDSE-A-2018 lists 那珂川町 as R40305: 493 / A1102 49736 × 1000 = 9.9123"},
		{"population", 2015, "40231", 50004, "the 2015 census, SSDSE-A-2021 (the newest edition with it), R40231"},
		{"population", 2020, "01100", 1973395, "SSDSE-A-2026 A1101"},
		{"fiscal_strength", 2016, "01100", 0.73, "finance H28.xlsx, 札幌市 財政力指数"},
		{"fiscal_strength", 2022, "01100", 0.72, "finance 000917808.xlsx (令和4年度)"},
		{"income_per_taxpayer", 2010, "01100", 301.7, "portal TSDATA C120110 2405159500 千円 / C120120 797193 人 × 0.1"},
		{"furusato_receipts", 2008, "01100", 397801, "data.json 01100 first pair, 千円"},
		{"furusato_receipts", 2024, "01100", 3904089, "jichitai_detail_multi.csv 受入額_円 3,904,088,764 / 1000"},
	} {
		_, i, k, m := point(tc.key, tc.year, tc.code)
		if got := c.IndicatorPoint(i, k, m); got.Value != hensachi.Some(tc.want) {
			t.Errorf("%s %d %s = %v, want %v (%s)", tc.key, tc.year, tc.code, got.Value, tc.want, tc.why)
		}
	}
	// Sapporo's 2023 birth rate over the Japanese population ranks 624th of 1,735: the 1,741 less
	// 双葉町 (no residents in 2020) and the five towns the evacuation rule nulls (富岡町, 大熊町,
	// 浪江町, 葛尾村, 飯舘村: under half their registered residents counted in 2020).
	ind, i, k, m := point("births_per_1000", 2023, "01100")
	if p := c.IndicatorPoint(i, k, m); p.Rank != 624 || ind.Years[k].Count != 1735 {
		t.Errorf("札幌市 births 2023 rank %d of %d, want 624 of 1735", p.Rank, ind.Years[k].Count)
	}
	// 双葉町 had no residents in the 2020 census: no per-person figure from 2020 on, a count all the same.
	ind, i, k, m = point("births_per_1000", 2023, "07546")
	if p := c.IndicatorPoint(i, k, m); p.Value.Valid {
		t.Errorf("双葉町 births per 1000 in 2023 = %v, want null", p.Value)
	}
	if _, i, k, m := point("population", 2020, "07546"); c.IndicatorPoint(i, k, m).Value != hensachi.Some(0.0) {
		t.Errorf("双葉町 population 2020 = %v, want 0", c.IndicatorPoint(i, k, m).Value)
	}
	if built := realdata.Built(t); built.Report.IndicatorNulls("births_per_1000") == 0 || built.Report.Disagreements() != 0 {
		t.Errorf("report: %d births nulls, %d disagreements between editions; want some nulls (双葉町 and the evacuated towns), none",
			built.Report.IndicatorNulls("births_per_1000"), built.Report.Disagreements())
	}
}
