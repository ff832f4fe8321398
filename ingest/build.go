package ingest

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hensachi/hensachi"
)

// Result is the dataset before ranking: every municipality with its figures, the meta document
// without the per-axis summaries, and the report of what is null and why.
type Result struct {
	Municipalities []hensachi.Municipality
	Meta           hensachi.Meta
	Report         *Report
	HashMismatches []HashMismatch
}

// SSDSE-A item codes the fields are computed from.
const (
	colPopulation = "A1101"
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
	colPopulation: "国勢調査", colUnder15: "国勢調査", colOver65: "国勢調査", colForeigners: "国勢調査",
	colHouseholds: "国勢調査", colSingles: "国勢調査", colWorkers: "国勢調査", colUnemployed: "国勢調査",
	colPrimary: "国勢調査", colBirths: "人口動態統計", colMarriages: "人口動態統計",
	colInMovers: "住民基本台帳人口移動報告", colOutMovers: "住民基本台帳人口移動報告",
	colAreaHa: "全国都道府県市区町村別面積調", colLibraries: "社会教育調査",
	colRetail: "経済センサス‐活動調査", colEateries: "経済センサス‐活動調査",
	colHospitals: "医療施設調査", colDoctors: "医師・歯科医師・薬剤師統計", colNurseries: "社会福祉施設等調査",
}

// Build reads every source in rawDir and assembles the municipalities, logging a progress line per
// step. A missing file or a malformed figure fails the build with the file, row and column.
func Build(rawDir string, log *slog.Logger) (*Result, error) {
	start := time.Now()
	man, err := LoadManifest()
	if err != nil {
		return nil, err
	}
	mismatches, err := man.Check(rawDir)
	if err != nil {
		return nil, err
	}
	for _, m := range mismatches {
		log.Warn("source file differs from the manifest", "file", m.Path, "sha256", m.Got, "expected", m.Want)
	}
	log.Info("checked sources", "files", len(man.Sources), "hash_mismatches", len(mismatches), "took", since(start))

	var cl *CodeList
	if err := parseSource(rawDir, man.Source("codes"), log, func(file string, r io.Reader) (int, error) {
		var err error
		cl, err = ParseCodeList(file, r)
		if err != nil {
			return 0, err
		}
		return len(cl.Entries), nil
	}); err != nil {
		return nil, err
	}
	table := func(id string, parse func(file string, r io.Reader, cl *CodeList) (*Table, error)) (*Table, error) {
		var t *Table
		err := parseSource(rawDir, man.Source(id), log, func(file string, r io.Reader) (int, error) {
			var err error
			t, err = parse(file, r, cl)
			if err != nil {
				return 0, err
			}
			return t.Len(), nil
		})
		return t, err
	}
	ssdseCols := make([]string, 0, len(ssdseSurveys))
	for c := range ssdseSurveys {
		ssdseCols = append(ssdseCols, c)
	}
	slices.Sort(ssdseCols)
	ssdse, err := table("ssdse", func(file string, r io.Reader, cl *CodeList) (*Table, error) {
		return ParseSSDSE(file, r, cl, ssdseCols...)
	})
	if err != nil {
		return nil, err
	}
	finance, err := table("finance", ParseFinance)
	if err != nil {
		return nil, err
	}
	portal, err := table("portal", ParsePortal)
	if err != nil {
		return nil, err
	}
	ssds, err := table("ssds", ParseSSDS)
	if err != nil {
		return nil, err
	}
	detail, err := table("furusato_detail", ParseFurusatoDetail)
	if err != nil {
		return nil, err
	}
	history, err := table("furusato_history", ParseFurusatoHistory)
	if err != nil {
		return nil, err
	}
	var dedSrc DeductionSource
	deductions, err := table("furusato_deductions", func(file string, r io.Reader, cl *CodeList) (*Table, error) {
		t, src, err := ParseFurusatoDeductions(file, r, cl)
		dedSrc = src
		return t, err
	})
	if err != nil {
		return nil, err
	}

	step := time.Now()
	src := sources{man: man, ssdse: ssdse, finance: finance, portal: portal, ssds: ssds}
	axes, stats := src.axes(), src.stats()
	fu, err := newFurusatoSources(man, detail, history, deductions, dedSrc)
	if err != nil {
		return nil, err
	}
	report := newReport(cl)
	res := &Result{Report: report, HashMismatches: mismatches}
	for _, e := range cl.Entries {
		m := hensachi.Municipality{
			Code: e.Code, Name: e.Name, Kana: e.Kana, Prefecture: e.Prefecture,
			Scores: make([]hensachi.Score, len(axes)),
			Stats:  make([]hensachi.Optional[float64], len(stats)),
		}
		for i, d := range axes {
			m.Scores[i].Value = report.record(d.field.Key, e.Code, d.value(e.Code), d.field.Decimals)
		}
		for i, d := range stats {
			m.Stats[i] = report.record(d.field.Key, e.Code, d.value(e.Code), d.field.Decimals)
		}
		m.Furusato = fu.municipality(e.Code, report)
		res.Municipalities = append(res.Municipalities, m)
	}
	res.Meta = meta(man, cl, axes, stats, fu)
	log.Info("assembled municipalities", "count", len(res.Municipalities), "took", since(step))
	return res, nil
}

// parseSource opens one source file and runs its parser, logging the count and time it took.
func parseSource(rawDir string, s Source, log *slog.Logger, parse func(file string, r io.Reader) (int, error)) error {
	start := time.Now()
	f, err := os.Open(filepath.Join(rawDir, s.Path))
	if err != nil {
		return fmt.Errorf("source %s: %w", s.ID, err)
	}
	defer f.Close()
	n, err := parse(s.Path, f)
	if err != nil {
		return err
	}
	log.Info("parsed source", "file", s.Path, "municipalities", n, "took", since(start))
	return nil
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

type sources struct {
	man                          *Manifest
	ssdse, finance, portal, ssds *Table
}

func (s sources) ssdseCol(col string) column {
	return column{t: s.ssdse, col: col, survey: ssdseSurveys[col], period: "年"}
}

// per returns a derivation of num/den×scale over SSDSE columns.
func (s sources) per(key string, num, den string, scale float64) derivation {
	n, d := s.ssdseCol(num), s.ssdseCol(den)
	return derivation{field: fieldByKey(key), inputs: []column{n, d}, value: func(code string) figure {
		return ratio(n.at(code), d.at(code), scale)
	}}
}

func (s sources) plain(key string, c column) derivation {
	return derivation{field: fieldByKey(key), inputs: []column{c}, value: c.at}
}

func (s sources) axes() []derivation {
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
		}},
		s.per("doctor", colDoctors, colPopulation, 100000),
		// 課税対象所得 is in thousand yen; the axis is in ten-thousand yen per taxpayer.
		{field: fieldByKey("income"), inputs: []column{income, payers}, value: func(code string) figure {
			return ratio(income.at(code), payers.at(code), 1000.0/10000)
		}},
		{field: fieldByKey("inflow"), inputs: []column{in, out, pop}, value: func(code string) figure {
			return ratio(combine(in.at(code), out.at(code), minus), pop.at(code), 1000)
		}},
		s.plain("daytime", daytime),
	}
}

func (s sources) stats() []derivation {
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
		s.per("birth", colBirths, colPopulation, 1000),
		s.per("marry", colMarriages, colPopulation, 1000),
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
