package rawfiles

import (
	"encoding/json"
	"fmt"
	"os"
)

// Portal is the e-Stat SSDS series cut out of the municipality data portal: for each item
// (C120110, C120120, …) its years and each municipality's figure per year; a null is absent.
type Portal struct {
	Years  map[string][]int
	Values map[string]map[string]map[int]float64 // item → 5-digit code → year → figure
}

// ReadPortal reads the portal's JSON document (TSMETA.axis gives each series' years, TSDATA the
// figures aligned to them).
func ReadPortal(path string) (Portal, error) {
	var doc struct {
		TSMeta struct {
			Axis map[string][]int `json:"axis"`
		} `json:"TSMETA"`
		TSData map[string]map[string][]*float64 `json:"TSDATA"`
	}
	p := Portal{Values: map[string]map[string]map[int]float64{}}
	b, err := os.ReadFile(path)
	if err != nil {
		return p, err
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return p, fmt.Errorf("%s: %w", path, err)
	}
	p.Years = doc.TSMeta.Axis
	for code, series := range doc.TSData {
		for item, vals := range series {
			years, ok := p.Years[item]
			if !ok {
				continue
			}
			if len(vals) != len(years) {
				return p, fmt.Errorf("%s: TSDATA[%s][%s] has %d values for %d years", path, code, item, len(vals), len(years))
			}
			byCode := p.Values[item]
			if byCode == nil {
				byCode = map[string]map[int]float64{}
				p.Values[item] = byCode
			}
			for i, v := range vals {
				if v == nil {
					continue
				}
				if byCode[code] == nil {
					byCode[code] = map[int]float64{}
				}
				byCode[code][years[i]] = *v
			}
		}
	}
	return p, nil
}
