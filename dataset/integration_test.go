package dataset_test

import (
	"bytes"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/compute"
	"github.com/hensachi/hensachi/dataset"
	"github.com/hensachi/hensachi/ingest"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// ingestReal ingests and ranks the real source files.
func ingestReal(t testing.TB) *ingest.Result {
	t.Helper()
	res, err := ingest.Build(testenv.Shared(t, "data/raw"), quiet)
	if err != nil {
		t.Fatal(err)
	}
	compute.Apply(res.Municipalities, &res.Meta)
	compute.ApplyIndicators(&res.Indicators, res.IndicatorValues)
	return res
}

// sharedIngest is the ingest of the real source files that the tests of this binary read and
// never change: one ingest takes some 15 s under the race detector.
var sharedIngest struct {
	sync.Mutex
	res *ingest.Result
}

// buildReal writes the real dataset from the shared ingest into dir and opens it.
func buildReal(t testing.TB, dir string) (*dataset.Dataset, *ingest.Result, []byte) {
	t.Helper()
	res := func() *ingest.Result {
		sharedIngest.Lock()
		defer sharedIngest.Unlock()
		if sharedIngest.res == nil {
			sharedIngest.res = ingestReal(t)
		}
		return sharedIngest.res
	}()
	return writeReal(t, res, dir)
}

// writeReal writes the dataset of res into dir and opens it.
func writeReal(t testing.TB, res *ingest.Result, dir string) (*dataset.Dataset, *ingest.Result, []byte) {
	t.Helper()
	path := filepath.Join(dir, "dataset.arrow")
	version, err := dataset.Write(path, res.Municipalities, res.Meta, dataset.WithIndicators(res.Indicators, res.IndicatorValues))
	if err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ds.Close() })
	if ds.Version != version {
		t.Errorf("opened version %s, written %s", ds.Version, version)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return ds, res, data
}

