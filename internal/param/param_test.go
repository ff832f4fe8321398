package param

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
	"github.com/hensachi/hensachi/internal/testrig/towntest"
)

// TestParse pins what each transport refuses of a query string, and which parameter it names: the
// one at fault wherever a name can be read, none (and the pair quoted) where it cannot.
func TestParse(t *testing.T) {
	known := []string{"pref", "limit", "codes", "q"}
	for _, c := range []struct {
		raw       string
		api, page string // the parameter at fault, "-" when accepted, "" for none
	}{
		{"", "-", "-"},
		{"pref=13&limit=5", "-", "-"},
		{"pref=%zz", "pref", "pref"},
		{"q=%zz", "q", "q"},
		{"q=%ff%fe", "q", "q"},                 // not UTF-8, even if unknown to the API
		{"x=%ff%fe", "x", "x"},                 // the same of a parameter the call does not take
		{"%ff=1", "", ""},                      // a name not UTF-8
		{"%zz=1", "", ""},                      // a name that cannot be unescaped
		{"=1", "", ""},                         // no name
		{"limit=1;offset=2", "limit", "limit"}, // a ; is no separator: limit's value is at fault
		{"limit;offset=2", "limit", "limit"},
		{"limit=1%3B2", "-", "-"},                            // an escaped ; is a value's (which Int then refuses)
		{"utm_source=x", "utm_source", "-"},                  // the pages ignore what they do not read
		{"pref=", "pref", "-"},                               // a form's empty option
		{"codes=" + strings.Repeat("13101,", 300), "-", "-"}, // a list is as long as the request line allows
		{"limit=" + strings.Repeat("9", 129), "-", "-"},      // a value of one is too long when read (TestOneAndList)
		{"codes=13101&codes=27100", "-", "-"},                // a list may repeat
		{"&&pref=13&", "-", "-"},
	} {
		for _, side := range []struct {
			name  string
			parse func(string) (Query, error)
			want  string
		}{
			{"api", func(raw string) (Query, error) { return ParseAPI(raw, known...) }, c.api},
			{"page", ParsePage, c.page},
		} {
			_, err := side.parse(c.raw)
			var e *hensachi.Error
			switch {
			case side.want == "-" && err != nil:
				t.Errorf("%s %q: %v", side.name, c.raw, err)
			case side.want == "-":
			case !errors.As(err, &e) || e.Code != hensachi.EInvalidParameter:
				t.Errorf("%s %q: %v, want invalid_parameter", side.name, c.raw, err)
			case e.Param != side.want:
				t.Errorf("%s %q names %q, want %q", side.name, c.raw, e.Param, side.want)
			case e.Param == "" && !strings.Contains(e.Message, strings.TrimPrefix(c.raw, "&")):
				t.Errorf("%s %q: %q does not quote what was sent", side.name, c.raw, e.Message)
			}
		}
	}
}

func TestOneAndList(t *testing.T) {
	q, err := ParsePage("x=income&x=pop&codes=13101,+27100,&codes=01100&pref=")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := q.One("x"); hensachi.ErrorCode(err) != hensachi.EInvalidParameter {
		t.Errorf("x given twice: %v", err)
	}
	if got := strings.Join(q.List("codes"), ","); got != "13101,27100,01100" {
		t.Errorf("codes %s", got)
	}
	if _, ok, err := q.One("pref"); ok || err != nil {
		t.Errorf("an empty pref on a page is absent: %v %v", ok, err)
	}
	q, err = ParsePage("limit=" + strings.Repeat("9", MaxLen+1) + "&keys=" + strings.Repeat("population_under15_female,", 300))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := q.One("limit"); hensachi.ErrorCode(err) != hensachi.EInvalidParameter || err.(*hensachi.Error).Param != "limit" {
		t.Errorf("a value of one over MaxLen: %v", err)
	}
	if n := len(q.List("keys")); n != 300 {
		t.Errorf("a list of 300 items in %d bytes: %d read", 300*len("population_under15_female,"), n)
	}
}

