package town_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/realdata"
	"github.com/hensachi/hensachi/internal/testrig/towntest"
	"github.com/hensachi/hensachi/town"
)

// realCatalog is the catalog of the dataset built from the real sources.
func realCatalog(t *testing.T) *town.Catalog {
	t.Helper()
	c, err := realdata.Towns(t, towntest.PublicURL).Catalog()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// readCSV parses an export's CSV, checking the byte-order mark and CRLF line ends.
func readCSV(t *testing.T, body []byte) [][]string {
	t.Helper()
	rest, ok := bytes.CutPrefix(body, []byte("\uFEFF"))
	if !ok {
		t.Fatal("no byte-order mark")
	}
	if !bytes.HasSuffix(rest, []byte("\r\n")) {
		t.Error("lines do not end in CRLF")
	}
	records, err := csv.NewReader(bytes.NewReader(rest)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return records
}

// municipalityCells flattens the JSON of GET /town/v1/municipalities/{code} (the data member) into
// the export's columns, each number as the JSON has it, "" for null.
func municipalityCells(t *testing.T, data []byte) map[string]string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(data, []byte(`"data":`))))
	dec.UseNumber()
	var m struct {
		Code       string
		Name       string
		Prefecture hensachi.Prefecture
		Scores     map[string]map[string]any
		Stats      map[string]map[string]any
		Furusato   struct {
			Receipts   map[string]any
			Deductions map[string]any
			Balance    map[string]any
			History    []map[string]any
		}
	}
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	text := func(v any) string {
		if v == nil {
			return ""
		}
		return string(v.(json.Number))
	}
	out := map[string]string{"code": m.Code, "name": m.Name, "prefecture_code": m.Prefecture.Code, "prefecture_name": m.Prefecture.Name}
	for axis, s := range m.Scores {
		for _, f := range []string{"hensachi", "value", "rank", "rank_total"} {
			out[axis+"_"+f] = text(s[f])
		}
	}
	for key, s := range m.Stats {
		out[key] = text(s["value"])
	}
	for block, fields := range map[string]map[string]any{"receipts": m.Furusato.Receipts, "deductions": m.Furusato.Deductions, "balance": m.Furusato.Balance} {
		for f, v := range fields {
			if _, isNumber := v.(json.Number); isNumber || v == nil {
				out["furusato_"+block+"_"+f] = text(v)
			}
		}
	}
	for k, h := range m.Furusato.History {
		out["history "+strconv.Itoa(k)] = text(h["amount_thousand_yen"])
	}
	return out
}

// TestExportCSVAgreesWithJSON: every cell of the national CSV export is what the single call gives
// for that municipality, for all of them, and the export is in code order with every column.
func TestExportCSVAgreesWithJSON(t *testing.T) {
	c := realCatalog(t)
	e, ok := c.Export(town.CSV, "")
	if !ok || e.ContentType != "text/csv; charset=utf-8" || !strings.HasSuffix(e.Filename, ".csv") {
		t.Fatalf("export %v %+v", ok, e)
	}
	records := readCSV(t, e.Body)
	header := records[0]
	if want := 4 + 4*len(hensachi.Axes) + len(hensachi.Stats) + 7 + len(c.Meta.Furusato.History.FiscalYears); len(header) != want {
		t.Errorf("%d columns, want %d: %v", len(header), want, header)
	}
	if len(records)-1 != c.Len() || c.Len() != 1741 {
		t.Fatalf("%d rows for %d municipalities", len(records)-1, c.Len())
	}
	years := c.Meta.Furusato.History.FiscalYears
	firstYear := len(header) - len(years)
	if header[firstYear] != "furusato_history_fy2015_thousand_yen" || years[0] != "平成27年度" {
		t.Errorf("the first year's column is %s, for %s", header[firstYear], years[0])
	}
	for r, row := range records[1:] {
		cells := municipalityCells(t, c.MunicipalityData(r))
		for k, name := range header {
			key := name
			if k >= firstYear { // the JSON names the year in its own member
				key = "history " + strconv.Itoa(k-firstYear)
			}
			want, ok := cells[key]
			if !ok {
				t.Fatalf("column %s is not in the JSON of %s", name, row[0])
			}
			if row[k] != want {
				t.Errorf("%s %s: CSV %q, JSON %q", row[0], name, row[k], want)
			}
		}
		if r > 0 && records[r][0] >= row[0] {
			t.Errorf("%s after %s: not in code order", row[0], records[r][0])
		}
	}
	z, err := gzip.NewReader(bytes.NewReader(e.Gzip))
	if err != nil {
		t.Fatal(err)
	}
	if unzipped, err := io.ReadAll(z); err != nil || !bytes.Equal(unzipped, e.Body) {
		t.Errorf("gzip: %v, %d bytes of %d", err, len(unzipped), len(e.Body))
	}
	if again, _ := c.Export(town.CSV, ""); again != e {
		t.Error("the export is built twice")
	}
}

