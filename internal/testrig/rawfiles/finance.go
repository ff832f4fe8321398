package rawfiles

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"
	"golang.org/x/text/width"

	"github.com/hensachi/hensachi/xlsfile"
)

// FinanceYear is one fiscal year of 総務省「地方公共団体の主要財政指標一覧」: each
// municipality's figures by the header's name (財政力指数, 経常収支比率, …). A cell the list leaves
// without a figure (－) is absent.
type FinanceYear struct {
	File   string
	Fiscal int
	Values map[string]map[string]float64 // 5-digit code → header → figure
}

// financeFiscalYear reads the fiscal year from a file named after its Japanese era year (H28.xlsx,
// R3.xlsx) or, failing that, from a title such as 全市町村の主要財政指標（令和４年度）.
var (
	eraFile   = regexp.MustCompile(`^([HR])(\d+)\.xlsx?$`)
	eraInText = regexp.MustCompile(`(平成|令和)(\d+|元)年度`)
)

func fiscalYear(file, title string) (int, error) {
	if m := eraFile.FindStringSubmatch(filepath.Base(file)); m != nil {
		n, _ := strconv.Atoi(m[2])
		return eraBase(m[1]) + n, nil
	}
	if m := eraInText.FindStringSubmatch(width.Narrow.String(title)); m != nil {
		n := 1
		if m[2] != "元" {
			n, _ = strconv.Atoi(m[2])
		}
		return eraBase(m[1]) + n, nil
	}
	return 0, fmt.Errorf("%s: neither its name nor its title %q names the fiscal year", file, title)
}

func eraBase(era string) int {
	if era == "H" || era == "平成" {
		return 1988
	}
	return 2018
}

// ReadFinanceXLSX reads one year's list from an xlsx workbook whose rows carry the 6-digit
// municipality code in the first column (FY2016 on).
func ReadFinanceXLSX(path string) (FinanceYear, error) {
	fy := FinanceYear{File: filepath.Base(path), Values: map[string]map[string]float64{}}
	f, err := excelize.OpenFile(path)
	if err != nil {
		return fy, err
	}
	defer f.Close()
	sheets := f.GetSheetList()
	if len(sheets) == 0 {
		return fy, fmt.Errorf("%s: no sheet", path)
	}
	// The raw values: the lists format negative ratios with a triangle (△5.6), which is no number.
	rows, err := f.GetRows(sheets[0], excelize.Options{RawCellValue: true})
	if err != nil {
		return fy, fmt.Errorf("%s: %w", path, err)
	}
	return fy, fy.fill(path, rows)
}

// fill reads a list laid out as a title row, a header row and one row per municipality, keyed by
// the 6-digit code in a column headed 団体コード.
func (fy *FinanceYear) fill(path string, rows [][]string) error {
	if len(rows) < 3 || len(rows[0]) == 0 {
		return fmt.Errorf("%s: expected a title row, a header row and municipalities", path)
	}
	var err error
	if fy.Fiscal, err = fiscalYear(path, rows[0][0]); err != nil {
		return err
	}
	header := rows[1]
	codeCol := slices.Index(header, "団体コード")
	if codeCol < 0 {
		return fmt.Errorf("%s row 2: no column 団体コード in %q", path, header)
	}
	for i, row := range rows[2:] {
		if codeCol >= len(row) {
			continue
		}
		code := strings.TrimSpace(row[codeCol])
		if len(code) != 6 || strings.Trim(code, "0123456789") != "" {
			continue // the national average and the notes below the list
		}
		if _, dup := fy.Values[code[:5]]; dup {
			return fmt.Errorf("%s row %d: second row of %s", path, i+3, code)
		}
		vals := map[string]float64{}
		for j, h := range header {
			if j == codeCol || j >= len(row) || h == "" {
				continue
			}
			s := strings.TrimSpace(row[j])
			// FY2008 brackets the special wards' figures computed from 特別区財政調整交付金, "(0.80)",
			// as every other list computes and writes them plainly.
			if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
				s = s[1 : len(s)-1]
			}
			if (s == "-" || s == "－") && h == "将来負担比率" {
				vals[h] = 0 // the ministry's dash for no net future burden
				continue
			}
			if s == "" || s == "-" || s == "－" || strings.Trim(s, "0123456789.-") != "" {
				continue // names, and the dash of a ratio the list does not compute
			}
			if vals[h], err = number(fmt.Sprintf("%s row %d column %s", path, i+3, h), s); err != nil {
				return err
			}
		}
		fy.Values[code[:5]] = vals
	}
	return nil
}

