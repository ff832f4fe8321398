package ingest

import (
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/geo"
)

// Result is the dataset before ranking: every municipality with its figures, the meta document
// without the per-axis summaries, the indicator catalogue with its years (without their summaries)
// and values, the boundaries once added, and the report of what is null and why.
type Result struct {
	Municipalities  []hensachi.Municipality
	Meta            hensachi.Meta
	Indicators      hensachi.IndicatorCatalogue
	IndicatorValues hensachi.IndicatorValues
	// ItemNames name the items the catalogue's formulas take, keyed as a formula writes them
	// (A4101: 出生数, finance.財政力指数, jumin.population), for the pages to show the formulas in words.
	ItemNames      map[string]string
	Report         *Report
	HashMismatches []HashMismatch
	// UnmatchedCoreCities are the 中核市 of core_cities.json that the code list does not hold
	// under their code and name, which are therefore classed as 都市 (a test's code list of a
	// few invented municipalities holds none; the real one must hold all).
	UnmatchedCoreCities []CoreCity
	// Boundaries are the municipalities' boundaries (AddBoundaries), nil without usable files;
	// Meta.Boundaries describes them, or says why there are none.
	Boundaries *geo.Boundaries
}

// SSDSE-A item codes the fields are computed from.
const (
	colPopulation = "A1101"
	colJapanese   = "A1102"
	colUnder15    = "A1301"
	colOver65     = "A1303"
	colForeigners = "A1700"
	colBirths     = "A4101"
	colInMovers   = "A5101"
	colOutMovers  = "A5102"
	colHouseholds = "A710101"
	colSingles    = "A810105"
	colMarriages  = "A9101"
	colAreaHa     = "B1101"
	colWorkers    = "F1102"
	colUnemployed = "F1107"
	colPrimary    = "F2201"
	colLibraries  = "G1401"
	colRetail     = "H6130"
	colEateries   = "H6131"
	colHospitals  = "I510120"
	colDoctors    = "I6100"
	colNurseries  = "J250302"
)

// ssdseSurveys names the survey behind each SSDSE-A column used.
var ssdseSurveys = map[string]string{
	colPopulation: "国勢調査", colJapanese: "国勢調査", colUnder15: "国勢調査", colOver65: "国勢調査", colForeigners: "国勢調査",
	colHouseholds: "国勢調査", colSingles: "国勢調査", colWorkers: "国勢調査", colUnemployed: "国勢調査",
	colPrimary: "国勢調査", colBirths: "人口動態統計", colMarriages: "人口動態統計",
	colInMovers: "住民基本台帳人口移動報告", colOutMovers: "住民基本台帳人口移動報告",
	colAreaHa: "全国都道府県市区町村別面積調", colLibraries: "社会教育調査",
	colRetail: "経済センサス‐活動調査", colEateries: "経済センサス‐活動調査",
	colHospitals: "医療施設調査", colDoctors: "医師・歯科医師・薬剤師統計", colNurseries: "社会福祉施設等調査",
}

// Build reads every source in rawDir and assembles the municipalities and the indicators of the
// catalogue compiled into the binary (indicators.json), logging a progress line per step. A missing
// file or a malformed figure fails the build with the file, row and column, a fault of the
// catalogue with its entry and field.
func Build(rawDir string, log *slog.Logger) (*Result, error) {
	inds, err := LoadIndicators()
	if err != nil {
		return nil, err
	}
	return BuildIndicators(rawDir, log, inds)
}

// BuildIndicators is Build with another indicator catalogue, such as a test's for its fixture
// sources; each entry must pass the checks LoadIndicators makes.
func BuildIndicators(rawDir string, log *slog.Logger, inds []hensachi.Indicator) (*Result, error) {
	man, mismatches, err := checkSources(rawDir, log)
	if err != nil {
		return nil, err
	}
	parsed, err := parseSources(rawDir, man, log)
	if err != nil {
		return nil, err
	}
	res, err := assemble(man, parsed, inds, log)
	if err != nil {
		return nil, err
	}
	res.HashMismatches = mismatches
	return res, nil
}