// TestValidators checks that each validator gives one code for one input, whichever transport
// read the query.
func TestValidators(t *testing.T) {
	c := towntest.Catalog()
	for _, tc := range []struct {
		name, raw string
		read      func(Query) error
		code      string
	}{
		{"pref absent", "", func(q Query) error { _, err := Prefecture(c, q); return err }, ""},
		{"pref known", "pref=13", func(q Query) error { _, err := Prefecture(c, q); return err }, ""},
		{"pref unknown", "pref=99", func(q Query) error { _, err := Prefecture(c, q); return err }, hensachi.EInvalidParameter},
		{"pref malformed", "pref=tokyo", func(q Query) error { _, err := Prefecture(c, q); return err }, hensachi.EInvalidParameter},
		{"pref twice", "pref=13&pref=01", func(q Query) error { _, err := Prefecture(c, q); return err }, hensachi.EInvalidParameter},
		{"compare", "codes=01100,13101", func(q Query) error { _, err := Compared(c, q, 2); return err }, ""},
		{"compare repeated", "codes=01100&codes=13101", func(q Query) error { _, err := Compared(c, q, 2); return err }, ""},
		{"compare one", "codes=01100", func(q Query) error { _, err := Compared(c, q, 2); return err }, hensachi.EInvalidParameter},
		{"compare one on a page", "codes=01100", func(q Query) error { _, err := Compared(c, q, 1); return err }, ""},
		{"compare none on a page", "", func(q Query) error { _, err := Compared(c, q, 1); return err }, hensachi.EInvalidParameter},
		{"compare twice the same", "codes=01100,01100", func(q Query) error { _, err := Compared(c, q, 2); return err }, hensachi.EInvalidParameter},
		{"compare malformed", "codes=01100,1310", func(q Query) error { _, err := Compared(c, q, 2); return err }, hensachi.EInvalidParameter},
		{"compare unknown", "codes=01100,99999", func(q Query) error { _, err := Compared(c, q, 2); return err }, hensachi.ENotFound},
		{"compare 11", "codes=" + strings.Repeat("01100,", 10) + "13101", func(q Query) error { _, err := Compared(c, q, 2); return err }, hensachi.EInvalidParameter},
		{"measure", "x=pop", func(q Query) error { _, err := MeasureOf(c, q, "x", "income"); return err }, ""},
		{"measure default", "", func(q Query) error { _, err := MeasureOf(c, q, "x", "income"); return err }, ""},
		{"measure unknown", "x=hensachi", func(q Query) error { _, err := MeasureOf(c, q, "x", "income"); return err }, hensachi.EInvalidParameter},
		{"measure twice", "x=income&x=pop", func(q Query) error { _, err := MeasureOf(c, q, "x", "income"); return err }, hensachi.EInvalidParameter},
		{"measure indicator", "x=births_per_1000", func(q Query) error { _, err := MeasureOf(c, q, "x", "income"); return err }, ""},
		{"measure indicator year", "x=births_per_1000%402020", func(q Query) error { _, err := MeasureOf(c, q, "x", "income"); return err }, ""},
		{"measure indicator no such year", "x=births_per_1000@2021", func(q Query) error { _, err := MeasureOf(c, q, "x", "income"); return err }, hensachi.EInvalidParameter},
		{"measure indicator empty year", "x=births_per_1000@", func(q Query) error { _, err := MeasureOf(c, q, "x", "income"); return err }, hensachi.EInvalidParameter},
		{"measure year of an axis", "x=income@2020", func(q Query) error { _, err := MeasureOf(c, q, "x", "income"); return err }, hensachi.EInvalidParameter},
		{"indicator year", "year=2020", func(q Query) error { _, err := IndicatorYear(c, q, 0); return err }, ""},
		{"indicator year absent", "", func(q Query) error { _, err := IndicatorYear(c, q, 0); return err }, ""},
		{"indicator year unknown", "year=2019", func(q Query) error { _, err := IndicatorYear(c, q, 0); return err }, hensachi.EInvalidParameter},
		{"indicator year signed", "year=%2B2020", func(q Query) error { _, err := IndicatorYear(c, q, 0); return err }, hensachi.EInvalidParameter},
		// one reading of a year on every call: 02020 is no year, not 2020, for /indicators/{key},
		// the export and a measure's key@year alike
		{"indicator year with a zero", "year=02020", func(q Query) error { _, err := IndicatorYear(c, q, 0); return err }, hensachi.EInvalidParameter},
		{"export year with a zero", "year=02020", func(q Query) error { _, _, err := IndicatorsYear(c, q, []int{0}, false); return err }, hensachi.EInvalidParameter},
		{"export year", "year=2020", func(q Query) error { _, _, err := IndicatorsYear(c, q, []int{0}, false); return err }, ""},
		{"measure indicator year with a zero", "x=births_per_1000@02020", func(q Query) error { _, err := MeasureOf(c, q, "x", "income"); return err }, hensachi.EInvalidParameter},
		{"measure and year with a zero", "x=births_per_1000&year=02020", func(q Query) error { _, err := MeasureYearOf(c, q, "x", "year", "income"); return err }, hensachi.EInvalidParameter},
		{"measure and its own year", "x=births_per_1000&xyear=2020", func(q Query) error { _, err := MeasureYearOf(c, q, "x", "xyear", "income"); return err }, ""},
		{"measure and another's year", "x=births_per_1000&year=2021", func(q Query) error { _, err := MeasureYearOf(c, q, "x", "xyear", "income"); return err }, ""},
		{"axis and a year", "x=income&xyear=2020", func(q Query) error { _, err := MeasureYearOf(c, q, "x", "xyear", "income"); return err }, hensachi.EInvalidParameter},
		{"group", "group=財政", func(q Query) error { _, err := IndicatorGroup(q); return err }, ""},
		{"group unknown", "group=財務", func(q Query) error { _, err := IndicatorGroup(q); return err }, hensachi.EInvalidParameter},
		{"int", "limit=100", func(q Query) error { _, err := Int(q, "limit", 20, 1, 100); return err }, ""},
		{"int over", "limit=101", func(q Query) error { _, err := Int(q, "limit", 20, 1, 100); return err }, hensachi.EInvalidParameter},
		{"int signed", "limit=%2B5", func(q Query) error { _, err := Int(q, "limit", 20, 1, 100); return err }, hensachi.EInvalidParameter},
		{"highlight", "highlight=13101", func(q Query) error { _, err := Highlight(q); return err }, ""},
		{"highlight absent", "", func(q Query) error { _, err := Highlight(q); return err }, ""},
		{"highlight of no municipality", "highlight=99999", func(q Query) error { _, err := Highlight(q); return err }, ""},
		{"highlight malformed", "highlight=1310", func(q Query) error { _, err := Highlight(q); return err }, hensachi.EInvalidParameter},
		{"highlight twice", "highlight=13101&highlight=13102", func(q Query) error { _, err := Highlight(q); return err }, hensachi.EInvalidParameter},
		{"choice", "order=pref", func(q Query) error { _, err := Choice(q, "order", "pref", "national"); return err }, ""},
		{"choice absent", "", func(q Query) error {
			if c, err := Choice(q, "order", "pref", "national"); c != "pref" {
				return fmt.Errorf("%q, %w", c, err)
			}
			return nil
		}, ""},
		{"choice unknown", "order=nation", func(q Query) error { _, err := Choice(q, "order", "pref", "national"); return err }, hensachi.EInvalidParameter},
		{"order", "order=asc", func(q Query) error { _, err := Order(q); return err }, ""},
		{"order unknown", "order=up", func(q Query) error { _, err := Order(q); return err }, hensachi.EInvalidParameter},
	} {
		for _, parse := range []func(string) (Query, error){
			func(raw string) (Query, error) {
				return ParseAPI(raw, "pref", "codes", "x", "xyear", "limit", "order", "year", "group", "highlight")
			},
			ParsePage,
		} {
			q, err := parse(tc.raw)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if got := hensachi.ErrorCode(tc.read(q)); got != tc.code {
				t.Errorf("%s: code %q, want %q", tc.name, got, tc.code)
			}
		}
	}
	for _, tc := range []struct {
		code, want string
	}{{"13101", ""}, {"99999", hensachi.ENotFound}, {"1310", hensachi.EInvalidParameter}, {"１３１０１", hensachi.EInvalidParameter}} {
		if _, err := Municipality(c, "code", tc.code); hensachi.ErrorCode(err) != tc.want {
			t.Errorf("municipality %q: %v, want %q", tc.code, err, tc.want)
		}
	}
	for _, tc := range []struct{ code, want string }{{"13", ""}, {"99", hensachi.ENotFound}, {"x", hensachi.EInvalidParameter}} {
		if _, err := PrefectureInPath(c, "pref", tc.code); hensachi.ErrorCode(err) != tc.want {
			t.Errorf("prefecture %q: %v, want %q", tc.code, err, tc.want)
		}
	}
	if _, err := Axis("young"); err != nil {
		t.Error(err)
	}
	if _, err := Axis("old"); hensachi.ErrorCode(err) != hensachi.ENotFound {
		t.Errorf("unknown axis: %v", err)
	}
	if i, err := Indicator(c, "fiscal_strength"); err != nil || i != 1 {
		t.Errorf("indicator fiscal_strength: %d, %v", i, err)
	}
	if _, err := Indicator(c, "fiscal"); hensachi.ErrorCode(err) != hensachi.ENotFound {
		t.Errorf("unknown indicator: %v", err)
	}
}

