package rawfiles

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/hensachi/hensachi/xlsfile"
)

// JuminRelease is one release of 総務省「住民基本台帳に基づく人口、人口動態及び世帯数」: each
// municipality's figures by item (population, households: 1 January of Year; births, deaths,
// moves_in, moves_out: the calendar year before).
type JuminRelease struct {
	File   string
	Year   int
	Values map[string]map[string]float64 // 5-digit code → item → figure
}

// juminPositions are the columns of the items in every release, the same in both formats:
// 人口 計 is the sixth column, 世帯数 the seventh, and so on.
var juminPositions = map[string]int{"population": 5, "households": 6, "moves_in": 9, "births": 10, "moves_out": 15, "deaths": 16}

// juminHeaders are the texts the releases write above those columns, lowest first, as checks that
// the positions still hold.
var juminHeaders = map[int]string{9: "転入者数（計）", 10: "出生者数", 15: "転出者数（計）", 16: "死亡者数"}

// juminStocks are the items of 1 January; the others are flows of the year before.
var juminStocks = map[string]bool{"population": true, "households": true}

// ReadJumin reads the releases jumin-YYYY.xls and jumin-YYYY.xlsx in dir, by position, keeping
// the rows whose 6-digit code (without its check digit) or predecessor's is a municipality of cl.
func ReadJumin(dir string, cl *CodeList) (map[int]JuminRelease, error) {
	out := map[int]JuminRelease{}
	paths, err := filepath.Glob(filepath.Join(dir, "jumin-*.xls*"))
	if err != nil {
		return nil, err
	}
	current := map[string]bool{}
	for _, m := range cl.Entries {
		current[m.Code] = true
	}
	successor := map[string]string{}
	for now, before := range ssdsePredecessors {
		successor[before] = now
	}
	for _, p := range paths {
		base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(p), ".xlsx"), ".xls")
		year, err := strconv.Atoi(strings.TrimPrefix(base, "jumin-"))
		if err != nil {
			return nil, fmt.Errorf("%s: no year in the name", p)
		}
		rows, err := juminSheet(p)
		if err != nil {
			return nil, err
		}
		rel := JuminRelease{File: filepath.Base(p), Year: year, Values: map[string]map[string]float64{}}
		header := -1
		for i, r := range rows {
			if len(r) > 10 && strings.TrimSpace(r[10]) == "出生者数" {
				header = i
				break
			}
		}
		if header < 0 {
			return nil, fmt.Errorf("%s: no 出生者数 in column K", p)
		}
		for col, want := range juminHeaders {
			if got := strings.TrimSpace(rows[header][col]); got != want {
				return nil, fmt.Errorf("%s row %d column %d: %q, want %q", p, header+1, col+1, got, want)
			}
		}
		for i, r := range rows[header+1:] {
			if len(r) <= 16 || len(strings.TrimSpace(r[0])) != 6 {
				continue
			}
			code := strings.TrimSpace(r[0])[:5]
			if s, ok := successor[code]; ok {
				code = s
			}
			if !current[code] {
				continue // the totals, wards, districts, a town merged since
			}
			vals := map[string]float64{}
			for item, col := range juminPositions {
				v, err := number(fmt.Sprintf("%s row %d", p, header+i+2), r[col])
				if err != nil {
					return nil, err
				}
				vals[item] = v
			}
			rel.Values[code] = vals
		}
		out[year] = rel
	}
	return out, nil
}

func juminSheet(p string) ([][]string, error) {
	if strings.HasSuffix(p, ".xls") {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		wb, err := xlsfile.Read(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		return wb.Rows(wb.Sheets()[0])
	}
	f, err := excelize.OpenFile(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.GetRows(f.GetSheetList()[0], excelize.Options{RawCellValue: true})
}

// juminRelease is the release holding an item's figure of a year: a stock's own year, a flow's
// the year after.
func juminRelease(item string, year int) int {
	if juminStocks[item] {
		return year
	}
	return year + 1
}

// juminMerged are the municipalities whose territory a merger changed within the releases' span,
// with its date: their figures of an earlier territory are none of theirs (栃木市 took in 岩舟町
// on 2014-04-05, after the release of 1 January 2014 and within the flows of 2014).
var juminMerged = map[string]string{"09203": "2014-04-05"}

// juminChanged reports whether a figure of an item and year is of a territory a merger changed
// since: a stock of 1 January year or a flow of the calendar year, the merger on or after 1
// January year.
func juminChanged(code string, year int) bool {
	date, ok := juminMerged[code]
	return ok && fmt.Sprintf("%d-01-01", year) <= date
}
