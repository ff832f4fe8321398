package town_test

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/realdata"
	"github.com/hensachi/hensachi/town"
)

// TestRealFiguresReadAsMeant holds, on the real dataset, figures a journalist would print, worked
// out by hand from the raw files: which way ranks run, what a dash means, exact rounding.
func TestRealFiguresReadAsMeant(t *testing.T) {
	c := realdata.Catalog(t, "https://hensachi.example")
	at := func(key string, year int) (int, int, *hensachi.Indicator) {
		t.Helper()
		i := c.IndicatorIndex(key)
		if i < 0 {
			t.Fatalf("no indicator %s", key)
		}
		k := c.Indicator(i).YearIndex(year)
		if k < 0 {
			t.Fatalf("%s has no year %d", key, year)
		}
		return i, k, c.Indicator(i)
	}

	// 将来負担比率 FY2022 (000917808.xlsx): 長井市 234.4 %, the heaviest burden, last; 久山町 and the
	// 899 written 「－」 (no net future burden) are 0 %, first together; the national median is 0.
	i, k, burden := at("future_burden_ratio", 2022)
	if burden.Direction != hensachi.DirectionLowerBetter || burden.ZeroLabel == "" {
		t.Errorf("future_burden_ratio: direction %q, zero label %q", burden.Direction, burden.ZeroLabel)
	}
	nagai := c.IndicatorPoint(i, k, c.Index("06209"))
	if nagai.Value != hensachi.Some(234.4) || nagai.Rank != 1741 || nagai.Hensachi >= 30 {
		t.Errorf("長井市 future burden FY2022 %+v, want 234.4 ranked 1,741th of 1,741 with a deviation score under 30", nagai)
	}
	hisayama := c.IndicatorPoint(i, k, c.Index("40345"))
	if hisayama.Value != hensachi.Some(0.0) || hisayama.Rank != 1 || hisayama.Hensachi <= 50 {
		t.Errorf("久山町 future burden FY2022 %+v, want 0 ranked first with a deviation score over 50", hisayama)
	}
	zeros := 0
	for m := range c.Len() {
		if p := c.IndicatorPoint(i, k, m); p.Value == hensachi.Some(0.0) {
			zeros++
			if p.Rank != 1 || p.Hensachi != hisayama.Hensachi {
				t.Errorf("%s at 0 %% is ranked %d with %v, want the tie at 1 with %v", c.Row(m).Code, p.Rank, p.Hensachi, hisayama.Hensachi)
			}
		}
	}
	if y := burden.Years[k]; zeros < 899 || y.Count != 1741 || y.Median != 0 {
		t.Errorf("FY2022: %d at 0 %%, %d ranked, median %v; want at least the 899 dashes, all 1,741 ranked, median 0", zeros, y.Count, y.Median)
	}
	page := c.IndicatorRankingPage(i, k, town.BestFirst, town.Scope{}, 0, 1)
	if page.Items[0].Value != hensachi.Some(0.0) {
		t.Errorf("best first begins with %v, want 0 %%", page.Items[0].Value)
	}

	// 完全失業率 2020: the lowest rate is first and the highest last, whatever the values.
	i, k, _ = at("unemployment_rate", 2020)
	best, worst := c.IndicatorRankingPage(i, k, town.BestFirst, town.Scope{}, 0, 1), c.IndicatorRankingPage(i, k, town.WorstFirst, town.Scope{}, 0, 1)
	if b, w := best.Items[0], worst.Items[0]; b.Value.V >= w.Value.V || b.Hensachi <= 50 || w.Hensachi >= 50 {
		t.Errorf("unemployment 2020: first %v (%v), last %v (%v); want the lowest first above 50", b.Value, b.Hensachi, w.Value, w.Hensachi)
	}

	// 土佐清水市 (39209) elderly single households 2020 (SSDSE-A-2026): A8301 1,771 ÷ A710101 6,160
	// is 28.75 % exactly, which binary division puts a hair below; half away from zero gives 28.8.
	i, k, _ = at("elderly_single_household_share", 2020)
	if p := c.IndicatorPoint(i, k, c.Index("39209")); p.Value != hensachi.Some(28.8) {
		t.Errorf("39209 elderly single household share 2020 = %v, want 28.8 (28.75 rounded half away from zero)", p.Value)
	}
}

// TestRealOneFigureAName checks that the statistics block and the indicators never show two
// different figures under one name: where a statistic and an indicator share a name (a label, or
// a label's other names, see names), the indicator has a year in which every
// municipality's figure is the statistic's, to the statistic's decimals.
func TestRealOneFigureAName(t *testing.T) {
	c := realdata.Catalog(t, "https://hensachi.example")
	brackets := regexp.MustCompile(`（([^）]*)）`)
	// a label's names: itself, another name its brackets hold (65歳以上人口の割合（高齢化率）), and the
	// label without brackets that say no more than per how many people (出生率（人口千人当たり）),
	// not whose or from where (出生率（日本人人口千人当たり）, 出生率（住民基本台帳、人口千人当たり）)
	perPeople := regexp.MustCompile(`^人口[0-9,千万百十]*人当たり$`)
	figureName := regexp.MustCompile(`^[^、]*(率|割合)$`) // another name of the figure, not a qualifier
	names := func(label string) []string {
		out := []string{label}
		per := true
		for _, m := range brackets.FindAllStringSubmatch(label, -1) {
			if figureName.MatchString(m[1]) {
				out = append(out, m[1])
			}
			per = per && perPeople.MatchString(m[1])
		}
		if per {
			out = append(out, brackets.ReplaceAllString(label, ""))
		}
		return out
	}
	shares := func(a, b string) bool {
		for _, x := range names(a) {
			for _, y := range names(b) {
				if x == y {
					return true
				}
			}
		}
		return false
	}
	for s, st := range hensachi.Stats {
		for _, ind := range c.Indicators("") {
			if !shares(st.Label, ind.Label) {
				continue
			}
			i, agrees := c.IndicatorIndex(ind.Key), false
			for k := range ind.Years {
				differ := 0
				for m := range c.Len() {
					a, b := c.Row(m).Stats[s], c.IndicatorPoint(i, k, m).Value
					// each rounded to its own decimals: they agree within half the coarser step
					if a.Valid && b.Valid && math.Abs(a.V-b.V) > 0.5*math.Pow10(-min(st.Decimals, ind.Decimals))+1e-9 {
						differ++
					}
				}
				agrees = agrees || differ == 0
			}
			if !agrees {
				t.Errorf("statistic %s 「%s」 and indicator %s 「%s」 share a name but no year of the indicator gives the statistic's figures", st.Key, st.Label, ind.Key, ind.Label)
			}
		}
	}
	// 新宿区 2020: 高齢化率 over the whole population (age unknown included), 18.08 %, and the
	// indicator over those whose age is known, 20.0 %, under names that say so.
	old := hensachi.StatIndex("old")
	i := c.IndicatorIndex("share_65plus")
	k := c.Indicator(i).YearIndex(2020)
	shinjuku := c.Index("13104")
	if got := c.Row(shinjuku).Stats[old]; got != hensachi.Some(18.08) {
		t.Errorf("新宿区 高齢化率 = %v, want 18.08", got)
	}
	if got := c.IndicatorPoint(i, k, shinjuku).Value; got != hensachi.Some(20.0) || !strings.Contains(c.Indicator(i).Label, "年齢不詳を除く") {
		t.Errorf("新宿区 share_65plus 2020 = %v labelled 「%s」, want 20.0 labelled as excluding unknown ages", got, c.Indicator(i).Label)
	}
}