// checkSources loads the manifest and compares the files in rawDir with its hashes. A file that
// differs is warned about and read all the same.
func checkSources(rawDir string, log *slog.Logger) (*Manifest, []HashMismatch, error) {
	start := time.Now()
	man, err := LoadManifest()
	if err != nil {
		return nil, nil, err
	}
	mismatches, err := man.Check(rawDir)
	if err != nil {
		return nil, nil, err
	}
	for _, m := range mismatches {
		log.Warn("source file differs from the manifest", "file", m.Path, "sha256", m.Got, "expected", m.Want)
	}
	log.Info("checked sources", "files", len(man.Sources), "hash_mismatches", len(mismatches), "took", since(start))
	return man, mismatches, nil
}

// parsedSources is every source file, parsed: the code list, the tables the axes and statistics
// are derived from, and the hometown-tax tables.
type parsedSources struct {
	codeList                                            *CodeList
	fields                                              fieldTables
	furusatoDetail, furusatoHistory, furusatoDeductions *Table
	deductionSource                                     DeductionSource
	// ssdse, finance and jumin are the files of the three series, oldest first; fields.ssdse and
	// fields.finance are among them.
	ssdse, finance, jumin []edition
	// financeMatches say how the rows of each finance list of FY2005–FY2015 (.xls) were matched,
	// in the order of finance; nil for the others.
	financeMatches []*FinanceMatch
}

// tableParser reads one source file into a table of the code list's municipalities.
type tableParser func(file string, r io.Reader, cl *CodeList) (*Table, error)

