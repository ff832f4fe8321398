package rawfiles

import (
	"fmt"
	"slices"
	"strings"

	"github.com/xuri/excelize/v2"
)

// Municipality is one entry of 総務省「全国地方公共団体コード」.
type Municipality struct {
	Code, Prefecture, Name string // Code: 5 digits
}

// CodeList is the municipalities the dataset covers, in code order.
type CodeList struct {
	Entries []Municipality
	byName  map[string]string
}

// northernTerritories are the six villages of the Northern Territories the list carries and no
// statistic covers.
var northernTerritories = []string{"01695", "01696", "01697", "01698", "01699", "01700"}

// ReadCodes reads the municipality sheet of the code list (000925835.xlsx): its rows with a
// municipality name, less the Northern Territories.
func ReadCodes(path string) (*CodeList, error) {
	f, err := excelize.OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	const sheet = "R6.1.1現在の団体"
	rows, err := f.GetRows(sheet)
	if err != nil {
		return nil, fmt.Errorf("%s sheet %s: %w", path, sheet, err)
	}
	cl := &CodeList{byName: map[string]string{}}
	for i, row := range rows[1:] {
		if len(row) < 3 || strings.TrimSpace(row[2]) == "" {
			continue // a prefecture
		}
		code := strings.TrimSpace(row[0])
		if len(code) != 6 {
			return nil, fmt.Errorf("%s row %d: code %q is not 6 digits", path, i+2, code)
		}
		m := Municipality{Code: code[:5], Prefecture: strings.TrimSpace(row[1]), Name: strings.TrimSpace(row[2])}
		if slices.Contains(northernTerritories, m.Code) {
			continue
		}
		cl.Entries = append(cl.Entries, m)
		cl.byName[nameKey(m.Prefecture, m.Name)] = m.Code
	}
	slices.SortFunc(cl.Entries, func(a, b Municipality) int { return strings.Compare(a.Code, b.Code) })
	return cl, nil
}

// ByName returns the code of a municipality named by prefecture and name; ヶ and ケ count as one
// (the older lists write 鰺ケ沢町, the code list 鰺ヶ沢町), as do spaces or none.
func (cl *CodeList) ByName(pref, name string) (string, bool) {
	c, ok := cl.byName[nameKey(pref, name)]
	return c, ok
}

func nameKey(pref, name string) string {
	r := strings.NewReplacer("ヶ", "ケ", "ヵ", "カ", " ", "", "　", "")
	return r.Replace(pref) + "/" + r.Replace(name)
}