func TestRealDataset(t *testing.T) {
	ds, res, first := buildReal(t, t.TempDir())

	t.Run("deterministic", func(t *testing.T) {
		again, _, second := writeReal(t, ingestReal(t), t.TempDir()) // an ingest of its own
		if !bytes.Equal(first, second) || again.Version != ds.Version {
			t.Fatalf("two builds from the same inputs differ (versions %s, %s)", ds.Version, again.Version)
		}
	})

	t.Run("municipalities", func(t *testing.T) {
		if ds.Len() != 1741 || ds.Meta.Municipalities != 1741 {
			t.Fatalf("%d rows, meta says %d; want 1741", ds.Len(), ds.Meta.Municipalities)
		}
		seen := map[string]bool{}
		for i := range ds.Len() {
			c := ds.Code(i)
			if seen[c] || len(c) != 5 {
				t.Fatalf("row %d: code %q duplicated or malformed", i, c)
			}
			seen[c] = true
		}
		if len(ds.Meta.Prefectures) != 47 {
			t.Errorf("%d prefectures, want 47", len(ds.Meta.Prefectures))
		}
	})

	// Expected figures were read off the raw files by hand (see the comments).
	t.Run("spot values", func(t *testing.T) {
		sapporo := municipality(t, ds, "01100")
		if sapporo.Name != "札幌市" || sapporo.Kana != "さっぽろし" || sapporo.Prefecture != (hensachi.Prefecture{Code: "01", Name: "北海道"}) {
			t.Errorf("01100 is %s (%s) in %+v", sapporo.Name, sapporo.Kana, sapporo.Prefecture)
		}
		if k := municipality(t, ds, "13101").Kana; k != "ちよだく" { // code list: ﾁﾖﾀﾞｸ
			t.Errorf("13101 reads %q", k)
		}
		checkStat(t, sapporo, "pop", 1973395)    // SSDSE A1101
		checkStat(t, sapporo, "area", 1121.26)   // B1101 112126 ha
		checkStat(t, sapporo, "density", 1760.0) // 1973395 / 1121.26
		checkStat(t, sapporo, "jobless", 4.65)   // 41269 / (845953 + 41269)
		checkAxis(t, sapporo, "young", 10.91)    // 215366 / 1973395
		checkAxis(t, sapporo, "daytime", 100)    // portal A:昼夜間人口比率
		checkAxis(t, sapporo, "income", 341.0)   // 3132498640 千円 / 918653 人, 2023年度
		f := sapporo.Furusato
		want := hensachi.Furusato{
			ReceiptsYen: hensachi.Some[int64](3904088764), ReceiptsCount: hensachi.Some[int64](208028),
			DeductionsYen: hensachi.Some[int64](10026144518), // 10026144517.68 yen
			BalanceYen:    hensachi.Some[int64](3904088764 - 10026144518),
		}
		if f.ReceiptsYen != want.ReceiptsYen || f.ReceiptsCount != want.ReceiptsCount || f.DeductionsYen != want.DeductionsYen || f.BalanceYen != want.BalanceYen || f.DeductionDonors.Valid {
			t.Errorf("Sapporo furusato = %+v, want %+v", f, want)
		}
		// FY2015–2018 from data.json (千円); FY2019–2024 from the yen file, rounded to 千円
		history := []int64{106100, 364428, 331472, 505546, 456499, 613985, 1151605, 1741318, 3124976, 3904089}
		for i, v := range f.HistoryThousandYen {
			if !v.Valid || v.V != history[i] {
				t.Errorf("Sapporo history[%d] = %+v, want %d", i, v, history[i])
			}
		}
		chiyoda := municipality(t, ds, "13101")
		checkAxis(t, chiyoda, "daytime", 1355.4)
		checkStat(t, chiyoda, "fiscal", 0.87)
		if chiyoda.Scores[hensachi.AxisIndex("daytime")].Rank != 1 {
			t.Errorf("千代田区 daytime rank %d, want 1", chiyoda.Scores[hensachi.AxisIndex("daytime")].Rank)
		}
		if takarazuka := municipality(t, ds, "28214"); takarazuka.Furusato.ReceiptsRank != 1 {
			t.Errorf("宝塚市 FY2024 receipts rank %d, want 1", takarazuka.Furusato.ReceiptsRank)
		}
	})

	t.Run("nulls only where the report explains them", func(t *testing.T) {
		allowed := map[string]func(code string) bool{
			"recycle": func(code string) bool { return strings.HasPrefix(code, "131") }, // the 23 wards
		}
		const futaba = "07546" // no residents in the 2020 census: every per-person figure is null
		// the 2020 census counted under half the registered residents (evacuation orders): every
		// rate over the census population is null (富岡町, 大熊町, 浪江町, 葛尾村, 飯舘村)
		evacuated := []string{"07543", "07545", "07547", "07548", "07564"}
		overCensus := []string{"young", "shops", "doctor", "inflow", "daytime", "old", "single", "foreign", "birth", "marry"}
		explained := func(code, key string) bool {
			return code == futaba || slices.Contains(evacuated, code) && slices.Contains(overCensus, key)
		}
		for i := range ds.Len() {
			m := ds.Municipality(i)
			for a, s := range m.Scores {
				key := hensachi.Axes[a].Key
				if !s.Value.Valid && !explained(m.Code, key) {
					t.Errorf("%s %s: axis %s is null", m.Code, m.Name, key)
				}
			}
			for s, v := range m.Stats {
				key := hensachi.Stats[s].Key
				if ok := allowed[key]; !v.Valid && !explained(m.Code, key) && (ok == nil || !ok(m.Code)) {
					t.Errorf("%s %s: stat %s is null", m.Code, m.Name, key)
				}
			}
		}
		if n := res.Report.Nulls("recycle"); n != 23 {
			t.Errorf("report: recycle null for %d, want 23", n)
		}
	})

	t.Run("deviation scores", func(t *testing.T) {
		for a, axis := range hensachi.Axes {
			var scores []hensachi.Score
			for i := range ds.Len() {
				if s := ds.Score(a, i); s.Value.Valid {
					scores = append(scores, s)
				}
			}
			if n := len(scores); n != ds.Meta.Axes[a].Count {
				t.Errorf("%s: %d ranked, meta count %d", axis.Key, n, ds.Meta.Axes[a].Count)
			}
			slices.SortFunc(scores, func(x, y hensachi.Score) int { return x.Rank - y.Rank })
			for i := 1; i < len(scores); i++ {
				prev, cur := scores[i-1], scores[i]
				switch {
				case prev.Value.V == cur.Value.V && (prev.Hensachi != cur.Hensachi || prev.Rank != cur.Rank):
					t.Errorf("%s: ties %v have ranks %d/%d and scores %v/%v", axis.Key, cur.Value.V, prev.Rank, cur.Rank, prev.Hensachi, cur.Hensachi)
				case prev.Value.V < cur.Value.V || prev.Hensachi < cur.Hensachi:
					t.Errorf("%s: rank %d (%v, %v) above rank %d (%v, %v)", axis.Key, prev.Rank, prev.Value.V, prev.Hensachi, cur.Rank, cur.Value.V, cur.Hensachi)
				}
			}
			top, bottom, mid := scores[0], scores[len(scores)-1], scores[len(scores)/2]
			if math.Abs(mid.Hensachi-50) > 0.2 {
				t.Errorf("%s: the middle municipality scores %v, want about 50", axis.Key, mid.Hensachi)
			}
			if top.Rank == 1 && scores[1].Rank == 2 && bottom.Rank == len(scores) && math.Abs(top.Hensachi+bottom.Hensachi-100) > 0.11 {
				t.Errorf("%s: top %v and bottom %v are not symmetric around 50", axis.Key, top.Hensachi, bottom.Hensachi)
			}
		}
	})

	t.Run("meta", func(t *testing.T) {
		years := ds.Meta.Furusato.History.FiscalYears
		if len(years) != 10 || years[0] != "平成27年度" || years[9] != "令和6年度" || ds.Meta.Furusato.Receipts.FiscalYear != "令和6年度" || ds.Meta.Furusato.Deductions.TaxYear != "令和7年度" {
			t.Errorf("furusato years: history %v, receipts %s, deductions %s", years, ds.Meta.Furusato.Receipts.FiscalYear, ds.Meta.Furusato.Deductions.TaxYear)
		}
		for _, a := range ds.Meta.Axes {
			if a.Source == "" || !(a.Min <= a.Median && a.Median <= a.Max) {
				t.Errorf("axis %s: source %q, min %v median %v max %v", a.Key, a.Source, a.Min, a.Median, a.Max)
			}
		}
		for _, s := range ds.Meta.Stats {
			if !strings.ContainsAny(s.Source, "0123456789") {
				t.Errorf("stat %s: source %q names no survey year", s.Key, s.Source)
			}
		}
	})
}

