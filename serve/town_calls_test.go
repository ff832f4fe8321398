package serve_test

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hensachi/hensachi"
)

// TestNewCallsBadParameters: every bad value of the export, similar, compare and search
// parameters is a problem naming the parameter (or the unknown code), and none counts.
func TestNewCallsBadParameters(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	tests := []struct {
		name, path string
		status     int
		param      string
	}{
		{"export without format", "/town/v1/export", 400, "format"},
		{"export format unknown", "/town/v1/export?format=xlsx", 400, "format"},
		{"export format upper case", "/town/v1/export?format=CSV", 400, "format"},
		{"export format empty", "/town/v1/export?format=", 400, "format"},
		{"export format repeated", "/town/v1/export?format=csv&format=json", 400, "format"},
		{"export pref unknown", "/town/v1/export?format=csv&pref=48", 400, "pref"},
		{"export pref malformed", "/town/v1/export?format=csv&pref=1", 400, "pref"},
		{"export unknown parameter", "/town/v1/export?format=csv&gzip=1", 400, "gzip"},
		{"similar limit zero", "/town/v1/municipalities/13101/similar?limit=0", 400, "limit"},
		{"similar limit 51", "/town/v1/municipalities/13101/similar?limit=51", 400, "limit"},
		{"similar limit text", "/town/v1/municipalities/13101/similar?limit=ten", 400, "limit"},
		{"similar limit empty", "/town/v1/municipalities/13101/similar?limit=", 400, "limit"},
		{"similar malformed code", "/town/v1/municipalities/1310/similar", 400, "code"},
		{"similar unknown code", "/town/v1/municipalities/99999/similar", 404, ""},
		{"similar unknown parameter", "/town/v1/municipalities/13101/similar?n=3", 400, "n"},
		{"compare without codes", "/town/v1/compare", 400, "codes"},
		{"compare one code", "/town/v1/compare?codes=13101", 400, "codes"},
		{"compare eleven codes", "/town/v1/compare?codes=" + strings.Repeat("13101,", 10) + "13102", 400, "codes"},
		{"compare empty code", "/town/v1/compare?codes=13101,", 400, "codes"},
		{"compare malformed code", "/town/v1/compare?codes=13101,1310x", 400, "codes"},
		{"compare repeated code", "/town/v1/compare?codes=13101,27100,13101", 400, "codes"},
		{"compare codes repeated", "/town/v1/compare?codes=13101,27100&codes=13102,27100", 400, "codes"},
		{"compare malformed before unknown", "/town/v1/compare?codes=99999,abc", 400, "codes"},
		{"compare unknown code", "/town/v1/compare?codes=13101,99999", 404, ""},
		{"search empty", "/town/v1/municipalities?q=", 400, "q"},
		{"search blank", "/town/v1/municipalities?q=%20%E3%80%80", 400, "q"},
		{"search too long", "/town/v1/municipalities?q=" + url.QueryEscape(strings.Repeat("宝", 43)), 400, "q"},
		{"search pref unknown", "/town/v1/municipalities?q=%E5%AE%9D&pref=00", 400, "pref"},
		{"search not UTF-8", "/town/v1/municipalities?q=%FF%FE", 400, "q"},
		{"ranking pref repeated", "/town/v1/rankings/young?pref=13&pref=13", 400, "pref"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ts.get(t, tt.path)
			if r.status != tt.status || r.header.Get("Content-Type") != "application/problem+json" {
				t.Fatalf("GET %s: %d %s, want %d", tt.path, r.status, r.header.Get("Content-Type"), tt.status)
			}
			p := decode[problem](t, r.body)
			if p.Param != tt.param || p.RequestID == "" || (tt.status == 404) != (p.Code == "not_found") {
				t.Errorf("problem %+v, want param %q", p, tt.param)
			}
			if tt.status == 404 && !strings.Contains(p.Detail, "99999") {
				t.Errorf("404 does not name the code: %s", p.Detail)
			}
		})
	}
	if used := ts.Quota.Used(ts.freeID, hensachi.ServiceTown); used != 0 {
		t.Errorf("%d calls counted for bad parameters", used)
	}
}

