package site

import (
	"net/url"
	"strconv"
	"testing"

	"github.com/hensachi/hensachi/internal/param"
	"github.com/hensachi/hensachi/internal/testrig/towntest"
)

// TestRankingPager: a ranking of 1,741 numbers its first and last pages and two either side of
// the current one, with a gap where pages are left out, and counts with commas.
func TestRankingPager(t *testing.T) {
	c := towntest.Catalog()
	source := func(_ string, offset, limit int) ([]rankingRow, int) {
		rows := make([]rankingRow, min(limit, 1741-offset))
		for i := range rows {
			rows[i].Rank = strconv.Itoa(offset + i + 1)
		}
		return rows, 1741
	}
	for _, tc := range []struct {
		page string
		want string // the pager: numbers, * the current one, … a gap
	}{
		{"1", "*1 2 3 … 35"},
		{"5", "1 2 3 4 *5 6 7 … 35"},
		{"35", "1 … 33 34 *35"},
	} {
		q, err := param.ParseAPI(url.Values{"page": {tc.page}}.Encode(), "page", "pref")
		if err != nil {
			t.Fatal(err)
		}
		l, err := listRanking(c, q, "/r", nil, nil, source, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for i, p := range l.Pages {
			if i > 0 {
				got += " "
			}
			switch {
			case p.Gap:
				got += "…"
			case p.Current:
				got += "*" + strconv.Itoa(p.N)
			default:
				got += strconv.Itoa(p.N)
			}
		}
		if got != tc.want {
			t.Errorf("page %s: pager %q, want %q", tc.page, got, tc.want)
		}
		if tc.page == "35" && l.Span() != "1,741 市区町村中 1,701〜1,741 位を表示" {
			t.Errorf("last page: %q", l.Span())
		}
	}
}
