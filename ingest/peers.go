package ingest

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hensachi/hensachi"
)

// 類似団体: 総務省 groups municipalities alike in population and industrial structure, within which
// officials compare their finances. The groups are derived here from the census held (the SSDSE-A
// census items), per census year, by 総務省's class boundaries (docs/data.md, 類似団体): 政令指定都市,
// 中核市 and 特別区 are groups of their own; the other 市 are 都市 classed by population (Ⅰ–Ⅳ) and by
// the shares of secondary and tertiary industry among the workers classified by industry (0–3), the
// 町 and 村 町村 by population (Ⅰ–Ⅴ) and industry (0–2).

// Census items the classes are computed from.
const (
	colSecondary = "F2211" // 第2次産業就業者数
	colTertiary  = "F2221" // 第3次産業就業者数
)

// Codes of the groups of their own.
const (
	peerDesignated  = "designated_city"
	peerCore        = "core_city"
	peerSpecialWard = "special_ward"
)

// isSpecialWard reports whether a code is one of Tokyo's 23 special wards, 13101–13123.
func isSpecialWard(code string) bool { return code >= "13101" && code <= "13123" }

//go:embed core_cities.json
var coreCitiesJSON []byte

// CoreCity is a 中核市 and the day it was designated.
type CoreCity struct {
	Code       string `json:"code"`
	Name       string `json:"name"`
	Designated string `json:"designated"` // YYYY-MM-DD
}

// coreCities is the manifest of the 中核市 (core_cities.json), whose as_of and source say of when
// and from where the list is.
type coreCities struct {
	Cities []CoreCity `json:"core_cities"`
}

// LoadCoreCities returns the 中核市 of the manifest compiled into the binary, each date checked.
func LoadCoreCities() ([]CoreCity, error) {
	var m coreCities
	if err := json.Unmarshal(coreCitiesJSON, &m); err != nil {
		return nil, fmt.Errorf("parse core_cities.json: %w", err)
	}
	for k, c := range m.Cities {
		if _, err := time.Parse(time.DateOnly, c.Designated); err != nil {
			return nil, fmt.Errorf("core_cities.json: core_cities[%d] (%s): designated is not a date YYYY-MM-DD: %q", k, c.Code, c.Designated)
		}
		if len(c.Code) != 5 || !isDigits(c.Code) {
			return nil, fmt.Errorf("core_cities.json: core_cities[%d]: code %q is not a 5-digit municipality code", k, c.Code)
		}
	}
	return m.Cities, nil
}

// censusDay is the day a census counts: 1 October of its year.
func censusDay(year int) string { return fmt.Sprintf("%d-10-01", year) }

// Population classes: the lower bound of each class, from class Ⅰ.
var (
	cityPopulationFloors = []float64{0, 50_000, 100_000, 150_000}
	townPopulationFloors = []float64{0, 5_000, 10_000, 15_000, 20_000}
)

// populationClass is the class (1…) of a population by the lower bounds of the classes.
func populationClass(population float64, floors []float64) int {
	class := 0
	for _, f := range floors {
		if population >= f {
			class++
		}
	}
	return class
}

// CityClass is the class of a 都市 (a 市 neither designated nor 中核市) by its census population
// and its workers by industry (分類不能 left out): population class 1–4 (Ⅰ under 50,000, Ⅱ under
// 100,000, Ⅲ under 150,000, Ⅳ from 150,000) and industry class 0–3 (3: secondary and tertiary at
// least 95 % and tertiary at least 65 %; 2: at least 95 % and tertiary under 65 %; 1: under 95 %
// and tertiary at least 55 %; 0: under 95 % and tertiary under 55 %). The shares are compared
// exactly, as fractions of the counts: 95 % is 95 %.
func CityClass(population, primary, secondary, tertiary float64) (pop, industry int) {
	pop = populationClass(population, cityPopulationFloors)
	classified := primary + secondary + tertiary
	switch nonPrimary := secondary + tertiary; {
	case atLeast(nonPrimary, classified, 95) && atLeast(tertiary, classified, 65):
		industry = 3
	case atLeast(nonPrimary, classified, 95):
		industry = 2
	case atLeast(tertiary, classified, 55):
		industry = 1
	}
	return pop, industry
}

// TownClass is the class of a 町 or 村 by its census population and its workers by industry:
// population class 1–5 (Ⅰ under 5,000, Ⅱ under 10,000, Ⅲ under 15,000, Ⅳ under 20,000, Ⅴ from
// 20,000) and industry class 0–2 (2: secondary and tertiary at least 80 % and tertiary at least
// 55 %; 1: at least 80 % and tertiary under 55 %; 0: under 80 %).
func TownClass(population, primary, secondary, tertiary float64) (pop, industry int) {
	pop = populationClass(population, townPopulationFloors)
	classified := primary + secondary + tertiary
	switch nonPrimary := secondary + tertiary; {
	case atLeast(nonPrimary, classified, 80) && atLeast(tertiary, classified, 55):
		industry = 2
	case atLeast(nonPrimary, classified, 80):
		industry = 1
	}
	return pop, industry
}

// atLeast reports whether part/whole ≥ percent %, exactly: the counts are integers, and so are
// their products with 100 and percent, which float64 holds exactly below 2⁵³.
func atLeast(part, whole float64, percent int) bool {
	return part*100 >= whole*float64(percent)
}