func municipality(t *testing.T, ds *dataset.Dataset, code string) hensachi.Municipality {
	t.Helper()
	i := ds.Index(code)
	if i < 0 {
		t.Fatalf("no municipality %s", code)
	}
	return ds.Municipality(i)
}

func checkStat(t *testing.T, m hensachi.Municipality, key string, want float64) {
	t.Helper()
	if v := m.Stats[hensachi.StatIndex(key)]; !v.Valid || v.V != want {
		t.Errorf("%s %s = %+v, want %v", m.Name, key, v, want)
	}
}

func checkAxis(t *testing.T, m hensachi.Municipality, key string, want float64) {
	t.Helper()
	if v := m.Scores[hensachi.AxisIndex(key)].Value; !v.Valid || v.V != want {
		t.Errorf("%s %s = %+v, want %v", m.Name, key, v, want)
	}
}

// BenchmarkIngest measures the whole build: parse every source, rank, write the Arrow file.
func BenchmarkIngest(b *testing.B) {
	out := filepath.Join(b.TempDir(), "dataset.arrow")
	for b.Loop() {
		res := ingestReal(b)
		if _, err := dataset.Write(out, res.Municipalities, res.Meta, dataset.WithIndicators(res.Indicators, res.IndicatorValues)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpen measures opening the real dataset, as the server does at start and on every swap:
// map, check every column and the content checksum.
func BenchmarkOpen(b *testing.B) {
	dir := b.TempDir()
	buildReal(b, dir)
	path := filepath.Join(dir, "dataset.arrow")
	for b.Loop() {
		ds, err := dataset.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		ds.Close()
	}
}
