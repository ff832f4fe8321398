package site

import (
	"net/url"
	"strconv"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/param"
	"github.com/hensachi/hensachi/town"
	"github.com/hensachi/hensachi/web/page"
)

// rankingPageSize is the number of municipalities on one ranking page.
const rankingPageSize = 50

// maxRankingPages bounds the page parameter: the whole country fits in 35 pages.
const maxRankingPages = 100

type axisLink struct {
	Key, Label string
	Current    bool
}

type prefOption struct {
	Code, Name string
	Selected   bool
}

type rankingRow struct {
	Rank, Code, Name, Pref, Hensachi, Value string
	PrefRank                                string // under a prefecture filter, the rank within it
	PeerRank                                string // under a 類似団体 filter, the rank within the group
	From, To                                string // a change's two values
	Marked                                  bool   // the municipality the reader came from (?highlight=)
}

// peersFilter is the 類似団体 a ranking page is narrowed to: the municipality of peers= and its group.
type peersFilter struct {
	Town  *hensachi.Municipality
	Group *hensachi.PeerGroup
}

// readPeers reads peers= (param.Peers): nil without it.
func readPeers(c *town.Catalog, q param.Query) (*peersFilter, error) {
	m, group, err := param.Peers(c, q)
	if err != nil || group == nil {
		return nil, err
	}
	return &peersFilter{Town: m, Group: group}, nil
}

// scope is the ranking's scope in a prefecture ("" for the country), narrowed to the group.
func (f *peersFilter) scope(pref string) town.Scope {
	if f == nil {
		return town.Scope{Pref: pref}
	}
	return town.Scope{Pref: pref, Peers: f.Group.Code}
}

// within adds peers= to a download's query: the file of the group's members.
func (f *peersFilter) within(q url.Values) url.Values {
	f.keepIn(q)
	return q
}

// keepIn adds peers= to the parameters a ranking's links keep.
func (f *peersFilter) keepIn(keep url.Values) {
	if f != nil {
		keep.Set("peers", f.Town.Code)
	}
}

// rankingList is what every ranking page (an axis's, an indicator's) shows around its rows: the
// prefecture filter, the count, one page of rows and the links to the pages before and after.
type rankingList struct {
	Pref        *hensachi.Prefecture
	Peers       *peersFilter // nil: every group
	PrefQuery   string       // ?pref=, to keep the prefecture on links to other rankings
	Prefectures []prefOption
	ValueUnit   string // the values' unit, under the heading 値 (or ValueHead)
	ValueHead   string // the values' heading when not 値: 変化 for a change
	// FromHead and ToHead head a change's two values (2015年, 2020年), "" for a ranking of levels.
	FromHead, ToHead string
	// Highlight is the code of the municipality the page opened at and marks (?highlight=), which
	// its form keeps; HighlightNote says why no row is marked when the ranking does not hold it.
	Highlight, HighlightNote string
	Items                    []rankingRow
	Total, From, To          int
	PageSize                 int
	PrevURL, NextURL         string
	Pages                    []pageLink // the pager's numbered links
	url                      string     // this page's address
	pageNo                   int
}

// pageLink is one entry of a ranking's pager: a page's number and address, or a gap (…).
type pageLink struct {
	N       int
	URL     string
	Current bool
	Gap     bool
}

// Span says which of how many municipalities a page shows, its numbers as people write them.
func (l rankingList) Span() string {
	return number(float64(l.Total), 0) + " 市区町村中 " + number(float64(l.From), 0) + "〜" + number(float64(l.To), 0) + " 位を表示"
}

// rankingSource gives one page of a ranking's rows, of a prefecture ("" for the whole country),
// and how many are ranked there.
type rankingSource func(pref string, offset, limit int) (rows []rankingRow, total int)

// rankingLocator gives where a municipality stands in a ranking of a prefecture ("" for the whole
// country), counted from 0; ok is false when the ranking does not hold it.
type rankingLocator func(pref string, m int) (pos int, ok bool)

