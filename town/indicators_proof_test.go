package town_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/compute"
	"github.com/hensachi/hensachi/internal/testrig/rawfiles"
	"github.com/hensachi/hensachi/internal/testrig/realdata"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

// servedIndicators is what the service serves of the indicator catalogue, as far as the proof
// needs it.
type servedIndicators interface {
	Catalogue() []hensachi.Indicator // the entries with their years
	Codes() []string                 // the municipalities, in the order values are given
	// Value is an indicator's value for a municipality in a survey year; ok is false for a null.
	Value(key string, year int, code string) (v float64, ok bool)
	// Standing is a municipality's rank and deviation score on an indicator in a survey year.
	Standing(key string, year int, code string) (rank int, hensachi float64, ok bool)
}

// builtIndicators reads the catalogue from the dataset as ingest builds it (realdata.Built), and
// ranks it with package compute's method, the one the service states for the axes.
// TODO(ind-core): serve it from the town read model once it has the indicators, so that the proof
// compares what the API and the pages answer, ranks included.
type builtIndicators struct {
	cat    []hensachi.Indicator
	values hensachi.IndicatorValues
	codes  []string
	index  map[string]int
	ranked map[string]map[string][2]float64 // key/year → code → rank, score
}

func newBuiltIndicators(t *testing.T) *builtIndicators {
	res := realdata.Built(t)
	b := &builtIndicators{cat: res.Indicators.Indicators, values: res.IndicatorValues, index: map[string]int{}, ranked: map[string]map[string][2]float64{}}
	for _, m := range res.Municipalities {
		b.codes = append(b.codes, m.Code)
	}
	for i, ind := range b.cat {
		b.index[ind.Key] = i
	}
	return b
}

func (b *builtIndicators) Catalogue() []hensachi.Indicator { return b.cat }
func (b *builtIndicators) Codes() []string                 { return b.codes }

func (b *builtIndicators) column(key string, year int) []hensachi.Optional[float64] {
	i, ok := b.index[key]
	if !ok {
		return nil
	}
	k := b.cat[i].YearIndex(year)
	if k < 0 {
		return nil
	}
	return b.values[i][k]
}

func (b *builtIndicators) Value(key string, year int, code string) (float64, bool) {
	col := b.column(key, year)
	m, found := slices.BinarySearch(b.codes, code)
	if col == nil || !found || !col[m].Valid {
		return 0, false
	}
	return col[m].V, true
}

func (b *builtIndicators) Standing(key string, year int, code string) (int, float64, bool) {
	id := fmt.Sprint(key, "/", year)
	if b.ranked[id] == nil {
		var ranked []string
		var values []float64
		for m, v := range b.column(key, year) {
			if v.Valid {
				ranked = append(ranked, b.codes[m])
				values = append(values, v.V)
			}
		}
		r := compute.Rank(values)
		b.ranked[id] = map[string][2]float64{}
		for j, c := range ranked {
			b.ranked[id][c] = [2]float64{float64(r.Rank[j]), compute.RoundHensachi(compute.Hensachi(r.MidRank[j], len(values)))}
		}
	}
	s, ok := b.ranked[id][code]
	return int(s[0]), s[1], ok
}

// proofSeed fixes the draw, so that a failure names triples that the next run draws again.
const proofSeed = 20261126

