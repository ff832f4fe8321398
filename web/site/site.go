package site

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/town"
	"github.com/hensachi/hensachi/web/page"
)

// Deps are what the public pages read.
type Deps struct {
	PublicURL string // where users reach the server, e.g. https://hensachi.example
	Towns     Towns  // nil: no statistics pages (landing, search, municipalities, rankings, prefectures)
	OpenAPI   []byte // the server's openapi.json, rendered at /docs; nil: no documentation page
}

// Towns gives the pages the dataset being served.
type Towns interface {
	// Catalog returns the read model of the dataset being served. It holds its own copies, so a
	// page keeps reading it when a new dataset swaps in.
	Catalog() (*town.Catalog, error)
}

// Site serves the public pages.
type Site struct {
	deps    Deps
	apiDocs docsPage
}

//go:embed templates/*.html
var files embed.FS

//go:embed static/favicon.svg
var favicon []byte

var templates = page.Parse(files, "templates/*.html")

// New prepares the pages; the OpenAPI document, when given, must parse.
func New(deps Deps) (*Site, error) {
	s := &Site{deps: deps}
	if deps.OpenAPI != nil {
		var err error
		if s.apiDocs, err = buildDocs(deps.OpenAPI); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Routes registers the pages through the server's instrumented handle.
func (s *Site) Routes(handle func(method, path string, h httprouter.Handle)) {
	handle(http.MethodGet, "/favicon.svg", serveFavicon)
	// browsers and crawlers ask for /favicon.ico whatever the pages link to; it is the same icon
	handle(http.MethodGet, "/favicon.ico", func(rw http.ResponseWriter, r *http.Request, _ httprouter.Params) {
		http.Redirect(rw, r, "/favicon.svg", http.StatusMovedPermanently)
	})
	if s.deps.OpenAPI != nil {
		handle(http.MethodGet, "/docs", s.docs)
		handle(http.MethodPost, "/docs", s.docs)
	}
	if s.deps.Towns == nil {
		return
	}
	handle(http.MethodGet, "/", s.catalogPage(s.home))
	handle(http.MethodGet, "/search", s.catalogPage(s.search))
	handle(http.MethodGet, "/town/municipalities/:code", s.catalogPage(s.municipality))
	handle(http.MethodGet, "/town/rankings/:axis", s.catalogPage(s.ranking))
	handle(http.MethodGet, "/town/prefectures", s.catalogPage(s.prefectures))
	handle(http.MethodGet, "/town/prefectures/:pref", s.catalogPage(s.prefecture))
	handle(http.MethodGet, "/town/scatter", s.catalogPage(s.scatter))
	handle(http.MethodGet, "/town/compare", s.catalogPage(s.compare))
	handle(http.MethodGet, "/town/municipalities.csv", s.withCatalog(s.csvDownload))
	handle(http.MethodGet, "/robots.txt", func(rw http.ResponseWriter, _ *http.Request, _ httprouter.Params) {
		rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
		rw.Write([]byte("User-agent: *\nDisallow: /account\nDisallow: /auth/\nDisallow: /demo/\n"))
	})
}

func serveFavicon(rw http.ResponseWriter, _ *http.Request, _ httprouter.Params) {
	h := rw.Header()
	h.Set("Content-Type", "image/svg+xml")
	h.Set("Cache-Control", "public, max-age=86400")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	h.Set("X-Content-Type-Options", "nosniff")
	rw.Write(favicon)
}

// Credit is the data's source credit for the footer, when the server has the dataset.
func (s *Site) Credit() hensachi.Link {
	if s.deps.Towns == nil {
		return hensachi.Link{}
	}
	c, err := s.deps.Towns.Catalog()
	if err != nil {
		return hensachi.Link{}
	}
	return c.Meta.Source
}

// The statistics pages: the landing page, search, municipality, ranking and prefecture pages.
// They are read without logging in, need no script, and are cached by browsers for a short while.

// rankingPageSize is the number of municipalities on one ranking page.
const rankingPageSize = 50

// maxSearchResults bounds a search page.
const maxSearchResults = 100

// pageHandler renders one public page from the catalog; it returns the template, its data and
// the status, or an error that the wrapper turns into a message page.
type pageHandler func(c *town.Catalog, r *http.Request, ps httprouter.Params) (name string, data any, err error)

// catalogHandler answers one public route from the catalog; the error it returns, before writing
// anything, becomes a message page.
type catalogHandler func(c *town.Catalog, rw http.ResponseWriter, r *http.Request, ps httprouter.Params) error

// withCatalog wraps a public route: the catalog of the dataset being served, and one place for
// failures, which page.Error answers with the status of their code.
func (s *Site) withCatalog(h catalogHandler) httprouter.Handle {
	return func(rw http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		c, err := s.deps.Towns.Catalog()
		if err != nil {
			err = &hensachi.Error{Code: hensachi.EUnavailable, Message: "データを読み込めません。しばらくしてからもう一度お試しください。", Cause: err}
		} else {
			err = h(c, rw, r, ps)
		}
		if err != nil {
			page.Error(rw, r, err)
		}
	}
}

// catalogPage wraps a public page: withCatalog, and the headers every page has.
func (s *Site) catalogPage(h pageHandler) httprouter.Handle {
	return s.withCatalog(func(c *town.Catalog, rw http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
		name, data, err := h(c, r, ps)
		if err != nil {
			return err
		}
		var body bytes.Buffer
		if err := templates.ExecuteTemplate(&body, name, data); err != nil {
			return fmt.Errorf("render %s: %w", name, err)
		}
		rw.Header().Set("Cache-Control", "public, max-age=300")
		page.Write(rw, r, http.StatusOK, body.Bytes())
		return nil
	})
}

func (s *Site) base(c *town.Catalog, title, description, path string) page.Base {
	p := page.Base{Title: title, Description: description, Credit: c.Meta.Source}
	if path != "" {
		p.Canonical = strings.TrimSuffix(s.deps.PublicURL, "/") + path
	}
	return p
}

type homePage struct {
	page.Base
	Axes        []hensachi.Field
	Prefectures []hensachi.Prefecture
}

func (s *Site) home(c *town.Catalog, _ *http.Request, _ httprouter.Params) (string, any, error) {
	return "home", homePage{Base: s.base(c, "市区町村の偏差値と顔分析の API",
		"日本の全市区町村を偏差値・全国順位・統計・ふるさと納税で比べる API と、顔の年齢・性別・スコアを返す API。", "/"),
		Axes: hensachi.Axes, Prefectures: c.Meta.Prefectures}, nil
}

type searchPage struct {
	page.Base
	Query   string
	Results []*hensachi.Municipality
	More    bool
}

func (s *Site) search(c *town.Catalog, r *http.Request, _ httprouter.Params) (string, any, error) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if len(q) > 200 {
		q = q[:200]
	}
	p := searchPage{Base: s.base(c, "市区町村を探す", "市区町村を名前や読みで探す。", ""), Query: q}
	p.Results = c.Search(q, maxSearchResults+1)
	if len(p.Results) > maxSearchResults {
		p.Results, p.More = p.Results[:maxSearchResults], true
	}
	return "search", p, nil
}

type scoreRow struct{ Label, Description, Hensachi, Value, Rank string }

type statRow struct{ Label, Value, Median string }

type furusatoBlock struct {
	ReceiptsYear, Receipts, ReceiptsRank, Count string
	TaxYear, Deductions, Donors                 string
	Balance, BalanceRank                        string
	Updated                                     string
	Chart                                       template.HTML
}

type similarRow struct{ Code, Name, Pref, Distance, Differences string }

type municipalityPage struct {
	page.Base
	Town       *hensachi.Municipality
	ScoreChart template.HTML
	Scores     []scoreRow
	Similar    []similarRow
	CompareAll string // the compare page of the municipality and its nearest
	CompareN   int    // how many of the nearest CompareAll shows
	Scatter    string // the default scatter with the municipality's prefecture picked out
	Stats      []statRow
	Furusato   furusatoBlock
	Prev, Next *hensachi.Municipality
	Sources    []string
	Method     string
	Updated    string
}

func (s *Site) municipality(c *town.Catalog, _ *http.Request, ps httprouter.Params) (string, any, error) {
	m, ok := c.Municipality(ps.ByName("code"))
	if !ok {
		return "", nil, hensachi.Errorf(hensachi.ENotFound, "このコードの市区町村はありません。")
	}
	p := municipalityPage{Town: m, Method: c.Meta.Method, Updated: c.Meta.DataUpdated,
		Base: s.base(c, m.Name+"（"+m.Prefecture.Name+"）の偏差値と統計",
			m.Prefecture.Name+m.Name+"の 6 軸の偏差値と全国順位、16 の統計、ふるさと納税の実績。", "/town/municipalities/"+m.Code)}
	var bars []scoreBar
	for a, s := range m.Scores {
		axis := hensachi.Axes[a]
		row := scoreRow{Label: axis.Label, Description: axis.Description, Hensachi: "—", Value: "—", Rank: "—"}
		if s.Value.Valid {
			row.Hensachi = strconv.FormatFloat(s.Hensachi, 'f', 1, 64)
			row.Value = number(s.Value.V, axis.Decimals) + " " + axis.Unit
			row.Rank = strconv.Itoa(s.Rank) + " / " + strconv.Itoa(c.RankTotal(a)) + " 位"
		}
		p.Scores = append(p.Scores, row)
		bars = append(bars, scoreBar{Label: axis.Label, Hensachi: s.Hensachi, Valid: s.Value.Valid})
	}
	p.ScoreChart = scoreChart("score-chart", "偏差値（50が全国の真ん中）", bars)
	if err := similarOf(c, m, &p); err != nil {
		return "", nil, err
	}
	for s, v := range m.Stats {
		stat := hensachi.Stats[s]
		p.Stats = append(p.Stats, statRow{Label: stat.Label, Value: withUnit(v, stat), Median: withUnit(c.StatMedian(s), stat)})
	}
	p.Furusato = furusatoOf(m, c)
	towns := c.InPrefecture(m.Prefecture.Code)
	for i, t := range towns {
		if t.Code == m.Code {
			if i > 0 {
				p.Prev = towns[i-1]
			}
			if i+1 < len(towns) {
				p.Next = towns[i+1]
			}
		}
	}
	seen := map[string]bool{}
	add := func(label, source string) {
		if source != "" && !seen[label+source] {
			seen[label+source] = true
			p.Sources = append(p.Sources, label+"："+source)
		}
	}
	for _, a := range c.Meta.Axes {
		add(a.Label, a.Source)
	}
	for _, s := range c.Meta.Stats {
		add(s.Label, s.Source)
	}
	f := c.Meta.Furusato
	add("ふるさと納税の受入額（"+f.Receipts.FiscalYear+"）", f.Receipts.Source)
	add("住民税控除額（"+f.Deductions.TaxYear+"）", f.Deductions.Source)
	add("受入額の推移", f.History.Source)
	return "municipality", p, nil
}

// similarShown is how many similar municipalities a municipality page lists.
const similarShown = 10

// similarOf lists the municipalities nearest to m, with the axes they differ on most, and the
// links to compare m with the nearest and to see it on a scatter.
func similarOf(c *town.Catalog, m *hensachi.Municipality, p *municipalityPage) error {
	near, err := c.Similar(m.Code, similarShown)
	if err != nil {
		return err
	}
	codes := []string{m.Code}
	for _, n := range near {
		var diffs []string
		for _, d := range n.Differences {
			diffs = append(diffs, fmt.Sprintf("%s %+.1f", hensachi.Axes[d.Axis].Label, d.Difference))
		}
		if len(codes) < maxCompared {
			codes = append(codes, n.Municipality.Code)
		}
		p.Similar = append(p.Similar, similarRow{Code: n.Municipality.Code, Name: n.Municipality.Name, Pref: n.Municipality.Prefecture.Name,
			Distance: strconv.FormatFloat(n.Distance, 'f', 1, 64), Differences: strings.Join(diffs, "、")})
	}
	if len(codes) > 1 {
		p.CompareAll, p.CompareN = "/town/compare?codes="+strings.Join(codes, ","), len(codes)-1
	}
	p.Scatter = "/town/scatter?" + url.Values{"x": {defaultX}, "y": {defaultY}, "pref": {m.Prefecture.Code}}.Encode()
	return nil
}

func furusatoOf(m *hensachi.Municipality, c *town.Catalog) furusatoBlock {
	f, meta := m.Furusato, c.Meta.Furusato
	b := furusatoBlock{ReceiptsYear: meta.Receipts.FiscalYear, TaxYear: meta.Deductions.TaxYear,
		Receipts: yen(f.ReceiptsYen), Deductions: yen(f.DeductionsYen), Balance: yen(f.BalanceYen),
		Count: count(f.ReceiptsCount, "件"), Donors: count(f.DeductionDonors, "人が他の自治体へ寄附"),
		Updated: meta.DataUpdated}
	if f.ReceiptsYen.Valid {
		b.ReceiptsRank = "全国 " + strconv.Itoa(f.ReceiptsRank) + " 位"
	}
	if f.BalanceYen.Valid {
		b.BalanceRank = "全国 " + strconv.Itoa(f.BalanceRank) + " 位"
	}
	var years []yearBar
	for i, v := range f.HistoryThousandYen {
		year := ""
		if i < len(meta.History.FiscalYears) {
			year = meta.History.FiscalYears[i]
		}
		bar := yearBar{Year: year, Label: shortEra(year), Amount: "—", ThousandYen: v.V, Valid: v.Valid}
		if v.Valid {
			bar.Amount = compactYen(v.V * 1000)
		}
		years = append(years, bar)
	}
	b.Chart = historyChart(years)
	return b
}

type axisLink struct {
	Key, Label string
	Current    bool
}

type prefOption struct {
	Code, Name string
	Selected   bool
}

type rankingRow struct{ Rank, Code, Name, Pref, Hensachi, Value string }

type rankingPage struct {
	page.Base
	Axis             hensachi.Field
	Pref             *hensachi.Prefecture
	PrefQuery        string
	Axes             []axisLink
	Prefectures      []prefOption
	Items            []rankingRow
	Total, From, To  int
	PageSize         int
	PrevURL, NextURL string
}

func (s *Site) ranking(c *town.Catalog, r *http.Request, ps httprouter.Params) (string, any, error) {
	a := hensachi.AxisIndex(ps.ByName("axis"))
	if a < 0 {
		return "", nil, hensachi.Errorf(hensachi.ENotFound, "この軸はありません。")
	}
	axis := hensachi.Axes[a]
	q := r.URL.Query()
	p := rankingPage{Axis: axis, PageSize: rankingPageSize}
	prefCode := q.Get("pref")
	if prefCode != "" {
		pref, ok := c.Prefecture(prefCode)
		if !ok {
			return "", nil, hensachi.Errorf(hensachi.ENotFound, "この都道府県コードはありません。")
		}
		p.Pref, p.PrefQuery = &pref, "?pref="+prefCode
	}
	pageNo := 1
	if s := q.Get("page"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 100 {
			return "", nil, hensachi.Errorf(hensachi.ENotFound, "このページはありません。")
		}
		pageNo = n
	}
	items, total := c.Ranking(a, town.BestFirst, prefCode, (pageNo-1)*rankingPageSize, rankingPageSize)
	if len(items) == 0 && pageNo > 1 {
		return "", nil, hensachi.Errorf(hensachi.ENotFound, "このページはありません。")
	}
	for _, m := range items {
		s := m.Scores[a]
		p.Items = append(p.Items, rankingRow{Rank: strconv.Itoa(s.Rank), Code: m.Code, Name: m.Name, Pref: m.Prefecture.Name,
			Hensachi: strconv.FormatFloat(s.Hensachi, 'f', 1, 64), Value: number(s.Value.V, axis.Decimals)})
	}
	p.Total, p.From, p.To = total, (pageNo-1)*rankingPageSize+1, (pageNo-1)*rankingPageSize+len(items)
	link := func(n int) string {
		v := url.Values{}
		if prefCode != "" {
			v.Set("pref", prefCode)
		}
		if n > 1 {
			v.Set("page", strconv.Itoa(n))
		}
		if len(v) == 0 {
			return "/town/rankings/" + axis.Key
		}
		return "/town/rankings/" + axis.Key + "?" + v.Encode()
	}
	if pageNo > 1 {
		p.PrevURL = link(pageNo - 1)
	}
	if p.To < total {
		p.NextURL = link(pageNo + 1)
	}
	for _, x := range hensachi.Axes {
		p.Axes = append(p.Axes, axisLink{Key: x.Key, Label: x.Label, Current: x.Key == axis.Key})
	}
	for _, pr := range c.Meta.Prefectures {
		p.Prefectures = append(p.Prefectures, prefOption{Code: pr.Code, Name: pr.Name, Selected: pr.Code == prefCode})
	}
	where := "全国"
	if p.Pref != nil {
		where = p.Pref.Name
	}
	title := axis.Label + "の偏差値ランキング（" + where + "）"
	if pageNo > 1 {
		title += " " + strconv.Itoa(pageNo) + " ページ目"
	}
	p.Base = s.base(c, title, where+"の市区町村を「"+axis.Label+"」（"+axis.Description+"）の偏差値で並べたランキング。", link(pageNo))
	return "ranking", p, nil
}

type prefecturesPage struct {
	page.Base
	Prefectures []hensachi.Prefecture
}

func (s *Site) prefectures(c *town.Catalog, _ *http.Request, _ httprouter.Params) (string, any, error) {
	return "prefectures", prefecturesPage{Base: s.base(c, "都道府県", "都道府県ごとの市区町村の偏差値一覧。", "/town/prefectures"),
		Prefectures: c.Meta.Prefectures}, nil
}

type prefectureTown struct {
	Code, Name string
	Hensachi   []string
}

type prefecturePage struct {
	page.Base
	Pref  hensachi.Prefecture
	Axes  []hensachi.Field
	Towns []prefectureTown
}

func (s *Site) prefecture(c *town.Catalog, _ *http.Request, ps httprouter.Params) (string, any, error) {
	pref, ok := c.Prefecture(ps.ByName("pref"))
	if !ok {
		return "", nil, hensachi.Errorf(hensachi.ENotFound, "この都道府県コードはありません。")
	}
	towns := c.InPrefecture(pref.Code)
	p := prefecturePage{Pref: pref, Axes: hensachi.Axes,
		Base: s.base(c, pref.Name+"の市区町村の偏差値", pref.Name+"の全市区町村の 6 軸の偏差値。", "/town/prefectures/"+pref.Code)}
	for _, m := range towns {
		t := prefectureTown{Code: m.Code, Name: m.Name}
		for _, s := range m.Scores {
			h := "—"
			if s.Value.Valid {
				h = strconv.FormatFloat(s.Hensachi, 'f', 1, 64)
			}
			t.Hensachi = append(t.Hensachi, h)
		}
		p.Towns = append(p.Towns, t)
	}
	return "prefecture", p, nil
}

// number formats a value with the field's decimals and thousands separators.
func number(v float64, decimals int) string {
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	out := groupThousands(intPart)
	if frac != "" {
		out += "." + frac
	}
	return out
}

func withUnit(v hensachi.Optional[float64], f hensachi.Field) string {
	if !v.Valid {
		return "—"
	}
	return strings.TrimSpace(number(v.V, f.Decimals) + " " + f.Unit)
}

func yen(v hensachi.Optional[int64]) string {
	if !v.Valid {
		return "—"
	}
	return groupThousands(strconv.FormatInt(v.V, 10)) + " 円"
}

func count(v hensachi.Optional[int64], unit string) string {
	if !v.Valid {
		return "—"
	}
	return groupThousands(strconv.FormatInt(v.V, 10)) + " " + unit
}

// groupThousands puts commas into a run of digits, keeping a leading minus.
func groupThousands(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// compactYen writes an amount as 億円 or 万円 with at most one decimal, for chart labels.
func compactYen(v int64) string {
	switch {
	case v >= 100_000_000 || v <= -100_000_000:
		return strconv.FormatFloat(float64(v)/1e8, 'f', 1, 64) + "億"
	case v >= 10_000 || v <= -10_000:
		return strconv.FormatFloat(float64(v)/1e4, 'f', 0, 64) + "万"
	}
	return strconv.FormatInt(v, 10)
}

// shortEra shortens 平成27年度 to H27 and 令和元年度 to R1 for the chart's labels.
func shortEra(year string) string {
	s := strings.TrimSuffix(year, "年度")
	s = strings.Replace(s, "元", "1", 1)
	s = strings.Replace(s, "平成", "H", 1)
	return strings.Replace(s, "令和", "R", 1)
}