// romanClasses are the population classes as 総務省 writes them.
var romanClasses = []string{"", "Ⅰ", "Ⅱ", "Ⅲ", "Ⅳ", "Ⅴ"}

// peerGroupName is the name 総務省 gives a group code.
func peerGroupName(code string) string {
	switch code {
	case peerDesignated:
		return "政令指定都市"
	case peerCore:
		return "中核市"
	case peerSpecialWard:
		return "特別区"
	}
	kind, classes, _ := strings.Cut(code, "-")
	pop, industry, _ := strings.Cut(classes, "-")
	p, _ := strconv.Atoi(pop)
	prefix := "都市"
	if kind == "town" {
		prefix = "町村"
	}
	return prefix + romanClasses[p] + "-" + industry
}

// peerGroupOrder is the order of the groups of a year: the groups of their own, then 都市 and 町村
// by population class, then industry class, as 総務省's tables list them.
func peerGroupOrder() []string {
	order := []string{peerDesignated, peerCore, peerSpecialWard}
	for p := 1; p <= 4; p++ {
		for i := 0; i <= 3; i++ {
			order = append(order, fmt.Sprintf("city-%d-%d", p, i))
		}
	}
	for p := 1; p <= 5; p++ {
		for i := 0; i <= 2; i++ {
			order = append(order, fmt.Sprintf("town-%d-%d", p, i))
		}
	}
	return order
}

// peerClassing is what classifyPeers derives: the groups of every census year, latest first, the
// latest year's group of each municipality, and the 中核市 of the manifest that the code list does
// not hold under their code and name.
type peerClassing struct {
	groups    []hensachi.PeerGroup
	latest    map[string]string // code → group code
	unmatched []CoreCity
}

// classifyPeers classes every municipality in every census year that has the census population
// and the workers of the three industry classes. A municipality without those figures fails the
// build, as does one whose census counted no worker by industry, unless the census of that year
// did not describe it (the evacuation rule, evacuation.go): then it has no group that year.
func (p *itemPanel) classifyPeers(cl *CodeList, core []CoreCity, ev evacuation) (peerClassing, error) {
	var out peerClassing
	isCore := map[string]CoreCity{}
	for _, c := range core {
		if e, ok := cl.Entry(c.Code); ok && e.Name == c.Name {
			isCore[c.Code] = c
		} else {
			out.unmatched = append(out.unmatched, c)
		}
	}
	population := p.series[item{name: colPopulation}]
	cols := []string{colPrimary, colSecondary, colTertiary}
	for _, census := range slices.Backward(population) {
		year := census.year
		var workers [3][]figure
		complete := true
		for k, col := range cols {
			y := p.series[item{name: col}].at(year)
			if y == nil {
				complete = false
				break
			}
			workers[k] = y.values(cl)
		}
		if !complete {
			continue // a census year without the workers by industry is not classed
		}
		pops := census.values(cl)
		members := map[string][]string{}
		for i, e := range cl.Entries {
			group, err := peerGroupOf(e, year, pops[i], workers[0][i], workers[1][i], workers[2][i], cl, isCore, ev[year])
			if err != nil {
				return peerClassing{}, err
			}
			if group != "" {
				members[group] = append(members[group], e.Code)
			}
		}
		if len(members) == 0 {
			continue
		}
		for _, code := range peerGroupOrder() {
			if ms := members[code]; len(ms) > 0 {
				out.groups = append(out.groups, hensachi.PeerGroup{Code: code, Name: peerGroupName(code), CensusYear: year, Members: ms})
			}
		}
		if out.latest == nil {
			out.latest = map[string]string{}
			for code, ms := range members {
				for _, m := range ms {
					out.latest[m] = code
				}
			}
		}
	}
	return out, nil
}

// peerGroupOf is the group code of municipality e in a census year, "" when the census of that
// year did not describe it and counted no worker by industry there.
func peerGroupOf(e Entry, year int, pop, primary, secondary, tertiary figure, cl *CodeList, core map[string]CoreCity, evacuated map[string]string) (string, error) {
	switch {
	case cl.designated[e.Code] != "":
		return peerDesignated, nil
	case isSpecialWard(e.Code):
		return peerSpecialWard, nil
	case core[e.Code].Designated != "" && core[e.Code].Designated <= censusDay(year):
		return peerCore, nil
	}
	for _, f := range []figure{pop, primary, secondary, tertiary} {
		if f.why != "" {
			return "", fmt.Errorf("類似団体 of %s in %d: no census figure (%s)", cl.label(e.Code), year, f.why)
		}
	}
	if primary.v+secondary.v+tertiary.v == 0 {
		if _, ok := evacuated[e.Code]; ok {
			return "", nil // the census did not describe it: no group that year
		}
		return "", fmt.Errorf("類似団体 of %s in %d: the census counted no worker by industry", cl.label(e.Code), year)
	}
	switch {
	case strings.HasSuffix(e.Name, "市"):
		pc, ic := CityClass(pop.v, primary.v, secondary.v, tertiary.v)
		return fmt.Sprintf("city-%d-%d", pc, ic), nil
	case strings.HasSuffix(e.Name, "町"), strings.HasSuffix(e.Name, "村"):
		pc, ic := TownClass(pop.v, primary.v, secondary.v, tertiary.v)
		return fmt.Sprintf("town-%d-%d", pc, ic), nil
	}
	return "", fmt.Errorf("類似団体 of %s: neither 市 nor 町 nor 村 by its name, nor a designated city or special ward", cl.label(e.Code))
}
