package rawfiles

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/text/encoding/japanese"
)

// SSDSEColumn is one item column of an SSDSE-A edition: its code (row 1), survey year (row 2) and
// Japanese name (row 3).
type SSDSEColumn struct {
	Code string
	Year int
	Name string
}

// SSDSEEdition is one SSDSE-A file: its columns after the three of the region, and each
// municipality's figures in column order, keyed by the 5-digit code the file writes (R + code).
type SSDSEEdition struct {
	File    string
	Edition int
	Columns []SSDSEColumn
	Rows    map[string][]float64
}

// Column returns the index of an item code in the edition, or -1.
func (e *SSDSEEdition) Column(code string) int {
	return slices.IndexFunc(e.Columns, func(c SSDSEColumn) bool { return c.Code == code })
}

// ssdseRegionColumns are the code, prefecture and municipality columns before the items.
const ssdseRegionColumns = 3

// ReadSSDSE reads every SSDSE-A-<edition>.csv of dir (cp932, three header rows), oldest edition
// first.
func ReadSSDSE(dir string) ([]SSDSEEdition, error) {
	files, err := filepath.Glob(filepath.Join(dir, "SSDSE-A-*.csv"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no SSDSE-A-*.csv in %s", dir)
	}
	var eds []SSDSEEdition
	for _, f := range files {
		e, err := readSSDSEFile(f)
		if err != nil {
			return nil, err
		}
		eds = append(eds, e)
	}
	slices.SortFunc(eds, func(a, b SSDSEEdition) int { return a.Edition - b.Edition })
	return eds, nil
}

func readSSDSEFile(path string) (SSDSEEdition, error) {
	name := filepath.Base(path)
	e := SSDSEEdition{File: name, Rows: map[string][]float64{}}
	var err error
	if e.Edition, err = strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, "SSDSE-A-"), ".csv")); err != nil {
		return e, fmt.Errorf("%s: the file name does not end in the edition's year", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return e, err
	}
	defer f.Close()
	r := csv.NewReader(japanese.ShiftJIS.NewDecoder().Reader(f))
	recs, err := r.ReadAll()
	if err != nil {
		return e, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) < 4 {
		return e, fmt.Errorf("%s: %d rows, expected three header rows and the municipalities", path, len(recs))
	}
	codes, years, names := recs[0], recs[1], recs[2]
	for j := ssdseRegionColumns; j < len(codes); j++ {
		y, err := strconv.Atoi(strings.TrimSpace(years[j]))
		if err != nil {
			return e, fmt.Errorf("%s row 2 column %s: not a survey year: %q", path, codes[j], years[j])
		}
		e.Columns = append(e.Columns, SSDSEColumn{Code: strings.TrimSpace(codes[j]), Year: y, Name: strings.TrimSpace(names[j])})
	}
	for i, rec := range recs[3:] {
		line := i + 4
		code, ok := strings.CutPrefix(rec[0], "R")
		if !ok || len(code) != 5 {
			return e, fmt.Errorf("%s row %d: region code %q is not R and five digits", path, line, rec[0])
		}
		if _, dup := e.Rows[code]; dup {
			return e, fmt.Errorf("%s row %d: second row of %s", path, line, code)
		}
		vals := make([]float64, len(e.Columns))
		for j, c := range e.Columns {
			s := rec[ssdseRegionColumns+j]
			if vals[j], err = strconv.ParseFloat(s, 64); err != nil {
				return e, fmt.Errorf("%s row %d column %s: not a number: %q", path, line, c.Code, s)
			}
		}
		e.Rows[code] = vals
	}
	return e, nil
}