// listRanking reads a ranking page's prefecture and page number and takes that page's rows from
// source. path is the page's address and keep the parameters its links keep besides those two.
// With locate, it reads highlight too: without a page number, the page opens at the one that
// holds that municipality, whose row is marked. The pager's links leave highlight out: they lead
// to the ranking itself.
func listRanking(c *town.Catalog, q param.Query, path string, keep url.Values, peers *peersFilter, source rankingSource, locate rankingLocator) (rankingList, error) {
	l := rankingList{PageSize: rankingPageSize, Peers: peers}
	pref, err := param.Prefecture(c, q)
	if err != nil {
		return l, err
	}
	prefCode := param.PrefectureCode(pref)
	if pref != nil {
		l.Pref, l.PrefQuery = pref, "?pref="+prefCode
	}
	if l.pageNo, err = param.Int(q, "page", 1, 1, maxRankingPages); err != nil {
		return l, err
	}
	if locate != nil {
		if l.Highlight, err = param.Highlight(q); err != nil {
			return l, err
		}
	}
	if l.Highlight != "" {
		pos, ok := 0, false
		if m := c.Index(l.Highlight); m >= 0 {
			pos, ok = locate(prefCode, m)
		}
		switch {
		case !ok:
			l.HighlightNote = highlightMissing(c, l.Highlight, pref, peers)
		case !q.Has("page"):
			l.pageNo = pos/rankingPageSize + 1
		}
	}
	offset := (l.pageNo - 1) * rankingPageSize
	l.Items, l.Total = source(prefCode, offset, rankingPageSize)
	if len(l.Items) == 0 && l.pageNo > 1 {
		return l, hensachi.Errorf(hensachi.ENotFound, "このページはありません。")
	}
	l.From, l.To = offset+1, offset+len(l.Items)
	if pref != nil {
		prefRanks(l.Items, offset)
	}
	for j := range l.Items {
		l.Items[j].Marked = l.Items[j].Code == l.Highlight
	}
	link := func(n int) string {
		v := url.Values{}
		for k, vs := range keep {
			v[k] = vs
		}
		if prefCode != "" {
			v.Set("pref", prefCode)
		}
		if n > 1 {
			v.Set("page", strconv.Itoa(n))
		}
		if len(v) == 0 {
			return path
		}
		return path + "?" + v.Encode()
	}
	l.url = link(l.pageNo)
	if l.pageNo > 1 {
		l.PrevURL = link(l.pageNo - 1)
	}
	if l.To < l.Total {
		l.NextURL = link(l.pageNo + 1)
	}
	last := (l.Total + rankingPageSize - 1) / rankingPageSize
	for n := 1; n <= last && last > 1; n++ {
		switch {
		// the first, the last, two either side of the current page, and a page a gap would
		// stand for alone
		case n == 1 || n == last || (n >= l.pageNo-2 && n <= l.pageNo+2) || (n == 2 && l.pageNo == 5) || (n == last-1 && l.pageNo == last-4):
			l.Pages = append(l.Pages, pageLink{N: n, URL: link(n), Current: n == l.pageNo})
		case len(l.Pages) > 0 && !l.Pages[len(l.Pages)-1].Gap:
			l.Pages = append(l.Pages, pageLink{Gap: true})
		}
	}
	for _, pr := range c.Meta.Prefectures {
		l.Prefectures = append(l.Prefectures, prefOption{Code: pr.Code, Name: pr.Name, Selected: pr.Code == prefCode})
	}
	return l, nil
}

// highlightMissing says why the ranking has no row to mark for a code.
func highlightMissing(c *town.Catalog, code string, pref *hensachi.Prefecture, peers *peersFilter) string {
	m, ok := c.Municipality(code)
	if !ok {
		return "市区町村コード " + code + " はありません。"
	}
	if pref != nil && m.Prefecture.Code != pref.Code {
		return m.Name + "（" + m.Prefecture.Name + "）は" + pref.Name + "の市区町村ではないため、このランキングにはありません。"
	}
	if g, ok := c.PeerGroupOf(m.Code); peers != nil && (!ok || g.Code != peers.Group.Code) {
		return m.Name + "は" + peers.Town.Name + "の類似団体（" + peers.Group.Name + "）ではないため、このランキングにはありません。"
	}
	return m.Name + "はこの年の値がないため、このランキングにはありません。"
}