// TestExportCall: each format with its headers, gzip when accepted, the JSON envelope's usage, and
// 304 for the version the client holds, which does not count.
func TestExportCall(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	key := ts.freeKey
	identity := func(path string) response {
		return ts.do(t, "GET", path, "X-API-Key", key, "Accept-Encoding", "identity")
	}
	catalog, err := ts.Catalogs.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	csv := identity("/town/v1/export?format=csv&pref=13")
	if csv.status != 200 || csv.header.Get("Content-Type") != "text/csv; charset=utf-8" ||
		csv.header.Get("Content-Disposition") != `attachment; filename="hensachi-municipalities-13-`+catalog.Meta.DataUpdated+`.csv"` ||
		!bytes.HasPrefix(csv.body, []byte("\uFEFFcode,name,prefecture_code,")) || csv.header.Get("Content-Encoding") != "" {
		t.Fatalf("csv: %d %v %.80q", csv.status, csv.header, csv.body)
	}
	if rows := bytes.Count(csv.body, []byte("\r\n13")); rows != 62 {
		t.Errorf("%d rows of Tokyo, want 62", rows)
	}
	zipped := ts.do(t, "GET", "/town/v1/export?format=csv&pref=13", "X-API-Key", key, "Accept-Encoding", "br, gzip;q=0.5")
	if zipped.header.Get("Content-Encoding") != "gzip" || zipped.header.Get("ETag") != strings.TrimSuffix(csv.header.Get("ETag"), `"`)+`.gz"` || !bytes.Equal(gunzip(t, zipped.body), csv.body) {
		t.Errorf("gzipped csv: %v", zipped.header)
	}
	if r := ts.do(t, "GET", "/town/v1/export?format=csv", "X-API-Key", key, "Accept-Encoding", "gzip;q=0"); r.header.Get("Content-Encoding") != "" {
		t.Error("gzip;q=0 got gzip")
	}

	js := identity("/town/v1/export?format=json")
	env := decode[struct {
		envelope
		Data struct {
			Total int
			Items []struct{ Code string }
		} `json:"data"`
	}](t, js.body)
	if js.header.Get("Content-Type") != "application/json" || env.Data.Total != 1741 || len(env.Data.Items) != 1741 || env.Usage.UsedToday != 4 {
		t.Errorf("json: %v, total %d, usage %+v", js.header, env.Data.Total, env.Usage)
	}
	zipped = ts.do(t, "GET", "/town/v1/export?format=json", "X-API-Key", key, "Accept-Encoding", "gzip")
	want := bytes.Replace(js.body, []byte(`"used_today":4`), []byte(`"used_today":5`), 1)
	if got := gunzip(t, zipped.body); !bytes.Equal(got, want) {
		t.Errorf("gzipped json differs: %.200q", got[max(0, len(got)-200):])
	}

	pq := ts.do(t, "GET", "/town/v1/export?format=parquet&pref=47", "X-API-Key", key, "Accept-Encoding", "gzip")
	if pq.header.Get("Content-Type") != "application/vnd.apache.parquet" || pq.header.Get("Content-Encoding") != "" ||
		!bytes.HasPrefix(pq.body, []byte("PAR1")) || !bytes.HasSuffix(pq.body, []byte("PAR1")) {
		t.Errorf("parquet: %v %.8q", pq.header, pq.body)
	}

	for _, tc := range [][2]string{{csv.header.Get("ETag"), "identity"}, {zipped.header.Get("ETag"), "gzip"}} {
		r := ts.do(t, "GET", "/town/v1/export?format=json", "X-API-Key", key, "If-None-Match", tc[0], "Accept-Encoding", tc[1])
		if r.status != http.StatusNotModified || len(r.body) != 0 {
			t.Errorf("If-None-Match %s: %d", tc[0], r.status)
		}
	}
	if used := ts.Quota.Used(ts.freeID, hensachi.ServiceTown); used != 6 {
		t.Errorf("used %d after six exports and two 304s, want 6", used)
	}
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	z, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// gunzipStrict decompresses one gzip member and fails on anything after it, where gzip.Reader would
// read a second member.
func gunzipStrict(b []byte) ([]byte, error) {
	r := bytes.NewReader(b)
	z, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	z.Multistream(false)
	out, err := io.ReadAll(z)
	if err != nil {
		return out, err
	}
	if r.Len() > 0 {
		return out, fmt.Errorf("%d bytes after the gzip stream", r.Len())
	}
	return out, nil
}

func TestSimilarCall(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	type similar struct {
		Data struct {
			Code        string
			MissingAxes []string `json:"missing_axes"`
			Limit       int
			Items       []struct {
				Code        string
				Distance    float64
				Differences []struct {
					Axis       string
					Difference float64
				}
			}
		}
	}
	for _, tt := range []struct {
		path string
		want int
	}{{"/town/v1/municipalities/28214/similar", 10}, {"/town/v1/municipalities/28214/similar?limit=50", 50}, {"/town/v1/municipalities/28214/similar?limit=1", 1}} {
		s := decode[similar](t, ts.get(t, tt.path).body)
		if len(s.Data.Items) != tt.want || s.Data.Limit != tt.want || s.Data.Code != "28214" || s.Data.MissingAxes == nil {
			t.Fatalf("%s: %d items, %+v", tt.path, len(s.Data.Items), s.Data)
		}
		for k, it := range s.Data.Items {
			if it.Code == "28214" || k > 0 && it.Distance < s.Data.Items[k-1].Distance || len(it.Differences) != 3 {
				t.Errorf("%s item %d: %+v", tt.path, k, it)
			}
		}
	}
	futaba := decode[similar](t, ts.get(t, "/town/v1/municipalities/07546/similar").body)
	if len(futaba.Data.Items) != 0 || len(futaba.Data.MissingAxes) < 3 {
		t.Errorf("双葉町: %+v", futaba.Data)
	}
}

func TestCompareCall(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	r := ts.get(t, "/town/v1/compare?codes=47201,01100,13101")
	c := decode[struct {
		Data struct {
			Items   []json.RawMessage
			Medians struct{ Scores, Stats map[string]*float64 }
		}
		Usage struct {
			UsedToday int64 `json:"used_today"`
		}
	}](t, r.body)
	if len(c.Data.Items) != 3 || len(c.Data.Medians.Scores) != 6 || len(c.Data.Medians.Stats) != 16 || c.Usage.UsedToday != 1 {
		t.Fatalf("compare: %d items, medians %+v, usage %+v", len(c.Data.Items), c.Data.Medians, c.Usage)
	}
	for k, code := range []string{"47201", "01100", "13101"} {
		single := decode[envelope](t, ts.get(t, "/town/v1/municipalities/"+code).body)
		if !bytes.Equal(c.Data.Items[k], single.Data) {
			t.Errorf("item %d is not the single call's %s", k, code)
		}
	}
	meta := decode[struct{ Data hensachi.Meta }](t, ts.get(t, "/town/v1/meta").body)
	if m := c.Data.Medians.Scores["income"]; m == nil || *m != meta.Data.Axes[hensachi.AxisIndex("income")].Median {
		t.Errorf("income median %v", m)
	}
}

func TestSearchCall(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	type list struct {
		Data struct {
			Prefecture *hensachi.Prefecture
			Total      int
			Items      []struct{ Code string }
		}
	}
	for _, tt := range []struct {
		q, pref string
		first   string
		total   int
	}{
		{"たからづか", "", "28214", -1},
		{"ﾀｶﾗﾂﾞｶ", "", "28214", -1},
		{"兵庫県 宝塚", "", "28214", 1},
		{"宝塚", "13", "", 0},
		{"府中", "13", "13206", 1}, // 府中市 of Tokyo, not of Hiroshima
		{"府中", "", "", 3},        // 府中市 ×2 and 府中町
	} {
		path := "/town/v1/municipalities?q=" + url.QueryEscape(tt.q)
		if tt.pref != "" {
			path += "&pref=" + tt.pref
		}
		l := decode[list](t, ts.get(t, path).body)
		if tt.total >= 0 && l.Data.Total != tt.total || l.Data.Total != len(l.Data.Items) ||
			tt.first != "" && (len(l.Data.Items) == 0 || l.Data.Items[0].Code != tt.first) || (tt.pref != "") != (l.Data.Prefecture != nil) {
			t.Errorf("q=%s pref=%s: %+v", tt.q, tt.pref, l.Data)
		}
	}
}

// TestNewCallsNotModified: the dataset's ETag validates every new call; a 304 does not count.
func TestNewCallsNotModified(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	paths := []string{"/town/v1/municipalities/13101/similar", "/town/v1/compare?codes=13101,13102",
		"/town/v1/municipalities?q=%E5%AE%9D%E5%A1%9A", "/town/v1/export?format=parquet&pref=13"}
	for _, path := range paths {
		first := ts.get(t, path)
		etag := first.header.Get("ETag")
		if first.status != 200 || etag == "" {
			t.Fatalf("%s: %d, ETag %q", path, first.status, etag)
		}
		if r := ts.do(t, "GET", path, "X-API-Key", ts.freeKey, "If-None-Match", etag); r.status != http.StatusNotModified || len(r.body) != 0 {
			t.Errorf("%s If-None-Match: %d", path, r.status)
		}
	}
	if used := ts.Quota.Used(ts.freeID, hensachi.ServiceTown); used != int64(len(paths)) {
		t.Errorf("used %d after %d answers and as many 304s", used, len(paths))
	}
}

// TestExportCSVAgreesWithJSON: every cell of the national CSV export is what the JSON export, whose
// items are the single call's objects, gives for that municipality, for all of them, in code order.
func TestExportCSVAgreesWithJSON(t *testing.T) {
	ts := newTestServer(t)
	get := func(path string) []byte {
		r := ts.do(t, "GET", path, "X-API-Key", ts.proKey, "Accept-Encoding", "identity")
		if r.status != 200 {
			t.Fatalf("GET %s: %d %s", path, r.status, r.body)
		}
		return r.body
	}
	records, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(get("/town/v1/export?format=csv"), []byte("\uFEFF")))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	items := decode[struct {
		Data struct{ Items []json.RawMessage }
	}](t, get("/town/v1/export?format=json")).Data.Items
	header := records[0]
	if len(records)-1 != len(items) || len(items) != 1741 {
		t.Fatalf("%d rows, %d items", len(records)-1, len(items))
	}
	firstYear := slices.IndexFunc(header, func(name string) bool { return strings.HasPrefix(name, "furusato_history_") })
	for r, row := range records[1:] {
		cells := municipalityCells(t, items[r])
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
	for _, k := range []int{0, 1000, 1740} {
		single := decode[envelope](t, get("/town/v1/municipalities/"+records[k+1][0]))
		if !bytes.Equal(single.Data, items[k]) {
			t.Errorf("item %d of the JSON export is not the single call's %s", k, records[k+1][0])
		}
	}
}

// municipalityCells flattens the JSON of GET /town/v1/municipalities/{code} into the export's
// columns, each number as the JSON has it, "" for null.
func municipalityCells(t *testing.T, data []byte) map[string]string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
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

// TestIfNoneMatchRead: the API reads If-None-Match as the pages' download does
// (negotiate.NoneMatch): a list naming the version, weak or not, is a 304; a malformed field
// matches nothing and is answered in full.
func TestIfNoneMatchRead(t *testing.T) {
	ts := newTestServer(t)
	etag := ts.get(t, "/town/v1/meta").header.Get("ETag")
	for _, tc := range []struct {
		ifNoneMatch string
		status      int
	}{
		{etag, 304}, {"W/" + etag, 304}, {`"old", ` + etag, 304}, {"*", 304},
		{etag + "garbage", 200}, {`"old" ` + etag, 200}, {strings.Trim(etag, `"`), 200}, {etag + ", *", 200},
	} {
		if r := ts.do(t, "GET", "/town/v1/meta", "X-API-Key", ts.freeKey, "If-None-Match", tc.ifNoneMatch); r.status != tc.status {
			t.Errorf("If-None-Match %s: %d, want %d", tc.ifNoneMatch, r.status, tc.status)
		}
	}
}

// TestNotModifiedCarriesHeaders: a 304 carries the Cache-Control, ETag and Vary its 200 would
// (RFC 9110 §15.4.5), the gzip tag included; an answer to a page varies on Origin, and every
// answer on Accept-Encoding too, whatever CORS adds.
func TestNotModifiedCarriesHeaders(t *testing.T) {
	ts := newTestServer(t)
	const page = "https://app.example.com"
	for _, tc := range []struct {
		path, accept, origin string
		varyEncoding         bool
	}{
		{"/town/v1/municipalities/13101", "gzip", "", true},
		{"/town/v1/municipalities/13101/similar", "identity", page, true},
		{"/town/v1/export?format=csv&pref=13", "gzip", page, true},
		{"/town/v1/export?format=csv&pref=13", "identity", "", true},
		{"/town/v1/export?format=json&pref=13", "gzip", page, true},
		{"/town/v1/export?format=json&pref=13", "identity", "", true},
		{"/town/v1/export?format=parquet&pref=13", "gzip", page, true},
	} {
		header := []string{"X-API-Key", ts.freeKey, "Accept-Encoding", tc.accept}
		if tc.origin != "" {
			header = append(header, "Origin", tc.origin)
		}
		full := ts.do(t, "GET", tc.path, header...)
		etag := full.header.Get("ETag")
		notModified := ts.do(t, "GET", tc.path, append(header, "If-None-Match", etag)...)
		name := tc.path + " " + tc.accept + " " + tc.origin
		if full.status != 200 || notModified.status != 304 {
			t.Fatalf("%s: %d then %d", name, full.status, notModified.status)
		}
		gzipped := full.header.Get("Content-Encoding") == "gzip"
		if gzipped != strings.HasSuffix(etag, `.gz"`) {
			t.Errorf("%s: ETag %s, Content-Encoding %q", name, etag, full.header.Get("Content-Encoding"))
		}
		for _, field := range []string{"Cache-Control", "ETag", "Vary"} {
			if got, want := notModified.header.Values(field), full.header.Values(field); !slices.Equal(got, want) || len(want) == 0 && (field != "Vary" || tc.origin != "" || tc.varyEncoding) {
				t.Errorf("%s: the 304's %s %q, the 200's %q", name, field, got, want)
			}
		}
		vary := strings.Join(full.header.Values("Vary"), ",")
		if strings.Contains(vary, "Origin") != (tc.origin != "") || strings.Contains(vary, "Accept-Encoding") != tc.varyEncoding {
			t.Errorf("%s: Vary %q", name, vary)
		}
	}
}