// TestExportParquetRoundTrip reads the Parquet export back with arrow-go: its types, nulls and
// values are those of the columns the CSV is written from.
func TestExportParquetRoundTrip(t *testing.T) {
	c := realCatalog(t)
	e, ok := c.Export(town.Parquet, "07")
	if !ok || e.ContentType != "application/vnd.apache.parquet" || e.Gzip != nil {
		t.Fatalf("export %v %+v", ok, e)
	}
	tbl, err := pqarrow.ReadTable(context.Background(), bytes.NewReader(e.Body), nil, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	rows := c.InPrefecture("07")
	idx := make([]int, len(rows))
	for k, m := range rows {
		idx[k] = c.Index(m.Code)
	}
	want := c.ExportColumns(idx)
	if int(tbl.NumCols()) != len(want) || int(tbl.NumRows()) != len(rows) {
		t.Fatalf("%d×%d, want %d×%d", tbl.NumRows(), tbl.NumCols(), len(rows), len(want))
	}
	nulls := 0
	for k, col := range want {
		field := tbl.Schema().Field(k)
		if field.Name != col.Name {
			t.Errorf("column %d: %s, want %s", k, field.Name, col.Name)
		}
		chunk := tbl.Column(k).Data().Chunk(0)
		for r := range len(rows) {
			var got, exp string
			switch a := chunk.(type) {
			case *array.String:
				got, exp = a.Value(r), col.Strings[r]
			case *array.Int64:
				if col.Ints == nil {
					t.Fatalf("%s is int64 in the file", col.Name)
				}
				got, exp = optional(a.IsValid(r), strconv.FormatInt(a.Value(r), 10)), optional(col.Ints[r].Valid, strconv.FormatInt(col.Ints[r].V, 10))
			case *array.Float64:
				if col.Floats == nil {
					t.Fatalf("%s is float64 in the file", col.Name)
				}
				got, exp = optional(a.IsValid(r), strconv.FormatFloat(a.Value(r), 'g', -1, 64)), optional(col.Floats[r].Valid, strconv.FormatFloat(col.Floats[r].V, 'g', -1, 64))
			default:
				t.Fatalf("%s: type %s", col.Name, field.Type)
			}
			if got != exp {
				t.Errorf("%s row %d: %q, want %q", col.Name, r, got, exp)
			}
			if chunk.IsNull(r) {
				nulls++
			}
		}
	}
	if tbl.Schema().Field(0).Type.ID() != arrow.STRING || nulls == 0 {
		t.Errorf("code is %s; %d nulls in Fukushima's export (双葉町 has some)", tbl.Schema().Field(0).Type, nulls)
	}
}

func optional(valid bool, s string) string {
	if !valid {
		return "null"
	}
	return s
}

// TestExportJSON: the JSON export holds the single call's objects in code order, and its gzip
// stream, finished for a tail, is the whole envelope.
func TestExportJSON(t *testing.T) {
	c := towntest.Catalog()
	e, ok := c.Export(town.JSON, "01")
	if !ok || e.Filename != "hensachi-municipalities-01-2026-01-01.json" {
		t.Fatalf("export %v %+v", ok, e)
	}
	var env struct {
		Data struct {
			Prefecture *hensachi.Prefecture
			Total      int
			Items      []json.RawMessage
		}
		Usage map[string]any
	}
	tail := []byte(`,"usage":{"plan":"free","used_today":1,"limit_today":1000}}`)
	body := slices.Concat([]byte(town.EnvelopeHead), e.Body, tail)
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatal(err)
	}
	if env.Data.Total != 3 || len(env.Data.Items) != 3 || env.Data.Prefecture.Name != "北海道" || env.Usage["plan"] != "free" {
		t.Errorf("export of 01: %+v", env)
	}
	for k, code := range []string{"01100", "01202", "01345"} {
		if want := c.MunicipalityData(c.Index(code))[len(`"data":`):]; !bytes.Equal(env.Data.Items[k], want) {
			t.Errorf("item %d: %s, want %s", k, env.Data.Items[k], want)
		}
	}
	start, end := e.GzipEnvelope(tail)
	z, err := gzip.NewReader(io.MultiReader(bytes.NewReader(start), bytes.NewReader(end)))
	if err != nil {
		t.Fatal(err)
	}
	if unzipped, err := io.ReadAll(z); err != nil || !bytes.Equal(unzipped, body) {
		t.Errorf("gzip: %v, %d bytes, want %d", err, len(unzipped), len(body))
	}
	for _, bad := range []struct {
		format town.Format
		pref   string
	}{{"xml", ""}, {town.CSV, "47"}, {town.CSV, "1"}} {
		if _, ok := c.Export(bad.format, bad.pref); ok {
			t.Errorf("export %s of %q", bad.format, bad.pref)
		}
	}
}

