package ingest

import (
	"io"
	"strings"
)

// Columns kept from the SSDS extract, named by item code; its headers read "F2705_他市区町村への通勤者数".
const (
	SSDSWorkers       = "F1102" // 就業者数
	SSDSCommutersOut  = "F2705" // 他市区町村への通勤者数
	SSDSRecyclingRate = "H5614" // ごみのリサイクル率 (%)
)

// ssdsYears records the survey years, which the extract does not state: comparing it with dated
// series shows the F items to be the 2020 census and the annual items 2019 (sources.json's
// survey_year for this source).
var ssdsYears = map[string]string{SSDSWorkers: "2020", SSDSCommutersOut: "2020", SSDSRecyclingRate: "2019"}

// ParseSSDS reads the wide SSDS municipality extract (UTF-8, "NA" for no figure).
func ParseSSDS(file string, r io.Reader, cl *CodeList) (*Table, error) {
	recs, err := readCSV(file, r, false)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, sourceErr(file, 0, "", "empty file")
	}
	itemCode := func(cell, want string) bool { return cell == want || strings.HasPrefix(cell, want+"_") }
	const colCode, colArea = "area_code", "地域"
	want := []string{colCode, colArea, SSDSWorkers, SSDSCommutersOut, SSDSRecyclingRate}
	idx, err := columnIndex(file, recs[0].Line, recs[0].Fields, itemCode, want...)
	if err != nil {
		return nil, err
	}
	t := newTable(file)
	for k, v := range ssdsYears {
		t.Years[k] = v
	}
	for _, rec := range recs[1:] {
		code, err := field(file, rec, idx[colCode], colCode)
		if err != nil {
			return nil, err
		}
		if len(code) != 5 || !isDigits(code) {
			return nil, sourceErr(file, rec.Line, colCode, "not a 5-digit municipality code: %q", truncate(code, 20))
		}
		area, _ := field(file, rec, idx[colArea], colArea)
		ok, err := cl.admit(file, rec.Line, colCode, code, area)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		r, err := t.addRow(code, rec.Line, colCode)
		if err != nil {
			return nil, err
		}
		for _, c := range want[2:] {
			s, err := field(file, rec, idx[c], c)
			if err != nil {
				return nil, err
			}
			cell, err := parseNumber(file, rec.Line, c, s, "NA")
			if err != nil {
				return nil, err
			}
			t.put(r, c, cell)
		}
	}
	return t, nil
}
