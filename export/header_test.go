package export_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/export"
	"github.com/hensachi/hensachi/internal/testrig/towntest"
)

const testCredit = "出典：テスト統計（https://example.jp/stats）を加工して作成"

// TestJapaneseCSV: the Japanese CSV has the English one's rows under Japanese names (but for the
// long table's cells that name an indicator or a measure of change), then the credit as a row of
// the table's width; its gzip is the same bytes, for the long table too, whose parts are cut from
// the national file.
func TestJapaneseCSV(t *testing.T) {
	c := towntest.Catalog()
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		file func(f *export.Format) (*export.File, error)
		// named are the columns whose cells are words, in the file's language
		named []int
	}{
		{"national", func(f *export.Format) (*export.File, error) { return export.Of(c, f, "") }, nil},
		{"indicators", func(f *export.Format) (*export.File, error) {
			return export.WithIndicators(c, f, "13", export.Selection{Indicators: []int{0}})
		}, nil},
		{"series", func(f *export.Format) (*export.File, error) { return export.Series(ctx, c, f, "", []int{1, 0}) }, []int{3}},
		{"series of a prefecture", func(f *export.Format) (*export.File, error) { return export.Series(ctx, c, f, "01", []int{0, 1}) }, []int{3}},
		{"series with a change", func(f *export.Format) (*export.File, error) {
			return export.SeriesChange(ctx, c, f, "13", []int{0}, [2]int{2020, 2023})
		}, []int{3, 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			en, err := tc.file(export.CSV)
			if err != nil {
				t.Fatal(err)
			}
			ja, err := tc.file(export.JapaneseCSV)
			if err != nil {
				t.Fatal(err)
			}
			enRows, jaRows := readCSV(t, body(t, en)), readCSV(t, body(t, ja))
			last := jaRows[len(jaRows)-1]
			if last[0] != testCredit || len(last) != len(enRows[0]) || strings.Join(last[1:], "") != "" {
				t.Errorf("last row %q, want the credit alone in a row of %d cells", last, len(enRows[0]))
			}
			words := func(rows [][]string) [][]string {
				for _, row := range rows {
					for _, k := range tc.named {
						row[k] = ""
					}
				}
				return rows
			}
			if !slices.EqualFunc(words(enRows[1:]), words(jaRows[1:len(jaRows)-1]), slices.Equal) {
				t.Error("the Japanese rows differ from the English ones")
			}
			if slices.Equal(enRows[0], jaRows[0]) || jaRows[0][0] != "市区町村コード" {
				t.Errorf("Japanese header %q", jaRows[0])
			}
			var gz bytes.Buffer
			if err := ja.WriteGzipped(&gz); err != nil || !bytes.Equal(gunzip(t, gz.Bytes()), body(t, ja)) {
				t.Errorf("the gzip is not the file: %v", err)
			}
		})
	}
}

// TestJapaneseNames: the columns of an indicator, its change and the long table in Japanese, with
// their units; a page's download of one indicator has it alone beside the municipality's names.
func TestJapaneseNames(t *testing.T) {
	c := towntest.Catalog()
	only, err := export.WithIndicators(c, export.JapaneseCSV, "13", export.Selection{Indicators: []int{0}, Year: 2020, Only: true})
	if err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, only.Body)
	want := []string{"市区町村コード", "市区町村名", "都道府県コード", "都道府県",
		"出生率（人口千人当たり）_2020（‰）", "出生率（人口千人当たり）_2020_全国順位", "出生率（人口千人当たり）_2020_偏差値"}
	if !slices.Equal(rows[0], want) || len(rows) != 1+2+1 || only.Filename != "hensachi-births_per_1000-2020-13-"+c.Meta.DataUpdated+".csv" {
		t.Errorf("%s: %q, %d rows", only.Filename, rows[0], len(rows))
	}
	if got := strings.Join(rows[1], ","); got != "13101,千代田区,13,東京都,7.1,1,61.5" {
		t.Errorf("first row %s", got)
	}

	change, err := export.WithIndicators(c, export.JapaneseCSV, "", export.Selection{Indicators: []int{0}, Year: 2023, Change: [2]int{2020, 2023}, Only: true})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"出生率（人口千人当たり）_2023（‰）", "出生率（人口千人当たり）_2023_全国順位", "出生率（人口千人当たり）_2023_偏差値",
		"出生率（人口千人当たり）_2020→2023_増減（‰）", "出生率（人口千人当たり）_2020→2023_増減_全国順位", "出生率（人口千人当たり）_2020→2023_増減_偏差値"}
	if got := readCSV(t, change.Body)[0][4:]; !slices.Equal(got, want) || change.Filename != "hensachi-births_per_1000-change-2020-2023-"+c.Meta.DataUpdated+".csv" {
		t.Errorf("%s: %q", change.Filename, got)
	}

	national, _ := export.Of(c, export.JapaneseCSV, "")
	header := readCSV(t, national.Body)[0]
	for _, name := range []string{"所得（万円）", "所得_偏差値", "所得_全国順位", "総人口（人）", "面積（km²）", "財政力指数", "ふるさと納税_受入額（円）", "ふるさと納税_受入額_令和6年度（千円）"} {
		if !slices.Contains(header, name) {
			t.Errorf("no column %s in %q", name, header)
		}
	}
}

// TestTownSeries: a municipality's rows of an indicator's long table, as the national table has
// them, in Japanese with the credit.
func TestTownSeries(t *testing.T) {
	c := towntest.Catalog()
	m := c.Row(c.Index("01100"))
	en, err := export.TownSeries(c, export.CSV, m, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(readCSV(t, en.Body)[1], ","); !strings.HasPrefix(got, "01100,札幌市,01,births_per_1000,2020,6.5,") || en.Filename != "hensachi-01100-births_per_1000-"+c.Meta.DataUpdated+".csv" {
		t.Errorf("%s: first row %s", en.Filename, got)
	}
	ja, _ := export.TownSeries(c, export.JapaneseCSV, m, 0)
	rows := readCSV(t, ja.Body)
	if len(rows) != 1+2+1 || rows[1][3] != "出生率（人口千人当たり）（‰）" || rows[3][0] != testCredit {
		t.Errorf("%q", rows)
	}
}

// TestWithHeader: header=ja is the CSV's Japanese variant; other formats keep English names and
// refuse it, naming the parameter.
func TestWithHeader(t *testing.T) {
	if f, err := export.CSV.WithHeader("ja"); f != export.JapaneseCSV || err != nil {
		t.Errorf("csv in ja: %v %v", f, err)
	}
	if f, err := export.CSV.WithHeader("en"); f != export.CSV || err != nil {
		t.Errorf("csv in en: %v %v", f, err)
	}
	for _, f := range []*export.Format{export.Parquet, export.GeoJSON} {
		var e *hensachi.Error
		if _, err := f.WithHeader("ja"); !errors.As(err, &e) || e.Param != "header" || e.Code != hensachi.EInvalidParameter {
			t.Errorf("%s in ja: %v", f.Name, err)
		}
	}
}

// body is a file's bytes as written.
func body(t *testing.T, f *export.File) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := f.WriteBody(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