// parseSources parses the code list, then every other source against it, as many at a time as
// there are processors; a failure is reported for the first failing source in the manifest's order,
// so that the same inputs always give the same error.
func parseSources(rawDir string, man *Manifest, log *slog.Logger) (*parsedSources, error) {
	cl, err := parseSource(rawDir, man.Source("codes"), log, ParseCodeList, func(cl *CodeList) int { return len(cl.Entries) })
	if err != nil {
		return nil, err
	}
	p := &parsedSources{codeList: cl}
	// a job parses one source into its place in p
	type job struct {
		src   Source
		parse tableParser
		into  **Table
	}
	var jobs []job
	series := func(name string, into *[]edition, parse func(src Source) tableParser) {
		*into = make([]edition, len(man.Series(name)))
		for i, src := range man.Series(name) {
			(*into)[i].source = src
			jobs = append(jobs, job{src, parse(src), &(*into)[i].table})
		}
	}
	fieldColumns := slices.Sorted(maps.Keys(ssdseSurveys))
	series("ssdse", &p.ssdse, func(src Source) tableParser {
		var required []string // the columns the fields are computed from, in the edition they read
		if src.ID == "ssdse" {
			required = fieldColumns
		}
		return func(file string, r io.Reader, cl *CodeList) (*Table, error) {
			return ParseSSDSE(file, r, cl, required...)
		}
	})
	p.financeMatches = make([]*FinanceMatch, len(man.Series("finance")))
	k := 0 // the file's place in the series
	series("finance", &p.finance, func(src Source) tableParser {
		match := &p.financeMatches[k]
		k++
		if !strings.HasSuffix(src.Path, ".xls") {
			return func(file string, r io.Reader, cl *CodeList) (*Table, error) {
				return ParseFinance(file, r, cl, src.Year)
			}
		}
		return func(file string, r io.Reader, cl *CodeList) (t *Table, err error) {
			t, *match, err = ParseFinanceXLS(file, r, cl, src.Year)
			return t, err
		}
	})
	series("jumin", &p.jumin, func(src Source) tableParser {
		return func(file string, r io.Reader, cl *CodeList) (*Table, error) {
			return ParseJumin(file, r, cl, src.Year)
		}
	})
	for _, t := range []struct {
		id    string // the source's id in the manifest
		into  **Table
		parse tableParser
	}{
		{"portal", &p.fields.portal, ParsePortal},
		{"ssds", &p.fields.ssds, ParseSSDS},
		{"furusato_detail", &p.furusatoDetail, ParseFurusatoDetail},
		{"furusato_history", &p.furusatoHistory, ParseFurusatoHistory},
		{"furusato_deductions", &p.furusatoDeductions, func(file string, r io.Reader, cl *CodeList) (t *Table, err error) {
			t, p.deductionSource, err = ParseFurusatoDeductions(file, r, cl)
			return t, err
		}},
	} {
		jobs = append(jobs, job{man.Source(t.id), t.parse, t.into})
	}
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	for n, j := range jobs {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			parse := func(file string, r io.Reader) (*Table, error) { return j.parse(file, r, cl) }
			*j.into, errs[n] = parseSource(rawDir, j.src, log, parse, (*Table).Len)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	for _, ed := range p.ssdse {
		if ed.source.ID == "ssdse" {
			p.fields.ssdse = ed.table
		}
	}
	for _, ed := range p.finance {
		if ed.source.ID == "finance" {
			p.fields.finance = ed.table
		}
	}
	return p, nil
}

// parseSource opens one source file and runs its parser, logging how many municipalities it read
// (count) and the time it took.
func parseSource[T any](rawDir string, s Source, log *slog.Logger, parse func(file string, r io.Reader) (T, error), count func(T) int) (T, error) {
	start := time.Now()
	var none T
	f, err := os.Open(filepath.Join(rawDir, s.Path))
	if err != nil {
		return none, fmt.Errorf("source %s: %w", s.ID, err)
	}
	defer f.Close()
	parsed, err := parse(s.Path, f)
	if err != nil {
		return none, err
	}
	log.Info("parsed source", "file", s.Path, "municipalities", count(parsed), "took", since(start))
	return parsed, nil
}

// assemble derives every municipality's axes, statistics and hometown-tax figures from the parsed
// sources, recording each null and why in the report, and writes the meta document.
func assemble(man *Manifest, parsed *parsedSources, inds []hensachi.Indicator, log *slog.Logger) (*Result, error) {
	axes, stats := parsed.fields.axes(), parsed.fields.stats()
	fu, err := newFurusatoTables(man, parsed.furusatoDetail, parsed.furusatoHistory, parsed.furusatoDeductions, parsed.deductionSource)
	if err != nil {
		return nil, err
	}
	report := newReport(parsed.codeList)
	res := &Result{Report: report}
	start := time.Now()
	ssdse, disagreements, breaks, err := ssdseSeries(parsed.ssdse, parsed.codeList, man)
	if err != nil {
		return nil, err
	}
	report.disagreements, report.breaks, report.renamed = disagreements, breaks, man.RenamedItems
	for i, m := range parsed.financeMatches {
		if m != nil {
			report.finance = append(report.finance, financeReport{match: m, file: parsed.finance[i].source.Path})
		}
	}
	panel := newItemPanel(ssdse, parsed.ssdse, breaks, financeSeries(parsed.finance), parsed.fields.portal, furusatoSeries(fu), juminSeries(parsed.jumin))
	ev := panel.evacuation(parsed.codeList)
	if res.Indicators, res.IndicatorValues, err = buildIndicators(inds, panel, parsed.codeList, report, ev); err != nil {
		return nil, err
	}
	res.ItemNames = panel.itemNames(inds)
	log.Info("assembled indicators", "count", len(res.Indicators.Indicators), "disagreements", len(disagreements), "took", since(start))
	core, err := LoadCoreCities()
	if err != nil {
		return nil, err
	}
	peers, err := panel.classifyPeers(parsed.codeList, core, ev)
	if err != nil {
		return nil, err
	}
	res.UnmatchedCoreCities = peers.unmatched
	for _, c := range peers.unmatched {
		log.Warn("a 中核市 of core_cities.json is not in the code list under its code and name; classed by its census figures", "code", c.Code, "name", c.Name)
	}

	start = time.Now()
	fromIndicators := statsOfIndicators(stats, res, len(parsed.codeList.Entries))
	census, _ := strconv.Atoi(parsed.fields.ssdse.Years[colPopulation])
	evacuated := ev[census]
	// a rate over the census population is not the municipality's where the census counted under
	// half its registered residents: null, as the catalogue's census rates
	overCensus := func(d derivation, code string, f figure) figure {
		if why, ok := evacuated[code]; ok && d.overCensus && f.why == "" {
			return figure{why: why}
		}
		return f
	}
	for row, e := range parsed.codeList.Entries {
		m := hensachi.Municipality{
			Code: e.Code, Name: e.Name, Kana: e.Kana, Prefecture: e.Prefecture,
			Scores: make([]hensachi.Score, len(axes)),
			Stats:  make([]hensachi.Optional[float64], len(stats)),
		}
		for i, d := range axes {
			m.Scores[i].Value = report.record(d.field.Key, e.Code, overCensus(d, e.Code, d.value(e.Code)), d.field.Decimals)
		}
		for i, d := range stats {
			var f figure
			if values := fromIndicators[i]; values != nil {
				f = values[row]
			} else {
				f = overCensus(d, e.Code, d.value(e.Code))
			}
			m.Stats[i] = report.record(d.field.Key, e.Code, f, d.field.Decimals)
		}
		m.Furusato = fu.municipality(e.Code, report)
		m.PeerGroup = peers.latest[e.Code]
		res.Municipalities = append(res.Municipalities, m)
	}
	res.Meta = meta(man, parsed.codeList, axes, stats, fu)
	res.Meta.PeerGroups = peers.groups
	if len(evacuated) > 0 {
		res.Meta.Note += ev.sentence(census, parsed.codeList)
	}
	log.Info("assembled municipalities", "count", len(res.Municipalities), "took", since(start))

	return res, nil
}

// statsOfIndicators returns, for each statistic that is an indicator's value (derivation.indicator),
// that indicator's column in the statistic's survey year, as figures (a null with its reason); nil
// for the others. A catalogue without the indicator (a test's) leaves the statistic null, saying so.
func statsOfIndicators(stats []derivation, res *Result, rows int) [][]figure {
	out := make([][]figure, len(stats))
	for i, d := range stats {
		if d.indicator == "" {
			continue
		}
		out[i] = make([]figure, rows)
		in := d.inputs[0]
		year, _ := strconv.Atoi(in.t.Years[in.col])
		why := fmt.Sprintf("the catalogue has no indicator %s in %d", d.indicator, year)
		k := slices.IndexFunc(res.Indicators.Indicators, func(ind hensachi.Indicator) bool { return ind.Key == d.indicator })
		y := -1
		if k >= 0 {
			y = res.Indicators.Indicators[k].YearIndex(year)
		}
		for m := range out[i] {
			switch {
			case y < 0:
				out[i][m] = figure{why: why}
			case res.IndicatorValues[k][y][m].Valid:
				out[i][m] = figure{v: res.IndicatorValues[k][y][m].V}
			default:
				out[i][m] = figure{why: fmt.Sprintf("no value of indicator %s in %d (the ingest report says why)", d.indicator, year)}
			}
		}
	}
	return out
}

func since(t time.Time) string { return time.Since(t).Round(time.Millisecond).String() }

// figure is an intermediate value; why, when not empty, says why it does not exist.
type figure struct {
	v    float64
	why  string
	name string // the column or expression it came from, for messages
}

func ratio(num, den figure, scale float64) figure {
	switch {
	case num.why != "":
		return num
	case den.why != "":
		return den
	case den.v == 0:
		return figure{why: den.name + " is 0"}
	}
	return figure{v: num.v / den.v * scale}
}

// operator is an arithmetic step with the symbol messages show for it.
type operator struct {
	symbol string
	apply  func(x, y float64) float64
}

var (
	plus  = operator{"+", func(x, y float64) float64 { return x + y }}
	minus = operator{"−", func(x, y float64) float64 { return x - y }}
)

func combine(a, b figure, op operator) figure {
	if a.why != "" {
		return a
	}
	if b.why != "" {
		return b
	}
	return figure{v: op.apply(a.v, b.v), name: a.name + op.symbol + b.name}
}

// column is one input of a field: a table column and the survey it comes from.
type column struct {
	t      *Table
	col    string
	survey string
	period string // "年" or "年度", after the year
}

func (c column) at(code string) figure {
	cell := c.t.Get(code, c.col)
	if cell.Missing != "" {
		return figure{why: c.col + ": " + cell.Missing}
	}
	return figure{v: cell.V, name: c.col}
}

// derivation computes one axis or statistic and names its sources.
type derivation struct {
	field  hensachi.Field
	inputs []column
	value  func(code string) figure
	// indicator, when set, is the key of the indicator whose value in the survey year of the first
	// input the statistic is, computed by the catalogue's rules (its denominator, the evacuation
	// rule), so that one name never shows two figures; value is then unused.
	indicator string
	// overCensus marks a rate over the census population or households, which the evacuation rule
	// nulls where the census counted under half the registered residents (evacuation.go).
	overCensus bool
}

// source describes where a field comes from: each survey with its year, then the published files.
func (d derivation) source(man *Manifest) string {
	var surveys, files []string
	for _, in := range d.inputs {
		s := fmt.Sprintf("%s（%s%s）", in.survey, in.t.Years[in.col], in.period)
		if !slices.Contains(surveys, s) {
			surveys = append(surveys, s)
		}
		for _, src := range man.Sources {
			if src.Path == in.t.File && !slices.Contains(files, src.Title) {
				files = append(files, src.Title)
			}
		}
	}
	return strings.Join(surveys, "、") + "／" + strings.Join(files, "、")
}

// fieldTables are the tables the axes and statistics are derived from.
type fieldTables struct {
	ssdse, finance, portal, ssds *Table
}

func (s fieldTables) ssdseCol(col string) column {
	return column{t: s.ssdse, col: col, survey: ssdseSurveys[col], period: "年"}
}

// per returns a derivation of num/den×scale over SSDSE columns.
func (s fieldTables) per(key string, num, den string, scale float64) derivation {
	n, d := s.ssdseCol(num), s.ssdseCol(den)
	return derivation{field: fieldByKey(key), inputs: []column{n, d}, value: func(code string) figure {
		return ratio(n.at(code), d.at(code), scale)
	}, overCensus: den == colPopulation || den == colHouseholds}
}

// ofIndicator is a statistic that is an indicator's value in the survey year of the first of the
// SSDSE columns it is computed from (which name its sources in the meta).
func (s fieldTables) ofIndicator(key, indicator string, cols ...string) derivation {
	d := derivation{field: fieldByKey(key), indicator: indicator}
	for _, c := range cols {
		d.inputs = append(d.inputs, s.ssdseCol(c))
	}
	return d
}

func (s fieldTables) plain(key string, c column) derivation {
	return derivation{field: fieldByKey(key), inputs: []column{c}, value: c.at}
}

func (s fieldTables) axes() []derivation {
	pop := s.ssdseCol(colPopulation)
	retail, eateries := s.ssdseCol(colRetail), s.ssdseCol(colEateries)
	in, out := s.ssdseCol(colInMovers), s.ssdseCol(colOutMovers)
	income := column{t: s.portal, col: PortalTaxableIncome, survey: "市町村税課税状況等の調", period: "年度"}
	payers := column{t: s.portal, col: PortalTaxpayers, survey: "市町村税課税状況等の調", period: "年度"}
	daytime := column{t: s.portal, col: PortalDaytimeRatio, survey: "国勢調査", period: "年"}
	return []derivation{
		s.per("young", colUnder15, colPopulation, 100),
		{field: fieldByKey("shops"), inputs: []column{retail, eateries, pop}, value: func(code string) figure {
			return ratio(combine(retail.at(code), eateries.at(code), plus), pop.at(code), 10000)
		}, overCensus: true},
		s.per("doctor", colDoctors, colPopulation, 100000),
		// 課税対象所得 is in thousand yen; the axis is in ten-thousand yen per taxpayer.
		{field: fieldByKey("income"), inputs: []column{income, payers}, value: func(code string) figure {
			return ratio(income.at(code), payers.at(code), 1000.0/10000)
		}},
		{field: fieldByKey("inflow"), inputs: []column{in, out, pop}, value: func(code string) figure {
			return ratio(combine(in.at(code), out.at(code), minus), pop.at(code), 1000)
		}, overCensus: true},
		// The portal's ratio is the 2020 census's, but for a municipality without residents in that
		// census (双葉町) it carries an older census's ratio forward: a 2020 ratio has no denominator.
		{field: fieldByKey("daytime"), inputs: []column{daytime}, value: func(code string) figure {
			if p := pop.at(code); p.why == "" && p.v == 0 {
				return figure{why: "no residents in the 2020 census (" + p.name + " is 0), so no daytime population ratio; the source's figure is an older census's"}
			}
			return daytime.at(code)
		}, overCensus: true},
	}
}

func (s fieldTables) stats() []derivation {
	pop, area := s.ssdseCol(colPopulation), s.ssdseCol(colAreaHa)
	workers, unemployed := s.ssdseCol(colWorkers), s.ssdseCol(colUnemployed)
	fiscal := column{t: s.finance, col: financeFiscal, survey: "地方財政状況調査", period: ""}
	commuters := column{t: s.ssds, col: SSDSCommutersOut, survey: "国勢調査", period: "年"}
	ssdsWorkers := column{t: s.ssds, col: SSDSWorkers, survey: "国勢調査", period: "年"}
	recycle := column{t: s.ssds, col: SSDSRecyclingRate, survey: "一般廃棄物処理実態調査", period: "年度（推定）"}
	return []derivation{
		s.plain("pop", pop),
		// SSDSE gives the area in hectares.
		{field: fieldByKey("area"), inputs: []column{area}, value: func(code string) figure {
			return ratio(area.at(code), figure{v: 100, name: "100"}, 1)
		}},
		{field: fieldByKey("density"), inputs: []column{pop, area}, value: func(code string) figure {
			return ratio(pop.at(code), area.at(code), 100)
		}},
		s.per("old", colOver65, colPopulation, 100),
		s.per("single", colSingles, colHouseholds, 100),
		s.plain("fiscal", fiscal),
		s.per("foreign", colForeigners, colPopulation, 100),
		s.ofIndicator("birth", "births_per_1000", colBirths, colJapanese),
		s.ofIndicator("marry", "marriages_per_1000", colMarriages, colJapanese),
		s.plain("nursery", s.ssdseCol(colNurseries)),
		s.plain("library", s.ssdseCol(colLibraries)),
		s.plain("hospital", s.ssdseCol(colHospitals)),
		s.per("primary", colPrimary, colWorkers, 100),
		// The unemployment rate is over the labour force: the employed plus the unemployed.
		{field: fieldByKey("jobless"), inputs: []column{unemployed, workers}, value: func(code string) figure {
			return ratio(unemployed.at(code), combine(workers.at(code), unemployed.at(code), plus), 100)
		}},
		{field: fieldByKey("commute"), inputs: []column{commuters, ssdsWorkers}, value: func(code string) figure {
			return ratio(commuters.at(code), ssdsWorkers.at(code), 100)
		}},
		s.plain("recycle", recycle),
	}
}

func fieldByKey(key string) hensachi.Field {
	if i := hensachi.AxisIndex(key); i >= 0 {
		return hensachi.Axes[i]
	}
	if i := hensachi.StatIndex(key); i >= 0 {
		return hensachi.Stats[i]
	}
	panic("ingest: unknown field " + key)
}
