package rawfiles

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Sources are the raw files the indicator catalogue is computed from, read once.
type Sources struct {
	Codes    *CodeList
	SSDSE    []SSDSEEdition
	Finance  map[int]FinanceYear // fiscal year → list
	Portal   Portal
	Furusato Furusato

	// ssdse: item → survey year → where the newest edition holding it has it
	ssdse map[string]map[int]ssdseCell
	years sync.Map // item → []int, each item's survey years once found
}

type ssdseCell struct {
	edition, column int
}

// ssdsePredecessors maps a code to the code an older edition lists the same territory under:
// 那珂川町 (40305) became 那珂川市 (40231) on 2018-10-01, and the 2018 and 2019 editions carry the
// town (SOURCES.md, third pass).
var ssdsePredecessors = map[string]string{"40231": "40305"}

// censusOfAgriculture are the SSDSE-A items of 農林業センサス, whose editions write the census of
// 1 February Y as year Y−1 (the fiscal year holding its day); the catalogue dates them Y.
var censusOfAgriculture = []string{"C310201", "C310202"}

// surveyYear is the year the catalogue gives an SSDSE-A item written as year written.
func surveyYear(code string, written int) int {
	if slices.Contains(censusOfAgriculture, code) {
		return written + 1
	}
	return written
}

// ReadSources reads the sources under the raw directory (../shared/data/raw): the code list, every
// SSDSE-A edition, the portal's series, the hometown-tax files, and the lists of financial
// indicators named in finance (paths under raw; xls or xlsx, one fiscal year each).
func ReadSources(raw string, finance []string) (*Sources, error) {
	s := &Sources{Finance: map[int]FinanceYear{}, ssdse: map[string]map[int]ssdseCell{}}
	var err error
	if s.Codes, err = ReadCodes(filepath.Join(raw, "codes", "000925835.xlsx")); err != nil {
		return nil, err
	}
	if s.SSDSE, err = ReadSSDSE(filepath.Join(raw, "ssdse")); err != nil {
		return nil, err
	}
	for e, ed := range s.SSDSE { // oldest first, so a newer edition overwrites
		for c, col := range ed.Columns {
			if s.ssdse[col.Code] == nil {
				s.ssdse[col.Code] = map[int]ssdseCell{}
			}
			s.ssdse[col.Code][surveyYear(col.Code, col.Year)] = ssdseCell{e, c}
		}
	}
	for _, rel := range finance {
		p := filepath.Join(raw, rel)
		var fy FinanceYear
		if strings.HasSuffix(p, ".xls") {
			fy, err = ReadFinanceXLS(p, s.Codes.ByName)
		} else {
			fy, err = ReadFinanceXLSX(p)
		}
		if err != nil {
			return nil, err
		}
		if prev, dup := s.Finance[fy.Fiscal]; dup {
			return nil, fmt.Errorf("%s and %s are both FY%d", prev.File, fy.File, fy.Fiscal)
		}
		s.Finance[fy.Fiscal] = fy
	}
	if s.Portal, err = ReadPortal(filepath.Join(raw, "ssds", "masakizhitian38_jichitai-data-portal_embedded.json")); err != nil {
		return nil, err
	}
	if s.Furusato, err = ReadFurusato(filepath.Join(raw, "furusato", "data.json"), filepath.Join(raw, "furusato", "jichitai_detail_multi.csv")); err != nil {
		return nil, err
	}
	return s, nil
}

// Status says what is known of a figure.
type Status int

const (
	// Have: the files give the figure.
	Have Status = iota
	// None: the files say there is no figure (a null, a dash, a zero denominator).
	None
	// Unknown: this reader cannot tell, because the file names its municipalities in a way it
	// does not map (an older list's name or code of a municipality since renamed or merged); the
	// pipeline may know better, so such a figure is not compared.
	Unknown
)

// Years returns the survey years of an item, ascending.
func (s *Sources) Years(item string) []int {
	if ys, ok := s.years.Load(item); ok {
		return ys.([]int)
	}
	ys := s.findYears(item)
	s.years.Store(item, ys)
	return ys
}

func (s *Sources) findYears(item string) []int {
	var years []int
	src, name, ok := strings.Cut(item, ".")
	switch {
	case !ok:
		years = slices.Collect(maps.Keys(s.ssdse[item]))
	case src == "finance":
		for fy, list := range s.Finance {
			if countWith(list.Values, name) > 0 {
				years = append(years, fy)
			}
		}
	case src == "portal":
		years = slices.Clone(s.Portal.Years[name])
	case src == "furusato":
		seen := map[int]bool{}
		for _, byYear := range s.furusato(name) {
			for y := range byYear {
				seen[y] = true
			}
		}
		years = slices.Collect(maps.Keys(seen))
	}
	slices.Sort(years)
	return years
}

func countWith(values map[string]map[string]float64, name string) int {
	n := 0
	for _, v := range values {
		if _, ok := v[name]; ok {
			n++
		}
	}
	return n
}

func (s *Sources) furusato(name string) map[string]map[int]float64 {
	switch name {
	case "receipts_thousand_yen":
		return s.Furusato.ReceiptsThousandYen
	case "receipts_yen":
		return s.Furusato.ReceiptsYen
	case "receipts_count":
		return s.Furusato.Count
	}
	return nil
}

// Value returns an item's figure for a municipality in a survey year: for SSDSE-A, from the newest
// edition that has the item for that year.
func (s *Sources) Value(item string, year int, code string) (float64, Status) {
	src, name, ok := strings.Cut(item, ".")
	switch {
	case !ok:
		at, ok := s.ssdse[item][year]
		if !ok {
			return 0, None
		}
		ed := s.SSDSE[at.edition]
		row, ok := ed.Rows[code]
		if !ok {
			row, ok = ed.Rows[ssdsePredecessors[code]]
		}
		if !ok {
			return 0, Unknown
		}
		return row[at.column], Have
	case src == "finance":
		list, ok := s.Finance[year]
		if !ok {
			return 0, None
		}
		row, ok := list.Values[code]
		if !ok {
			return 0, Unknown
		}
		v, ok := row[name]
		if !ok {
			return 0, None // a dash: the list does not compute the ratio for this municipality
		}
		return v, Have
	case src == "portal":
		if _, listed := s.Portal.Values[name][code]; !listed {
			return 0, Unknown
		}
		v, ok := s.Portal.Values[name][code][year]
		if !ok {
			return 0, None
		}
		return v, Have
	case src == "furusato":
		v, ok := s.furusato(name)[code][year]
		if !ok {
			return 0, None
		}
		return v, Have
	}
	return 0, Unknown
}

// nearest is the survey year a denominator takes: the latest of years not after year, or, when
// there is none, the earliest.
func nearest(years []int, year int) int {
	i, _ := slices.BinarySearch(years, year+1)
	if i > 0 {
		return years[i-1]
	}
	return years[0]
}

// sum adds items' figures; the worst status of any of them is the sum's.
func (s *Sources) sum(items []string, year func(item string) int, code string) (float64, Status) {
	total, st := 0.0, Have
	for _, it := range items {
		v, vs := s.Value(it, year(it), code)
		total += v
		st = max(st, vs)
	}
	return total, st
}