// TestIndicatorMeasure: an indicator as a measure takes its latest year, or the year after @,
// names it in its key and label, and gives that year's values and national median.
func TestIndicatorMeasure(t *testing.T) {
	c := towntest.Catalog()
	for _, tc := range []struct {
		raw, key, label string
		median          float64
		sapporo         hensachi.Optional[float64]
		satsunai        hensachi.Optional[float64]
	}{
		{"x=births_per_1000", "births_per_1000@2023", "出生率（人口千人当たり）（2023年）", 5.6, hensachi.Some(6.1), hensachi.Some(4.2)},
		{"x=births_per_1000@2020", "births_per_1000@2020", "出生率（人口千人当たり）（2020年）", 5.875, hensachi.Some(6.5), hensachi.Optional[float64]{}},
	} {
		q, err := ParsePage(tc.raw)
		if err != nil {
			t.Fatal(err)
		}
		m, err := MeasureOf(c, q, "x", "income")
		if err != nil {
			t.Fatalf("%s: %v", tc.raw, err)
		}
		sapporo, _ := c.Municipality("01100")
		satsunai, _ := c.Municipality("01345")
		if m.Key != tc.key || m.Label != tc.label || m.Unit != "‰" || m.Decimals != 2 || m.Median != hensachi.Some(tc.median) ||
			m.Value(sapporo) != tc.sapporo || m.Value(satsunai) != tc.satsunai {
			t.Errorf("%s: %+v median %v, values %v %v", tc.raw, m.Field, m.Median, m.Value(sapporo), m.Value(satsunai))
		}
	}
}

