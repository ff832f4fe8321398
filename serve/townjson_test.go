package serve

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"slices"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/towntest"
	"github.com/hensachi/hensachi/town"
)

// TestBodies checks the API's bodies are the data member of the envelope, in the spec's shapes,
// and that what a version shares is encoded once and kept with its catalog.
func TestBodies(t *testing.T) {
	c := towntest.Catalog()
	b := catalogBodies.Of(c)
	data := func(d []byte) map[string]any {
		t.Helper()
		var v map[string]map[string]any
		if err := json.Unmarshal(slices.Concat([]byte("{"), d, []byte("}")), &v); err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		return v["data"]
	}
	m := data(b.municipalityData(c.Index("13101")))
	if m["page_url"] != towntest.PublicURL+"/town/municipalities/13101" || m["name"] != "千代田区" {
		t.Errorf("municipality: %v", m)
	}
	if &b.municipalityData(3)[0] != &catalogBodies.Of(c).municipalityData(3)[0] {
		t.Error("municipality body encoded twice")
	}
	if catalogBodies.Of(towntest.Catalog()) == b {
		t.Error("two catalogs share their bodies")
	}
	if l := data(b.listData("13")); l["total"] != 2.0 || l["prefecture"] == nil {
		t.Errorf("list of 13: %v", l)
	}
	if l := data(b.listData("")); l["total"] != 5.0 || l["prefecture"] != nil {
		t.Errorf("list of all: %v", l)
	}
	r := data(b.rankingData(c.RankingPage(0, town.WorstFirst, town.Scope{Pref: "01"}, 1, 1)))
	if r["order"] != "asc" || r["total"] != 2.0 || len(r["items"].([]any)) != 1 || r["items"].([]any)[0].(map[string]any)["code"] != "01100" {
		t.Errorf("ranking: %v", r)
	}
	if meta := data(b.meta); meta["data_updated"] != "2026-01-01" {
		t.Errorf("meta: %v", meta)
	}
	if s := data(searchData(c.SearchList("さ", "13"))); s["total"] != 0.0 || s["items"] == nil {
		t.Errorf("search of さ in 13: %v", s)
	}
	cmp, _ := c.Compare([]string{"13102", "01345"})
	var v struct {
		Data struct {
			Items   []json.RawMessage
			Medians struct{ Scores, Stats map[string]*float64 }
		}
	}
	if err := json.Unmarshal(slices.Concat([]byte("{"), b.compareData(cmp), []byte("}")), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Data.Items) != 2 || !bytes.Equal(v.Data.Items[1], b.municipalityData(c.Index("01345"))[len(`"data":`):]) {
		t.Errorf("compared items %s", v.Data.Items)
	}
	if p := v.Data.Medians.Stats["pop"]; p == nil || *p != 250 || len(v.Data.Medians.Scores) != 6 || len(v.Data.Medians.Stats) != 16 {
		t.Errorf("medians %+v", v.Data.Medians)
	}
	if s := data(must(b.similarData("01345", 2))); s["limit"] != 2.0 || len(s["items"].([]any)) != 2 || s["missing_axes"].([]any)[0] != hensachi.Axes[0].Key {
		t.Errorf("similar: %v", s)
	}
	if _, err := b.similarData("99999", 2); hensachi.ErrorCode(err) != hensachi.ENotFound {
		t.Errorf("similar of an unknown code: %v", err)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestJSONExport: the JSON export holds the single call's objects in code order, and its gzip
// stream, finished for a tail, is the whole envelope.
func TestJSONExport(t *testing.T) {
	c := towntest.Catalog()
	b := catalogBodies.Of(c)
	e := b.jsonExport("01")
	if e.filename != "hensachi-municipalities-01-2026-01-01.json" || b.jsonExport("01") != e {
		t.Fatalf("export %+v", e)
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
	body := slices.Concat([]byte(envelopeHead), e.body, tail)
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatal(err)
	}
	if env.Data.Total != 3 || len(env.Data.Items) != 3 || env.Data.Prefecture.Name != "北海道" || env.Usage["plan"] != "free" {
		t.Errorf("export of 01: %+v", env)
	}
	for k, code := range []string{"01100", "01202", "01345"} {
		if want := b.municipalityData(c.Index(code))[len(`"data":`):]; !bytes.Equal(env.Data.Items[k], want) {
			t.Errorf("item %d: %s, want %s", k, env.Data.Items[k], want)
		}
	}
	start, end := e.gzip.bytes, e.gzip.finish(tail)
	z, err := gzip.NewReader(io.MultiReader(bytes.NewReader(start), bytes.NewReader(end)))
	if err != nil {
		t.Fatal(err)
	}
	if unzipped, err := io.ReadAll(z); err != nil || !bytes.Equal(unzipped, body) {
		t.Errorf("gzip: %v, %d bytes, want %d", err, len(unzipped), len(body))
	}
	if all := b.jsonExport(""); !bytes.Contains(all.body, []byte(`"prefecture":null,"total":5,`)) {
		t.Errorf("national export %.60s", all.body)
	}
}
