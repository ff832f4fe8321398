package site

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hensachi/hensachi/internal/testrig/browsertest"
)

// TestBrowserLayout opens the pages whose layout a reader's audit at 390 and 1280 px found wanting,
// each in the state that showed it, and checks them as every page is checked (Chromium.Widths:
// nothing wider than the screen, a box that scrolls shows it, a wide table's figures beside its
// labels, no short cell or label broken, a chart's text inside it, check boxes big enough to tap,
// dots and map shapes in their colour), and then that the tables which fit their box do: on a
// phone the ranking, the municipality's scores and similar list and the map's legend, and on a
// desktop the comparison of three. Screenshots: layout-<page>-1280.png and -390.png.
func TestBrowserLayout(t *testing.T) {
	s := newRealSite(t, "")
	c := browsertest.New(t, 5*time.Minute)
	for _, p := range []struct {
		name, path, ready string
		phone, desktop    []string // tables that fit their box at 390 and at 1280 px
	}{
		// Okinawa's dots picked out, once white blobs under their hit area's outline
		{"scatter-okinawa", "/town/scatter?x=pop&y=young&pref=47", "#pref-towns", nil, nil},
		// three side by side on a desktop; on a phone the labels leave room for a column of figures
		{"compare-3", "/town/compare?codes=28214,13101,01100", "#compare-table", nil, []string{"#compare-table"}},
		// ten scroll in their box, with seven-character names in the charts (つくばみらい市)
		{"compare-10", "/town/compare?codes=46304,11341,21502,43403,47324,21501,01458,08235,24344,07461", "#compare-table", nil, nil},
		// six on four indicators: their table and the tables of their series fit a desktop; ten
		// scroll on a phone
		{"compare-6-indicators", "/town/compare?codes=28214,13101,01100,46304,11341,21502&indicators=fiscal_strength,population,births_per_1000,laspeyres_index", "#series-table-fiscal_strength", nil, []string{"#series-table-fiscal_strength", "#series-table-population", "#compare-table"}},
		{"compare-10-indicators", "/town/compare?codes=46304,11341,21502,43403,47324,21501,01458,08235,24344,07461&indicators=fiscal_strength,population", "#series-table-population", nil, nil},
		{"ranking-doctor", "/town/rankings/doctor", "#ranking-total", []string{"table.wide-names"}, []string{"table.wide-names"}},
		{"ranking-shops", "/town/rankings/shops", "#ranking-total", []string{"table.wide-names"}, []string{"table.wide-names"}},
		{"ranking-tokyo", "/town/rankings/income?pref=13", "#ranking-total", []string{"table.wide-names"}, []string{"table.wide-names"}},
		// the largest values (3,777,491), the histogram's labels at its top, the yearly summary
		{"indicator-population", "/town/indicators/population", "#ranking-total", []string{"table.wide-names"}, []string{"table.wide-names", "#medians ~ .scroll table"}},
		{"municipality-takarazuka", "/town/municipalities/28214", "#score-table", []string{"#score-table", "#similar-list"}, []string{"#score-table", "#similar-list"}},
		{"municipality-chiyoda", "/town/municipalities/13101", "#score-table", []string{"#score-table", "#similar-list"}, nil},
		// a municipality's indicator: the chart's labels, its years' table fits a desktop
		{"town-indicator", "/town/municipalities/28214/indicators/population", "#town-years", nil, []string{"#town-years"}},
		// a change's ranking: the two values and the change beside the names
		{"indicator-change", "/town/indicators/unemployment_rate?from=2015&to=2020", "#ranking-total", nil, nil},
		// the legend of a measure with a long unit, the form's labels, the national map's small shapes
		{"map-doctor", "/town/map?m=doctor", "#legend-table", []string{"#legend-table"}, []string{"#legend-table"}},
		{"map-shops", "/town/map?m=shops", "#legend-table", []string{"#legend-table"}, nil},
		// 伊豆諸島 and 小笠原村 in their insets
		{"map-tokyo", "/town/map?m=income&pref=13", "#legend-table", nil, nil},
		// a change's map around zero, the Okinawa insets
		{"map-change-okinawa", "/town/map?m=unemployment_rate&from=2015&to=2020&pref=47", "#legend-table", []string{"#legend-table"}, nil},
		// the data guide's tables scroll in their own box
		{"docs-data", "/docs/data", "main table", nil, nil},
		// the search box and its hint (TestPublicPages checks that they are there)
		{"bad-request", "/town/rankings/income?page=abc", "#message", nil, nil},
		{"search-empty", "/search?q=", "#q", nil, nil},
	} {
		c.Do(p.name, chromedp.Navigate(s.URL+p.path), chromedp.WaitVisible(chromedp.CSS(p.ready)))
		c.Widths("layout-" + p.name)
		for _, w := range []struct {
			px     int64
			tables []string
			option []chromedp.EmulateViewportOption
		}{{390, p.phone, []chromedp.EmulateViewportOption{chromedp.EmulateMobile}}, {1280, p.desktop, nil}} {
			if len(w.tables) == 0 {
				continue
			}
			c.Do(p.name, chromedp.EmulateViewport(w.px, 900, w.option...))
			wider, err := chromedp.Run(c.Ctx, chromedp.Evaluate[[]string](`[`+quoteAll(w.tables)+`].flatMap(sel => {
				const t = document.querySelector(sel);
				if (!t) return [sel + ": not on the page"];
				const box = t.closest(".scroll") || t.parentElement;
				return box.scrollWidth > box.clientWidth + 1 ? [sel + ": " + box.scrollWidth + " px in a " + box.clientWidth + " px box"] : [];
			})`))
			if err != nil || len(wider) > 0 {
				t.Errorf("%s at %d px: tables wider than their box (%v): %s", p.name, w.px, err, strings.Join(wider, "; "))
			}
		}
		c.Do(p.name+" back to the desktop", chromedp.EmulateViewport(1000, 900))
	}
}

// quoteAll writes strings as JavaScript string literals, separated by commas.
func quoteAll(ss []string) string {
	var q []string
	for _, s := range ss {
		q = append(q, "'"+strings.ReplaceAll(s, "'", `\'`)+"'")
	}
	return strings.Join(q, ",")
}
