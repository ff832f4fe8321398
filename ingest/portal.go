package ingest

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// Columns the portal file provides, named by their SSDS item codes.
const (
	PortalDaytimeRatio  = "A6108" // 昼夜間人口比率 (%)
	PortalTaxableIncome = "C120110"
	PortalTaxpayers     = "C120120"
	portalDaytimeCol    = "A:昼夜間人口比率"
)

type portalFile struct {
	Cols   []string `json:"COLS"`
	TSMeta struct {
		Axis map[string][]int `json:"axis"`
	} `json:"TSMETA"`
	Rows map[string][]any `json:"ROWS"`
	// Decoded loosely so that a value that is not a number is reported with its place.
	TSData map[string]map[string][]any `json:"TSDATA"`
}

// ParsePortal reads the e-Stat SSDS figures cut out of the municipality data portal: the daytime
// population ratio, and taxable income and taxpayers for every year of the series (columns
// YearColumn(PortalTaxableIncome, year), …) and, as PortalTaxableIncome and PortalTaxpayers, for
// the newest year.
func ParsePortal(file string, r io.Reader, cl *CodeList) (*Table, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	var p portalFile
	if err := dec.Decode(&p); err != nil {
		return nil, sourceErr(file, 0, "", "not the expected JSON document: %v", err)
	}
	daytime := slices.Index(p.Cols, portalDaytimeCol)
	if daytime < 0 {
		return nil, sourceErr(file, 0, "COLS", "no column %q", portalDaytimeCol)
	}
	years := p.TSMeta.Axis[PortalTaxableIncome]
	if len(years) == 0 || !slices.Equal(years, p.TSMeta.Axis[PortalTaxpayers]) {
		return nil, sourceErr(file, 0, "TSMETA.axis", "%s and %s must have the same, non-empty list of years", PortalTaxableIncome, PortalTaxpayers)
	}
	for i := 1; i < len(years); i++ {
		if years[i] <= years[i-1] {
			return nil, sourceErr(file, 0, "TSMETA.axis", "the years of %s do not ascend", PortalTaxableIncome)
		}
	}
	latest := len(years) - 1
	t := newTable(file)
	t.Years[PortalDaytimeRatio] = "2020"
	t.Years[PortalTaxableIncome] = strconv.Itoa(years[latest])
	t.Years[PortalTaxpayers] = strconv.Itoa(years[latest])
	for _, y := range years {
		t.Years[YearColumn(PortalTaxableIncome, y)] = strconv.Itoa(y)
		t.Years[YearColumn(PortalTaxpayers, y)] = strconv.Itoa(y)
	}

	codes := make([]string, 0, len(p.Rows))
	for code := range p.Rows {
		codes = append(codes, code)
	}
	slices.Sort(codes) // errors then name the same row on every run
	for _, code := range codes {
		where := "ROWS[" + code + "]"
		if len(code) != 5 || !isDigits(code) {
			return nil, sourceErr(file, 0, where, "not a 5-digit municipality code")
		}
		ok, err := cl.admit(file, 0, where, code, "")
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		row := p.Rows[code]
		if len(row) != len(p.Cols) {
			return nil, sourceErr(file, 0, where, "has %d values for %d columns", len(row), len(p.Cols))
		}
		r, _ := t.addRow(code, 0, where) // codes are keys of a JSON object, so never repeated
		daytimeCell, err := jsonNumber(file, where+"."+portalDaytimeCol, row[daytime])
		if err != nil {
			return nil, err
		}
		t.put(r, PortalDaytimeRatio, daytimeCell)
		series := p.TSData[code]
		for _, col := range []string{PortalTaxableIncome, PortalTaxpayers} {
			s := series[col]
			if len(s) != len(years) {
				return nil, sourceErr(file, 0, "TSDATA["+code+"]."+col, "has %d values for %d years", len(s), len(years))
			}
			for j, y := range years {
				c := Cell{Missing: fmt.Sprintf("null for %d in %s", y, file)}
				if s[j] != nil {
					if c, err = jsonNumber(file, fmt.Sprintf("TSDATA[%s].%s[%d]", code, col, j), s[j]); err != nil {
						return nil, err
					}
				}
				t.put(r, YearColumn(col, y), c)
				if j == latest {
					t.put(r, col, c)
				}
			}
		}
	}
	return t, nil
}

func jsonNumber(file, where string, v any) (Cell, error) {
	switch n := v.(type) {
	case nil:
		return Cell{Missing: "null in " + file}, nil
	case json.Number:
		f, err := n.Float64()
		if err != nil {
			return Cell{}, sourceErr(file, 0, where, "not a number: %q", n)
		}
		return Cell{V: f}, nil
	default:
		return Cell{}, sourceErr(file, 0, where, "not a number: %v", truncate(fmt.Sprint(v), 40))
	}
}