// ReadFinanceXLS reads one year's list from a BIFF8 workbook (FY2005–FY2015). Lists that carry the
// 6-digit code (FY2011 on) are keyed by it; the earlier ones by prefecture and name, looked up in
// names (see CodeList.ByName), and a name not found there is left out.
//
// Municipalities merged after the list's year are left out too, and since this reader has no table
// of mergers it cannot tell which of a prefecture's municipalities took a merged one in: where any
// municipality a list names in a prefecture is not found by its name in names (it has since
// merged, or been renamed), the list's whole prefecture is left out. What is left out is Unknown
// to Sources.Value, never compared.
func ReadFinanceXLS(path string, names func(pref, name string) (string, bool)) (FinanceYear, error) {
	fy := FinanceYear{File: filepath.Base(path), Values: map[string]map[string]float64{}}
	f, err := os.Open(path)
	if err != nil {
		return fy, err
	}
	defer f.Close()
	wb, err := xlsfile.Read(f)
	if err != nil {
		return fy, fmt.Errorf("%s: %w", path, err)
	}
	if len(wb.Sheets()) == 0 {
		return fy, fmt.Errorf("%s: no worksheet", path)
	}
	rows, err := wb.Rows(wb.Sheets()[0])
	if err != nil {
		return fy, fmt.Errorf("%s: %w", path, err)
	}
	if len(rows) < 2 {
		return fy, fmt.Errorf("%s: expected a title row and a header row", path)
	}
	if !slices.Contains(rows[1], "団体コード") {
		rows = withCodes(rows, names)
	}
	if err := fy.fill(path, rows); err != nil {
		return fy, err
	}
	for _, pref := range changedPrefectures(rows, names) {
		maps.DeleteFunc(fy.Values, func(code string, _ map[string]float64) bool { return code[:2] == pref })
	}
	return fy, nil
}

// changedPrefectures are the two-digit codes of the prefectures where a row of the list names a
// municipality names does not know (a prefecture is known by the codes of its names found, so the
// national average and the notes below the list, whose first cell is no prefecture, play no part).
func changedPrefectures(rows [][]string, names func(pref, name string) (string, bool)) []string {
	pi, ni := slices.Index(rows[1], "都道府県名"), slices.Index(rows[1], "団体名")
	var out []string
	prefCode := map[string]string{} // prefecture name → two-digit code, from the names found
	var unknown []string
	for _, row := range rows[2:] {
		if pi < 0 || ni < 0 || max(pi, ni) >= len(row) {
			continue
		}
		if c, ok := names(row[pi], row[ni]); ok {
			prefCode[row[pi]] = c[:2]
		} else {
			unknown = append(unknown, row[pi])
		}
	}
	for _, p := range unknown {
		if c, ok := prefCode[p]; ok && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// withCodes puts a 団体コード column before a list that names its municipalities by prefecture
// (都道府県名) and name (団体名) only, with the 6-digit code of each name found.
func withCodes(rows [][]string, names func(pref, name string) (string, bool)) [][]string {
	pi, ni := slices.Index(rows[1], "都道府県名"), slices.Index(rows[1], "団体名")
	out := make([][]string, len(rows))
	out[0] = rows[0]
	out[1] = append([]string{"団体コード"}, rows[1]...)
	for i, row := range rows[2:] {
		code := ""
		if pi >= 0 && ni >= 0 && max(pi, ni) < len(row) {
			if c, ok := names(row[pi], row[ni]); ok {
				code = c + "0" // fill keeps the first five digits; the check digit plays no part
			}
		}
		out[i+2] = append([]string{code}, row...)
	}
	return out
}
