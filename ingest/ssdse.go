package ingest

import (
	"io"
	"strings"
)

// SSDSE-A has three header rows: item codes, survey years, Japanese item names.
const ssdseHeaderRows = 3

// ParseSSDSE reads the 統計センター SSDSE-A file (cp932) and keeps the given item-code columns.
// Every kept figure must be a number.
func ParseSSDSE(file string, r io.Reader, cl *CodeList, columns ...string) (*Table, error) {
	recs, err := readCSV(file, r, true)
	if err != nil {
		return nil, err
	}
	if len(recs) < ssdseHeaderRows {
		return nil, sourceErr(file, 0, "", "expected %d header rows, file has %d rows", ssdseHeaderRows, len(recs))
	}
	idx, err := columnIndex(file, recs[0].Line, recs[0].Fields, exactHeader, columns...)
	if err != nil {
		return nil, err
	}
	t := newTable(file)
	for _, c := range columns {
		year, err := field(file, recs[1], idx[c], c)
		if err != nil {
			return nil, err
		}
		t.Years[c] = strings.TrimSpace(year)
	}
	for _, rec := range recs[ssdseHeaderRows:] {
		raw := strings.TrimSpace(rec.Fields[0])
		if len(raw) != 6 || raw[0] != 'R' || !isDigits(raw[1:]) {
			return nil, sourceErr(file, rec.Line, recs[0].Fields[0], "not a region code of the form R + 5 digits: %q", truncate(raw, 20))
		}
		area := ""
		if len(rec.Fields) > 2 {
			area = rec.Fields[1] + " " + rec.Fields[2]
		}
		ok, err := cl.admit(file, rec.Line, recs[0].Fields[0], raw[1:], area)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		row, err := t.addRow(raw[1:], rec.Line, recs[0].Fields[0])
		if err != nil {
			return nil, err
		}
		for _, c := range columns {
			s, err := field(file, rec, idx[c], c)
			if err != nil {
				return nil, err
			}
			if row[c], err = parseNumber(file, rec.Line, c, s); err != nil {
				return nil, err
			}
		}
	}
	return t, nil
}