func FuzzParseAPI(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	for _, s := range []string{"", "limit=20", "limit=1&limit=2", "pref=%zz", "a=b&c", "order=asc&pref=13&limit=100&offset=0", "%", "&&&",
		"limit=" + strings.Repeat("9", 80), "q=%ff", "limit=1;offset=2", "limit;offset=2", "%FF=1", "=1", "q=%zz", "%zz=1", "a=1=2",
		"limit=1%3B2", ";", "=", "+=+", "pref=%E3%81", "codes=" + strings.Repeat("13101,", 40), "year=02020", "year=%2B2020"} {
		f.Add(s)
	}
	known := []string{"order", "pref", "limit", "offset", "codes", "year"}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := ParseAPI(raw, known...)
		if err != nil {
			// invalid_parameter, naming a parameter the query has, or none when no name can be read
			var e *hensachi.Error
			if !errors.As(err, &e) || e.Code != hensachi.EInvalidParameter || !utf8.ValidString(e.Message) {
				t.Fatalf("error %#v", err)
			}
			if e.Param != "" && !strings.Contains(raw, e.Param) && !strings.Contains(raw, "%") && !strings.Contains(raw, "+") {
				t.Fatalf("%q names %q", raw, e.Param)
			}
			return
		}
		for name, vs := range q.values {
			for _, v := range vs {
				if !strings.Contains(strings.Join(known, ","), name) || v == "" || !utf8.ValidString(v) {
					t.Fatalf("accepted %q=%q", name, v)
				}
			}
			if v, ok, err := q.One(name); err == nil && ok && len(v) > MaxLen {
				t.Fatalf("accepted %s of %d bytes", name, len(v))
			}
		}
		if n, err := Int(q, "limit", 20, 1, 100); err == nil && (n < 1 || n > 100) {
			t.Fatalf("limit %d accepted", n)
		}
	})
}

// FuzzCompared: whatever the query, Compared accepts 2 to 10 distinct known codes or fails with
// invalid_parameter or not_found.
func FuzzCompared(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	for _, s := range []string{"", "codes=13101,01100", "codes=13101&codes=01100", "codes=,,,", "codes=13101,13101", "codes=%zz", "codes=１３１０１,01100"} {
		f.Add(s)
	}
	c := towntest.Catalog()
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := ParsePage(raw)
		if err != nil {
			return
		}
		towns, err := Compared(c, q, 2)
		if code := hensachi.ErrorCode(err); err != nil {
			if code != hensachi.EInvalidParameter && code != hensachi.ENotFound {
				t.Fatalf("error of code %s: %v", code, err)
			}
			return
		}
		seen := map[string]bool{}
		for _, m := range towns {
			if seen[m.Code] {
				t.Fatalf("accepted %s twice", m.Code)
			}
			seen[m.Code] = true
		}
		if len(towns) < 2 || len(towns) > MaxCompared {
			t.Fatalf("accepted %d codes", len(towns))
		}
	})
}

// TestSurveyYear: a year is four digits as years are written, and a refusal names the parameter.
func TestSurveyYear(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int // 0: refused
	}{{"2020", 2020}, {"1995", 1995}, {"02020", 0}, {"0202", 0}, {"+202", 0}, {"202", 0}, {"20200", 0}, {"２０２０", 0}, {"", 0}} {
		y, err := surveyYear("m", tc.in)
		if y != tc.want || (err == nil) != (tc.want != 0) {
			t.Errorf("%q: %d, %v; want %d", tc.in, y, err, tc.want)
		}
		if err != nil && err.(*hensachi.Error).Param != "m" {
			t.Errorf("%q names %q", tc.in, err.(*hensachi.Error).Param)
		}
	}
}
