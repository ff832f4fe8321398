package ingest

import (
	"io"
	"strconv"
	"strings"
)

// SSDSE-A has three header rows: item codes, survey years, Japanese item names.
const ssdseHeaderRows = 3

// ssdseLeadColumns are the columns before the items: region code, prefecture, municipality.
const ssdseLeadColumns = 3

// ParseSSDSE reads an edition of the 統計センター SSDSE-A file (cp932) whole: every item column
// (row 1 the item code, row 2 its survey year, row 3 its Japanese name, which Table.Names keeps)
// for every municipality, each figure a number. The given columns must be among the items. A code
// a municipality carried in older editions is read as its current one (successors).
func ParseSSDSE(file string, r io.Reader, cl *CodeList, columns ...string) (*Table, error) {
	recs, err := readCSV(file, r, true)
	if err != nil {
		return nil, err
	}
	if len(recs) < ssdseHeaderRows {
		return nil, sourceErr(file, 0, "", "expected %d header rows, file has %d rows", ssdseHeaderRows, len(recs))
	}
	codes, years, names := recs[0], recs[1], recs[2]
	if _, err := columnIndex(file, codes.Line, codes.Fields, exactHeader, columns...); err != nil {
		return nil, err
	}
	if len(codes.Fields) <= ssdseLeadColumns {
		return nil, sourceErr(file, codes.Line, "", "no item columns after the %d leading ones", ssdseLeadColumns)
	}
	items := make([]string, len(codes.Fields))
	t := newTable(file)
	t.Names = map[string]string{}
	t.reserve = len(recs) - ssdseHeaderRows
	for i := ssdseLeadColumns; i < len(codes.Fields); i++ {
		c := strings.TrimSpace(codes.Fields[i])
		if !ssdseItem.MatchString(c) {
			return nil, sourceErr(file, codes.Line, truncate(c, 20), "not an SSDSE-A item code (a capital letter and 4 to 6 digits)")
		}
		if _, dup := t.Years[c]; dup {
			return nil, sourceErr(file, codes.Line, c, "column appears twice in the header")
		}
		year, err := field(file, years, i, c)
		if err != nil {
			return nil, err
		}
		if y, err := strconv.Atoi(strings.TrimSpace(year)); err != nil || y < 1900 || y > 2100 {
			return nil, sourceErr(file, years.Line, c, "not a survey year: %q", truncate(year, 20))
		}
		name, err := field(file, names, i, c)
		if err != nil {
			return nil, err
		}
		items[i] = c
		t.Years[c] = strings.TrimSpace(year)
		t.Names[c] = strings.TrimSpace(name)
	}
	codeHeader := codes.Fields[0]
	for _, rec := range recs[ssdseHeaderRows:] {
		raw := strings.TrimSpace(rec.Fields[0])
		if len(raw) != 6 || raw[0] != 'R' || !isDigits(raw[1:]) {
			return nil, sourceErr(file, rec.Line, codeHeader, "not a region code of the form R + 5 digits: %q", truncate(raw, 20))
		}
		area := ""
		if len(rec.Fields) > 2 {
			area = rec.Fields[1] + " " + rec.Fields[2]
		}
		code := cl.current(raw[1:])
		ok, err := cl.admit(file, rec.Line, codeHeader, code, area)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		row, err := t.addRow(code, rec.Line, codeHeader)
		if err != nil {
			return nil, err
		}
		for i := ssdseLeadColumns; i < len(items); i++ {
			s, err := field(file, rec, i, items[i])
			if err != nil {
				return nil, err
			}
			c, err := parseNumber(file, rec.Line, items[i], s)
			if err != nil {
				return nil, err
			}
			t.put(row, items[i], c)
		}
	}
	return t, nil
}
