package rawfiles

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Furusato is the hometown-tax series by municipality and fiscal year: receipts in thousand yen and
// in yen, and the number of donations.
type Furusato struct {
	ReceiptsThousandYen map[string]map[int]float64 // 5-digit code → fiscal year → 千円
	ReceiptsYen         map[string]map[int]float64 // the same in yen, exact where the detail file has the year
	Count               map[string]map[int]float64
}

// ReadFurusato reads the history (data.json: per code [amount 千円, count] pairs from FY2008) and
// the detail file (one row per municipality and fiscal year, amounts in yen) and keeps, for each
// year, the detail file's figures where it has the year: it is the newer source, its amount in yen
// rounded to thousands (half away from zero), as the history's 千円 are.
func ReadFurusato(historyPath, detailPath string) (Furusato, error) {
	fu := Furusato{ReceiptsThousandYen: map[string]map[int]float64{}, ReceiptsYen: map[string]map[int]float64{}, Count: map[string]map[int]float64{}}
	put := func(m map[string]map[int]float64, code string, year int, v float64) {
		if m[code] == nil {
			m[code] = map[int]float64{}
		}
		m[code][year] = v
	}
	b, err := os.ReadFile(historyPath)
	if err != nil {
		return fu, err
	}
	var history map[string][]float64
	if err := json.Unmarshal(b, &history); err != nil {
		return fu, fmt.Errorf("%s: %w", historyPath, err)
	}
	detail, err := readFurusatoDetail(detailPath)
	if err != nil {
		return fu, err
	}
	detailYears := map[int]bool{}
	for _, r := range detail {
		detailYears[r.year] = true
	}
	const firstYear = 2008
	for code, vals := range history {
		for i := 0; i+1 < len(vals); i += 2 { // the last number is a deduction, not a pair
			year := firstYear + i/2
			if detailYears[year] {
				continue
			}
			put(fu.ReceiptsThousandYen, code, year, vals[i])
			put(fu.ReceiptsYen, code, year, vals[i]*1000)
			put(fu.Count, code, year, vals[i+1])
		}
	}
	for _, r := range detail {
		put(fu.ReceiptsThousandYen, r.code, r.year, math.Round(r.yen/1000))
		put(fu.ReceiptsYen, r.code, r.year, r.yen)
		put(fu.Count, r.code, r.year, r.count)
	}
	return fu, nil
}

type furusatoRow struct {
	code       string
	year       int
	yen, count float64
}

func readFurusatoDetail(path string) ([]furusatoRow, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	recs, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte("\ufeff")))).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) < 2 {
		return nil, fmt.Errorf("%s: no rows", path)
	}
	col := map[string]int{}
	for _, h := range []string{"団体コード", "市区町村", "年度", "受入額_円", "受入件数"} {
		if col[h] = slices.Index(recs[0], h); col[h] < 0 {
			return nil, fmt.Errorf("%s: no column %s", path, h)
		}
	}
	var rows []furusatoRow
	for i, rec := range recs[1:] {
		where := fmt.Sprintf("%s row %d", path, i+2)
		if name := strings.TrimSpace(rec[col["市区町村"]]); name == "" || name == "0" {
			continue // a prefecture
		}
		code := strings.TrimSpace(rec[col["団体コード"]])
		if len(code) != 6 {
			return nil, fmt.Errorf("%s: code %q is not 6 digits", where, code)
		}
		r := furusatoRow{code: code[:5]}
		if r.year, err = strconv.Atoi(strings.TrimSpace(rec[col["年度"]])); err != nil {
			return nil, fmt.Errorf("%s: fiscal year %q", where, rec[col["年度"]])
		}
		if r.yen, err = number(where+" 受入額_円", rec[col["受入額_円"]]); err != nil {
			return nil, err
		}
		if r.count, err = number(where+" 受入件数", rec[col["受入件数"]]); err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}