func TestExportCSVOfCodes(t *testing.T) {
	c := towntest.Catalog()
	b, err := c.ExportCSV([]string{"13102", "01100"})
	if err != nil {
		t.Fatal(err)
	}
	records := readCSV(t, b)
	if len(records) != 3 || records[1][0] != "13102" || records[2][0] != "01100" || records[0][0] != "code" {
		t.Errorf("records %v", records)
	}
	// 札内町 has no value on the first axis: empty cells, rank_total still given
	records = readCSV(t, must(c.ExportCSV([]string{"01345"})))
	if records[1][4] != "" || records[1][6] != "" || records[1][7] != "0" {
		t.Errorf("札内町's first axis: %v", records[1][4:8])
	}
	if _, err := c.ExportCSV([]string{"01100", "99999"}); hensachi.ErrorCode(err) != hensachi.ENotFound || !strings.Contains(err.Error(), "99999") {
		t.Errorf("unknown code: %v", err)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func TestSimilar(t *testing.T) {
	c := towntest.Catalog()
	near, err := c.Similar("01100", 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range near {
		got = append(got, n.Municipality.Code)
	}
	// 札幌市 scores 55 on every axis, 千代田区 50, 函館市 45, 札内町 40 (no first axis), 中央区 35
	if !slices.Equal(got, []string{"13101", "01202", "01345", "13102"}) {
		t.Fatalf("neighbours of 01100: %v", got)
	}
	if d := near[0].Distance; math.Abs(d-math.Sqrt(6*25)) > 1e-9 {
		t.Errorf("distance to 千代田区 %v", d)
	}
	if d := near[2].Distance; math.Abs(d-math.Sqrt(6*225)) > 1e-9 { // five shared axes, scaled to six
		t.Errorf("distance to 札内町 %v", d)
	}
	if diffs := near[2].Differences; len(diffs) != 3 || diffs[0].Axis != 1 || diffs[0].Difference != -15 {
		t.Errorf("differences to 札内町 %+v (its first axis has no value)", diffs)
	}
	if near, _ := c.Similar("01100", 2); len(near) != 2 {
		t.Errorf("limit 2: %d", len(near))
	}
	if _, err := c.Similar("99999", 2); hensachi.ErrorCode(err) != hensachi.ENotFound {
		t.Errorf("unknown: %v", err)
	}
}

// TestSimilarOnRealData: for every municipality, neighbours are sorted, never itself, at most the
// limit, and a municipality without a value on an axis still has its neighbours.
func TestSimilarOnRealData(t *testing.T) {
	c := realCatalog(t)
	missing, without := 0, 0
	var all []*hensachi.Municipality
	for _, p := range c.Meta.Prefectures {
		all = append(all, c.InPrefecture(p.Code)...)
	}
	if len(all) != c.Len() {
		t.Fatalf("%d municipalities in the prefectures of %d", len(all), c.Len())
	}
	for _, self := range all {
		code := self.Code
		near, err := c.Similar(code, town.MaxNeighbours)
		if err != nil {
			t.Fatal(err)
		}
		valued := 0
		for _, s := range self.Scores {
			if s.Value.Valid {
				valued++
			}
		}
		if want := town.MaxNeighbours; valued < 4 && len(near) != 0 || valued >= 4 && len(near) != want {
			t.Errorf("%s with values on %d axes: %d neighbours", code, valued, len(near))
		}
		if valued < 4 {
			without++
		}
		for k, n := range near {
			if n.Municipality.Code == code {
				t.Errorf("%s is its own neighbour", code)
			}
			if k > 0 && n.Distance < near[k-1].Distance {
				t.Errorf("%s: neighbours not sorted at %d", code, k)
			}
		}
		for _, s := range self.Scores {
			if !s.Value.Valid {
				missing++
				for _, n := range near {
					for _, d := range n.Differences {
						if !self.Scores[d.Axis].Value.Valid {
							t.Errorf("%s: difference on an axis it has no value on", code)
						}
					}
				}
			}
		}
	}
	if missing == 0 || without == 0 {
		t.Errorf("%d axes missing, %d municipalities on too few axes: a case is untested", missing, without)
	}
	if near, _ := c.Similar("07546", 5); len(near) != 0 { // 双葉町: values on two axes
		t.Errorf("双葉町: %d neighbours", len(near))
	}
}

func TestCompareData(t *testing.T) {
	c := towntest.Catalog()
	b, err := c.CompareData([]string{"13102", "01345"})
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Data struct {
			Items   []struct{ Code string }
			Medians struct{ Scores, Stats map[string]*float64 }
		}
	}
	if err := json.Unmarshal(slices.Concat([]byte("{"), b, []byte("}")), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Data.Items) != 2 || v.Data.Items[0].Code != "13102" || v.Data.Items[1].Code != "01345" {
		t.Errorf("items %+v", v.Data.Items)
	}
	if p := v.Data.Medians.Stats["pop"]; p == nil || *p != 250 || len(v.Data.Medians.Scores) != 6 || len(v.Data.Medians.Stats) != 16 {
		t.Errorf("medians %+v", v.Data.Medians)
	}
	if _, err := c.CompareData([]string{"13102", "99999"}); hensachi.ErrorCode(err) != hensachi.ENotFound {
		t.Errorf("unknown: %v", err)
	}
}

func TestSearchData(t *testing.T) {
	c := towntest.Catalog()
	var v struct {
		Data struct {
			Total int
			Items []struct{ Code string }
		}
	}
	if err := json.Unmarshal(slices.Concat([]byte("{"), c.SearchData("さ", "01"), []byte("}")), &v); err != nil {
		t.Fatal(err)
	}
	if v.Data.Total != 2 || v.Data.Items[0].Code != "01100" {
		t.Errorf("さ in 01: %+v", v.Data)
	}
	if json.Unmarshal(slices.Concat([]byte("{"), c.SearchData("さ", "13"), []byte("}")), &v); v.Data.Total != 0 || v.Data.Items == nil {
		t.Errorf("さ in 13: %+v", v.Data)
	}
}
