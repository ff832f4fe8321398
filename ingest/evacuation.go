package ingest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// evacuation is, per census year, the municipalities whose census population is under half their
// 住民基本台帳 population of the next 1 January, each with the reason its census-based rates are
// null. The census counts who lives in a municipality, the 住民基本台帳 who is registered there: in
// the towns of Fukushima under evacuation orders (2015, 2020) most registered residents lived
// elsewhere, so a rate over the census population is not the municipality's (飯舘村's births of
// 2016 over its 41 census residents of 2015 would be 1,317 per 1,000).
type evacuation map[int]map[string]string // census year → code → why

// evacuationShare is the census population, as a share of the 住民基本台帳 population, below which
// the census does not describe a municipality.
const evacuationShare = 0.5

// evacuation compares every census year of the census population with the 住民基本台帳
// population of the next 1 January, where the sources have both.
func (p *itemPanel) evacuation(cl *CodeList) evacuation {
	ev := evacuation{}
	jumin := p.series[item{source: juminItems, name: JuminPopulation}]
	for _, census := range p.series[item{name: colPopulation}] {
		registered := jumin.at(census.year + 1)
		if registered == nil {
			continue
		}
		counted, reg := census.values(cl), registered.values(cl)
		for i, e := range cl.Entries {
			if counted[i].why != "" || reg[i].why != "" || counted[i].v >= evacuationShare*reg[i].v {
				continue
			}
			if ev[census.year] == nil {
				ev[census.year] = map[string]string{}
			}
			ev[census.year][e.Code] = fmt.Sprintf("the %d census counted %.0f residents, under half the %.0f registered on 1 January %d (住民基本台帳): no rate over the census population",
				census.year, counted[i].v, reg[i].v, census.year+1)
		}
	}
	return ev
}

// sentence is what an indicator's note says of the municipalities a census year's rule nulls,
// named by prefecture in code order.
func (ev evacuation) sentence(census int, cl *CodeList) string {
	var names []string
	pref := ""
	for _, code := range slices.Sorted(maps.Keys(ev[census])) {
		e, _ := cl.Entry(code)
		name := e.Name
		if e.Prefecture.Name != pref {
			pref = e.Prefecture.Name
			name = pref + e.Name
		}
		names = append(names, name)
	}
	return fmt.Sprintf("%d年国勢調査の人口が%d年1月1日の住民基本台帳人口の半分未満の市町村（%s。避難指示により登録された住民の多くが町村外に住む）は、%d年国勢調査を分母とする値を出さない。",
		census, census+1, strings.Join(names, "、"), census)
}