// prefRanks gives the rows of a prefecture's page, in national order from the offset-th, their
// competition ranks within the prefecture: a row tied nationally with the one before shares its
// rank. (A tie across a page break starts the page at its position, the only loss.)
func prefRanks(rows []rankingRow, offset int) {
	for j := range rows {
		if j > 0 && rows[j].Rank == rows[j-1].Rank {
			rows[j].PrefRank = rows[j-1].PrefRank
		} else {
			rows[j].PrefRank = integer(offset + j + 1)
		}
	}
}

// where is the ranking's area: the country or the prefecture.
func (l *rankingList) where() string {
	where := "全国"
	if l.Pref != nil {
		where = l.Pref.Name
	}
	if l.Peers != nil {
		peers := l.Peers.Town.Name + "の類似団体（" + l.Peers.Group.Name + "）"
		if l.Pref == nil {
			return peers
		}
		return where + "の" + peers
	}
	return where
}

// title names a ranking of what, with its area and, after the first, its page.
func (l *rankingList) title(what string) string {
	title := what + "（" + l.where() + "）"
	if l.pageNo > 1 {
		title += " " + strconv.Itoa(l.pageNo) + " ページ目"
	}
	return title
}

type rankingPage struct {
	page.Base
	rankingList
	Axis    hensachi.Field
	Axes    []axisLink
	MapURL  string // the axis's map, of the prefecture when one is picked
	Scatter string // the scatter of the axis, the prefecture picked out
}

func (s *Site) ranking(c *town.Catalog, q param.Query, ps httprouter.Params) (string, any, error) {
	a, err := param.Axis(ps.ByName("axis"))
	if err != nil {
		return "", nil, err
	}
	axis := hensachi.Axes[a]
	peers, err := readPeers(c, q)
	if err != nil {
		return "", nil, err
	}
	keep := url.Values{}
	peers.keepIn(keep)
	list, err := listRanking(c, q, "/town/rankings/"+axis.Key, keep, peers, func(pref string, offset, limit int) ([]rankingRow, int) {
		items, total := c.Ranking(a, town.BestFirst, peers.scope(pref), offset, limit)
		rows := make([]rankingRow, len(items))
		for j, m := range items {
			s := m.Scores[a]
			rows[j] = rankingRow{Rank: integer(s.Rank), Code: m.Code, Name: m.Name, Pref: m.Prefecture.Name,
				Hensachi: strconv.FormatFloat(s.Hensachi, 'f', 1, 64), Value: number(s.Value.V, axis.Decimals)}
			if peers != nil {
				rows[j].PeerRank = integer(c.AxisRankInPeers(a, c.Index(m.Code)).Rank)
			}
		}
		return rows, total
	}, nil)
	if err != nil {
		return "", nil, err
	}
	list.ValueUnit = axis.Unit
	p := rankingPage{rankingList: list, Axis: axis}
	for _, x := range hensachi.Axes {
		p.Axes = append(p.Axes, axisLink{Key: x.Key, Label: x.Label, Current: x.Key == axis.Key})
	}
	p.MapURL = mapURL(axis.Key, param.PrefectureCode(list.Pref))
	other := defaultX // the scatter's other measure: income, or the young against income
	if other == axis.Key {
		other = defaultY
	}
	v := url.Values{"x": {axis.Key}, "y": {other}}
	if list.Pref != nil {
		v.Set("pref", list.Pref.Code)
	}
	p.Scatter = "/town/scatter?" + v.Encode()
	p.Base = s.base(c, list.title(axis.Label+"の偏差値ランキング"),
		list.where()+"の市区町村を「"+axis.Label+"」（"+axis.Description+"）の偏差値で並べたランキング。", list.url)
	return "ranking", p, nil
}
