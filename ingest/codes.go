package ingest

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/xuri/excelize/v2"

	"github.com/hensachi/hensachi"
)

// The six villages of the Northern Territories have codes but no administration; the service counts
// 1,741 municipalities without them.
var northernTerritories = []string{"01695", "01696", "01697", "01698", "01699", "01700"}

// tokyoWardsTotal is the code statistics use for Tokyo's 23 special wards taken together (特別区部).
const tokyoWardsTotal = "13100"

const (
	codeListSheet   = "R6.1.1現在の団体"
	designatedSheet = "R6.1.1政令指定都市"
)

// The columns read from the code list's sheet of municipalities, as their headers say without the
// line breaks.
const (
	codeListCode = "団体コード"
	codeListPref = "都道府県名（漢字）"
	codeListName = "市区町村名（漢字）"
	codeListKana = "市区町村名（カナ）"
)

// Entry is one municipality of the code list.
type Entry struct {
	Code       string
	Name       string
	Kana       string // reading in hiragana (the list writes half-width katakana)
	Prefecture hensachi.Prefecture
}

// CodeList is the set of municipalities the dataset covers, in ascending code order.
type CodeList struct {
	Entries     []Entry
	Prefectures []hensachi.Prefecture
	Wards       []hensachi.Ward // the designated cities' wards, in the list's order
	index       map[string]int
	// designated maps the code of each government-designated city to its name; their wards appear
	// in some sources as separate rows, which are not municipalities of this dataset.
	designated map[string]string

	byNameOnce sync.Once
	byName     map[string]string // nameKey → code, the renames' earlier names included
}

// names returns the municipalities' codes by nameKey of prefecture and name, under their present
// names and the earlier names of the renames.
func (c *CodeList) names() map[string]string {
	c.byNameOnce.Do(func() {
		c.byName = map[string]string{}
		for _, e := range c.Entries {
			c.byName[nameKey(e.Prefecture.Name, e.Name)] = e.Code
		}
		for _, r := range renames {
			if e, ok := c.Entry(r.code); ok && r.oldName != "" {
				c.byName[nameKey(e.Prefecture.Name, r.oldName)] = r.code
			}
		}
	})
	return c.byName
}

// label is a municipality's code and name, for messages.
func (c *CodeList) label(code string) string {
	e, _ := c.Entry(code)
	return code + " " + e.Name
}

// current returns the code list's code for a code a source gives: its successor where it has one
// that the list holds, itself otherwise.
func (c *CodeList) current(code string) string {
	if s, ok := successors[code]; ok && !c.Has(code) && c.Has(s) {
		return s
	}
	return code
}

// Has reports whether code is one of the municipalities.
func (c *CodeList) Has(code string) bool { _, ok := c.index[code]; return ok }

// Entry returns the municipality with the given code.
func (c *CodeList) Entry(code string) (Entry, bool) {
	i, ok := c.index[code]
	if !ok {
		return Entry{}, false
	}
	return c.Entries[i], true
}

// outside says why a source row whose code is not a municipality may be skipped, or returns "" when
// the code is unknown. area is the place name the source gives ("北海道 札幌市 中央区"), or empty.
func (c *CodeList) outside(code, area string) string {
	switch {
	case strings.HasSuffix(code, "000"):
		return "prefecture total"
	case slices.Contains(northernTerritories, code):
		return "Northern Territories village"
	case code == tokyoWardsTotal:
		return "total of Tokyo's 23 special wards"
	}
	for city, name := range c.designated {
		if city[:2] == code[:2] && code > city && strings.Contains(area, name) && strings.HasSuffix(area, "区") {
			return "ward of a designated city"
		}
	}
	return ""
}