// TestIndicatorsAgainstRawFiles is the catalogue's proof: it recomputes indicators straight from
// the raw files, by readers and rules of its own (package rawfiles, which shares no code with
// ingest), and holds what the service serves against them: every indicator's survey years, at
// least 1,000 (municipality, indicator, year) values drawn at random over all indicators and
// years, and for a sample of indicator-years the whole ranking, rank and deviation score of every
// municipality.
func TestIndicatorsAgainstRawFiles(t *testing.T) {
	raw := testenv.Shared(t, "data/raw")
	src, err := rawfiles.ReadSources(raw, financeLists(t))
	if err != nil {
		t.Fatal(err)
	}
	var served servedIndicators = newBuiltIndicators(t)
	codes := served.Codes()
	if want := len(src.Codes.Entries); len(codes) != want {
		t.Fatalf("the service has %d municipalities, the code list %d", len(codes), want)
	}

	type pair struct {
		ind  hensachi.Indicator
		year int
	}
	var pairs []pair
	for _, ind := range served.Catalogue() {
		var servedYears []int
		for _, y := range ind.Years {
			servedYears = append(servedYears, y.Year)
			pairs = append(pairs, pair{ind, y.Year})
		}
		if want := yearsWithValues(src, ind, codes); !slices.Equal(servedYears, want) {
			t.Errorf("%s: served for years %v, the raw files give values for %v", ind.Key, servedYears, want)
		}
	}
	if len(pairs) == 0 {
		t.Fatal("the service has no indicator-years")
	}

	rng := rand.New(rand.NewPCG(proofSeed, 1))
	const want = 1500
	compared, unknown, nulls, failures := 0, 0, 0, 0
	hit := map[string]bool{}
	for compared < want && unknown < 10*want {
		p := pairs[rng.IntN(len(pairs))]
		code := codes[rng.IntN(len(codes))]
		mine, exact, st := src.Recompute(p.ind, p.year, code)
		if st == rawfiles.Unknown {
			unknown++
			continue
		}
		compared++
		hit[p.ind.Key] = true
		got, ok := served.Value(p.ind.Key, p.year, code)
		switch {
		case st == rawfiles.None && ok:
			failures++
			t.Errorf("%s %d %s: served %v, the raw files give no value", p.ind.Key, p.year, code, got)
		case st == rawfiles.None:
			nulls++
		case !ok:
			failures++
			t.Errorf("%s %d %s: served null, the raw files give %v (%s)", p.ind.Key, p.year, code, mine, explain(src, p.ind, p.year, code))
		case !agrees(got, mine, exact, p.ind.Decimals):
			failures++
			t.Errorf("%s %d %s: served %v, the raw files give %v (%s)", p.ind.Key, p.year, code, got, mine, explain(src, p.ind, p.year, code))
		}
		if failures > 20 {
			t.Fatal("more than 20 values differ; stopping")
		}
	}
	if compared < 1000 {
		t.Errorf("compared %d values, want at least 1,000 (%d draws fell on figures the raw readers cannot place)", compared, unknown)
	}
	t.Logf("compared %d values (%d of them nulls) of %d indicators over %d indicator-years; %d draws skipped as unplaceable",
		compared, nulls, len(hit), len(pairs), unknown)

	ranked := 0
	for ranked < 30 {
		p := pairs[rng.IntN(len(pairs))]
		column, ok := recomputeColumn(src, p.ind, p.year, codes)
		if !ok || len(column) < 2 {
			continue // a figure the raw readers cannot place would move every rank below it
		}
		ranked++
		for code, want := range rawfiles.Rank(column) {
			rank, h, ok := served.Standing(p.ind.Key, p.year, code)
			if !ok || rank != want.Rank || h != want.Hensachi {
				t.Errorf("%s %d %s: served rank %d, score %v (present: %t); recomputed rank %d of %d, score %v",
					p.ind.Key, p.year, code, rank, h, ok, want.Rank, len(column), want.Hensachi)
			}
		}
	}
}

// financeLists are the lists of financial indicators the dataset declares it is built from: the
// proof recomputes the years the service claims to have, from the same files.
func financeLists(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "ingest", "sources.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Sources []struct {
			Path   string `json:"path"`
			Series string `json:"series"`
		} `json:"sources"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var lists []string
	for _, s := range m.Sources {
		if s.Series == "finance" {
			lists = append(lists, s.Path)
		}
	}
	if len(lists) == 0 {
		t.Fatal("ingest/sources.json lists no finance series")
	}
	return lists
}

// yearsWithValues are the survey years of an indicator in which some municipality has a value.
func yearsWithValues(src *rawfiles.Sources, ind hensachi.Indicator, codes []string) []int {
	var out []int
	for _, y := range src.IndicatorYears(ind) {
		if slices.ContainsFunc(codes, func(c string) bool {
			_, _, st := src.Recompute(ind, y, c)
			return st == rawfiles.Have
		}) {
			out = append(out, y)
		}
	}
	return out
}

// recomputeColumn recomputes an indicator-year for every municipality; ok is false when one of
// them cannot be placed.
func recomputeColumn(src *rawfiles.Sources, ind hensachi.Indicator, year int, codes []string) (map[string]float64, bool) {
	col := map[string]float64{}
	for _, c := range codes {
		v, _, st := src.Recompute(ind, year, c)
		switch st {
		case rawfiles.Unknown:
			return nil, false
		case rawfiles.Have:
			col[c] = v
		}
	}
	return col, true
}

// agrees reports whether a served value is the recomputed one: equal once rounded, or, where the
// exact value lies on the rounding boundary up to floating-point error, either neighbour.
func agrees(served, rounded, exact float64, decimals int) bool {
	if served == rounded {
		return true
	}
	step := math.Pow10(-decimals)
	half := exact*math.Pow10(decimals) - math.Floor(exact*math.Pow10(decimals))
	return math.Abs(half-0.5) < 1e-6 && math.Abs(served-rounded) <= step*1.000001
}

// explain shows the items a recomputed value came from, for a failure's message.
func explain(src *rawfiles.Sources, ind hensachi.Indicator, year int, code string) string {
	f := ind.Formula
	s := ""
	for _, it := range slices.Concat(f.Items, f.Numerator, f.Minus) {
		v, st := src.Value(it, year, code)
		s += fmt.Sprintf("%s@%d=%v/%d ", it, year, v, st)
	}
	for _, it := range f.Denominator {
		y := src.Years(it)
		at := y[0]
		for _, yy := range y {
			if yy <= year {
				at = yy
			}
		}
		v, st := src.Value(it, at, code)
		s += fmt.Sprintf("%s@%d=%v/%d ", it, at, v, st)
	}
	return s
}