// code5 turns a 6-digit code with check digit (as text or a number that lost its leading zero) into
// the 5-digit code, verifying the check digit.
func code5(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if len(s) == 5 && isDigits(s) { // a 6-digit code stored as a number loses its leading zero
		s = "0" + s
	}
	if len(s) != 6 || !isDigits(s) {
		return "", fmt.Errorf("not a 6-digit municipality code: %q", truncate(s, 20))
	}
	if want := hensachi.CheckDigit(s[:5]); s[5] != want {
		return "", fmt.Errorf("code %s has check digit %c, expected %c", s, s[5], want)
	}
	return s[:5], nil
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// ParseCodeList reads the 総務省 code list workbook: the municipalities and their prefectures from
// one sheet, and which of them are government-designated cities from another.
func ParseCodeList(file string, r io.Reader) (*CodeList, error) {
	f, err := excelize.OpenReader(r)
	if err != nil {
		return nil, sourceErr(file, 0, "", "not a readable xlsx workbook: %v", err)
	}
	defer f.Close()
	cl, prefs, err := readMunicipalities(f, file)
	if err != nil {
		return nil, err
	}
	if err := cl.setPrefectures(file, prefs); err != nil {
		return nil, err
	}
	cl.sortByCode()
	if err := cl.readDesignated(f, file); err != nil {
		return nil, err
	}
	return cl, nil
}

// readMunicipalities reads the code list's sheet of municipalities: every municipality but the
// Northern Territories' villages, in the sheet's order, and each prefecture's name by its two-digit
// code from the prefecture's own row.
func readMunicipalities(f *excelize.File, file string) (cl *CodeList, prefs map[string]string, err error) {
	rows, err := sheetRows(f, file, codeListSheet)
	if err != nil {
		return nil, nil, err
	}
	if len(rows) == 0 {
		return nil, nil, sourceErr(file, 0, "", "sheet %q is empty", codeListSheet)
	}
	header := make([]string, len(rows[0]))
	for i, h := range rows[0] {
		header[i] = strings.ReplaceAll(h, "\n", "")
	}
	idx, err := columnIndex(file, 1, header, exactHeader, codeListCode, codeListPref, codeListName, codeListKana)
	if err != nil {
		return nil, nil, err
	}
	cl = &CodeList{index: map[string]int{}, designated: map[string]string{}}
	prefs = map[string]string{}
	for i, row := range rows[1:] {
		line := i + 2
		rec := csvRecord{Line: line, Fields: row}
		if strings.TrimSpace(strings.Join(row, "")) == "" {
			continue
		}
		rawCode, err := field(file, rec, idx[codeListCode], codeListCode)
		if err != nil {
			return nil, nil, err
		}
		code, err := code5(rawCode)
		if err != nil {
			return nil, nil, &SourceError{File: file, Row: line, Column: codeListCode, Err: err}
		}
		pref, _ := field(file, rec, idx[codeListPref], codeListPref)
		name, _ := field(file, rec, idx[codeListName], codeListName)
		pref, name = strings.TrimSpace(pref), strings.TrimSpace(name)
		if pref == "" {
			return nil, nil, sourceErr(file, line, codeListPref, "empty prefecture name")
		}
		if name == "" { // a prefecture's own row
			if !strings.HasSuffix(code, "000") {
				return nil, nil, sourceErr(file, line, codeListName, "empty municipality name for code %s", code)
			}
			prefs[code[:2]] = pref
			continue
		}
		if slices.Contains(northernTerritories, code) {
			continue
		}
		kana, _ := field(file, rec, idx[codeListKana], codeListKana)
		if kana = strings.TrimSpace(kana); kana == "" {
			return nil, nil, sourceErr(file, line, codeListKana, "empty reading for municipality %s", code)
		}
		if _, dup := cl.index[code]; dup {
			return nil, nil, sourceErr(file, line, codeListCode, "duplicate municipality code %s", code)
		}
		cl.index[code] = len(cl.Entries)
		cl.Entries = append(cl.Entries, Entry{Code: code, Name: name, Kana: hensachi.Hiragana(kana),
			Prefecture: hensachi.Prefecture{Code: code[:2], Name: pref}})
	}
	return cl, prefs, nil
}

// setPrefectures checks that every municipality's prefecture has a row of that name in prefs (the
// prefectures' names by code) and lists the prefectures in code order.
func (c *CodeList) setPrefectures(file string, prefs map[string]string) error {
	for _, e := range c.Entries {
		name, ok := prefs[e.Prefecture.Code]
		if !ok {
			return sourceErr(file, 0, codeListPref, "municipality %s belongs to prefecture %s, which has no row", e.Code, e.Prefecture.Code)
		}
		if name != e.Prefecture.Name {
			return sourceErr(file, 0, codeListPref, "municipality %s names prefecture %q, its prefecture row says %q", e.Code, e.Prefecture.Name, name)
		}
	}
	for code, name := range prefs {
		c.Prefectures = append(c.Prefectures, hensachi.Prefecture{Code: code, Name: name})
	}
	slices.SortFunc(c.Prefectures, func(a, b hensachi.Prefecture) int { return strings.Compare(a.Code, b.Code) })
	return nil
}

// sortByCode puts the municipalities in ascending code order.
func (c *CodeList) sortByCode() {
	slices.SortFunc(c.Entries, func(a, b Entry) int { return strings.Compare(a.Code, b.Code) })
	for i, e := range c.Entries {
		c.index[e.Code] = i
	}
}

// readDesignated reads the code list's sheet of government-designated cities and their wards:
// the cities, which are municipalities of the list (it must name one at least), and the wards, each
// on a row after its city's, named and read with the city's name and reading before their own.
func (c *CodeList) readDesignated(f *excelize.File, file string) error {
	rows, err := sheetRows(f, file, designatedSheet)
	if err != nil {
		return err
	}
	var city Entry
	for i, row := range rows {
		if len(row) < 2 {
			continue
		}
		code, err := code5(row[0])
		if err != nil {
			if i == 0 { // header row
				continue
			}
			return &SourceError{File: file + " sheet " + designatedSheet, Row: i + 1, Column: "A", Err: err}
		}
		if e, ok := c.Entry(code); ok {
			c.designated[code] = e.Name
			city = e
			continue
		}
		w, err := ward(city, row)
		if err != nil {
			return sourceErr(file+" sheet "+designatedSheet, i+1, "", "ward %s: %v", code, err)
		}
		w.Code = code
		c.Wards = append(c.Wards, w)
	}
	if len(c.designated) == 0 {
		return sourceErr(file, 0, "", "sheet %q lists no designated city of the code list", designatedSheet)
	}
	return nil
}

// ward reads a ward's row of the designated cities' sheet (code, prefecture, name, prefecture's
// reading, reading) after its city's.
func ward(city Entry, row []string) (hensachi.Ward, error) {
	if city.Code == "" {
		return hensachi.Ward{}, errors.New("comes before any designated city of the code list")
	}
	if len(row) < 5 {
		return hensachi.Ward{}, fmt.Errorf("has %d columns, not the 5 of a name and its reading", len(row))
	}
	name, ok := strings.CutPrefix(strings.TrimSpace(row[2]), city.Name)
	if !ok || name == "" {
		return hensachi.Ward{}, fmt.Errorf("name %q is not the name of a ward of %s", truncate(row[2], 20), city.Name)
	}
	kana, ok := strings.CutPrefix(hensachi.Hiragana(strings.TrimSpace(row[4])), city.Kana)
	if !ok || kana == "" {
		return hensachi.Ward{}, fmt.Errorf("reading %q is not the reading of a ward of %s (%s)", truncate(row[4], 20), city.Name, city.Kana)
	}
	return hensachi.Ward{Name: name, Kana: kana, City: city.Code}, nil
}

// sheetRows returns a sheet's raw cell values (not display-formatted), matching the sheet name
// after trimming spaces, since some editions carry a trailing space in it.
func sheetRows(f *excelize.File, file, sheet string) ([][]string, error) {
	for _, name := range f.GetSheetList() {
		if strings.TrimSpace(name) == sheet {
			rows, err := f.GetRows(name, excelize.Options{RawCellValue: true})
			if err != nil {
				return nil, sourceErr(file, 0, "", "read sheet %q: %v", name, err)
			}
			return rows, nil
		}
	}
	return nil, sourceErr(file, 0, "", "no sheet %q (sheets: %s)", sheet, strings.Join(f.GetSheetList(), ", "))
}

// admit decides whether a source row belongs in a table: true for a municipality, false for a row
// the dataset does not cover (a prefecture total, a designated city's ward), an error for a code
// that is neither.
func (c *CodeList) admit(file string, line int, column, code, area string) (bool, error) {
	if c.Has(code) {
		return true, nil
	}
	if c.outside(code, area) != "" {
		return false, nil
	}
	return false, sourceErr(file, line, column, "unknown municipality code %s %s", code, area)
}
