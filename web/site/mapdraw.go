package site

import (
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/geo"
	"github.com/hensachi/hensachi/town"
)

// The maps' drawing. A dataset version's boundaries are projected once (a town.Memo, the national
// map on first use, each prefecture's on its first use) into SVG path data: Mercator, integers in
// a viewBox about 1,000 units wide, one move and then relative lines per ring, so that a path
// costs a few bytes a point and the national map's 1,741 paths stay light for the browser. Each
// request then only colours and labels them.

// mapWidth is the viewBox's width, and the most a prefecture map's height may be.
const mapWidth = 1000

// drawnMap is one map's geometry: a path per municipality drawn and the frames of its insets.
type drawnMap struct {
	W, H int
	// Rows are the catalog rows drawn, in code order; Paths[i] is the path data of Rows[i], and
	// Thin[i] says that it is too small or too thin for an outline (thin).
	Rows   []int
	Paths  []string
	Thin   []bool
	Frames []mapFrame
}

// mapFrame is an inset's frame and its label.
type mapFrame struct {
	X, Y, W, H int
	Label      string
}

// mapSet is the maps of one dataset version, each drawn on first use: the national map, each
// prefecture's, and each prefecture's small map for its municipalities' pages.
type mapSet struct {
	national    func() *drawnMap
	prefs, mini map[string]func() *drawnMap
}

// miniWidth is the most a municipality page's prefecture map is wide or tall.
const miniWidth = 320

var drawnMaps = town.NewMemo(func(c *town.Catalog) *mapSet {
	b, err := c.Boundaries()
	if err != nil {
		return &mapSet{}
	}
	s := &mapSet{prefs: map[string]func() *drawnMap{}, mini: map[string]func() *drawnMap{}}
	s.national = sync.OnceValue(func() *drawnMap { return nationalMap(c, b) })
	for _, p := range c.Meta.Prefectures {
		s.prefs[p.Code] = sync.OnceValue(func() *drawnMap { return prefectureMap(c, b.Fine, p.Code, mapWidth) })
		s.mini[p.Code] = sync.OnceValue(func() *drawnMap { return prefectureMap(c, b.Coarse, p.Code, miniWidth) })
	}
	return s
})

// ogasawara is 小笠原村, a thousand kilometres south of Tokyo: an inset wherever it is drawn.
const ogasawara = "13421"

// southWestLat is the latitude south of which Kagoshima's islands (Amami, 十島村) join Okinawa in
// the national map's inset.
const southWestLat = 29.5

// nationalMap draws the whole country from the coarse layer: the main islands, with the south-west
// islands (Okinawa, Amami) inset in the empty sea to the north-west and 小笠原村 in the Pacific to
// the south-east.
func nationalMap(c *town.Catalog, b *town.Boundaries) *drawnMap {
	p := project(b.Coarse, nil, c)
	var main, southWest, bonin []int
	for i := range c.Len() {
		m := c.Row(i)
		switch {
		case m.Code == ogasawara:
			bonin = append(bonin, i)
		case m.Prefecture.Code == "47" || m.Prefecture.Code == "46" && p.south(i) < southWestLat:
			southWest = append(southWest, i)
		default:
			main = append(main, i)
		}
	}
	box := p.bbox(main)
	scale := mapWidth / box.w()
	W, H := mapWidth, int(math.Ceil(box.h()*scale))
	d := &drawnMap{W: W, H: H}
	layout := []struct {
		rows  []int
		frame rect
		label string
	}{
		{main, rect{0, 0, float64(W), float64(H)}, ""},
		{southWest, rect{4, 4, 0.44 * float64(W), 0.38 * float64(H)}, "沖縄県・奄美群島など"},
		{bonin, rect{0.74 * float64(W), 0.8 * float64(H), float64(W) - 4, float64(H) - 4}, "小笠原村"},
	}
	for _, l := range layout {
		p.draw(d, l.rows, l.frame, l.label)
	}
	d.sort()
	return d
}

// prefectureMap draws one prefecture from a layer, at most size by size; Tokyo's islands
// (伊豆諸島, 小笠原) are insets below the main map.
func prefectureMap(c *town.Catalog, l geo.Layer, pref string, size float64) *drawnMap {
	p := project(l, c.InPrefecture(pref), c)
	var main, izu, bonin []int
	for _, m := range c.InPrefecture(pref) {
		i := c.Index(m.Code)
		switch {
		case m.Code == ogasawara:
			bonin = append(bonin, i)
		case pref == "13" && m.Code > "13360":
			izu = append(izu, i)
		default:
			main = append(main, i)
		}
	}
	box := p.bbox(main)
	scale := min(size/box.w(), size/box.h())
	W, H := int(math.Ceil(box.w()*scale)), int(math.Ceil(box.h()*scale))
	d := &drawnMap{W: W, H: H}
	p.draw(d, main, rect{0, 0, float64(W), float64(H)}, "")
	if len(izu)+len(bonin) > 0 {
		band := 0.6 * float64(H)
		d.H = H + int(band) + 8
		p.draw(d, izu, rect{4, float64(H) + 8, float64(W)/2 - 4, float64(d.H) - 4}, "伊豆諸島")
		p.draw(d, bonin, rect{float64(W)/2 + 4, float64(H) + 8, float64(W) - 4, float64(d.H) - 4}, "小笠原村")
	}
	d.sort()
	return d
}

// rect is a box in projected or map units: X0, Y0 the top left corner.
type rect struct{ X0, Y0, X1, Y1 float64 }

func (r rect) w() float64 { return r.X1 - r.X0 }
func (r rect) h() float64 { return r.Y1 - r.Y0 }

// projected is a layer's shapes in Mercator units (degrees east, and north as y grows downwards),
// by catalog row; nil for a row not projected.
type projected [][][][][2]float64 // row, polygon, ring, point

// project projects the shapes of only (every row when nil).
func project(l geo.Layer, only []*hensachi.Municipality, c *town.Catalog) projected {
	out := make(projected, len(l.Shapes))
	rows := make([]int, 0, len(l.Shapes))
	if only == nil {
		for i := range l.Shapes {
			rows = append(rows, i)
		}
	}
	for _, m := range only {
		rows = append(rows, c.Index(m.Code))
	}
	for _, i := range rows {
		s := l.Shapes[i]
		out[i] = make([][][][2]float64, len(s))
		for j, poly := range s {
			out[i][j] = make([][][2]float64, len(poly))
			for k, ring := range poly {
				pts := make([][2]float64, len(ring))
				for n, q := range ring {
					pt := l.Transform.Point(q)
					pts[n] = [2]float64{pt[0], -mercator(pt[1])}
				}
				out[i][j][k] = pts
			}
		}
	}
	return out
}

// mercator is the Mercator projection's northing of a latitude, in degrees at the equator.
func mercator(lat float64) float64 {
	return math.Log(math.Tan(math.Pi/4+lat*math.Pi/360)) * 180 / math.Pi
}

// south is the southmost latitude of row i.
func (p projected) south(i int) float64 {
	y := math.Inf(-1)
	for _, poly := range p[i] {
		for _, pt := range poly[0] {
			y = max(y, pt[1])
		}
	}
	return math.Atan(math.Sinh(-y*math.Pi/180)) * 180 / math.Pi
}

// bbox is the box around the outer rings of rows.
func (p projected) bbox(rows []int) rect {
	r := rect{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, i := range rows {
		for _, poly := range p[i] {
			for _, pt := range poly[0] {
				r = rect{min(r.X0, pt[0]), min(r.Y0, pt[1]), max(r.X1, pt[0]), max(r.Y1, pt[1])}
			}
		}
	}
	return r
}

// draw fits rows into frame, keeping their proportions and centring them, and adds their paths to
// d; a labelled frame is an inset, its frame shrunk around what it holds and drawn.
func (p projected) draw(d *drawnMap, rows []int, frame rect, label string) {
	if len(rows) == 0 {
		return
	}
	box := p.bbox(rows)
	inner := frame
	const pad, labelH = 6.0, 16.0
	if label != "" {
		inner = rect{frame.X0 + pad, frame.Y0 + pad + labelH, frame.X1 - pad, frame.Y1 - pad}
	}
	scale := min(inner.w()/max(box.w(), 1e-9), inner.h()/max(box.h(), 1e-9))
	offX := inner.X0 + (inner.w()-box.w()*scale)/2 - box.X0*scale
	offY := inner.Y0 + (inner.h()-box.h()*scale)/2 - box.Y0*scale
	if label != "" {
		x0, y0 := box.X0*scale+offX-pad, box.Y0*scale+offY-pad-labelH
		d.Frames = append(d.Frames, mapFrame{X: int(x0), Y: int(y0), W: int(box.w()*scale + 2*pad), H: int(box.h()*scale + 2*pad + labelH), Label: label})
	}
	least := 0.0
	if label != "" {
		least = insetIsland
	}
	for _, i := range rows {
		path := pathData(p[i], scale, offX, offY, least)
		d.Rows = append(d.Rows, i)
		d.Paths = append(d.Paths, string(path.data))
		d.Thin = append(d.Thin, path.thin())
	}
}

// shapePath is a shape's SVG path data as pathData writes it, ring by ring, with the sums thin
// reads: twice the area (the shoelace's sum, holes turning the other way) and the outline's length.
type shapePath struct {
	data             []byte
	twice, perimeter float64
}

func (s *shapePath) ring(pts [][2]int) {
	s.data = appendRing(s.data, pts)
	for k, p := range pts {
		q := pts[(k+1)%len(pts)]
		s.twice += float64(p[0]*q[1] - q[0]*p[1])
		s.perimeter += math.Hypot(float64(q[0]-p[0]), float64(q[1]-p[1]))
	}
}

// thin says whether a shape's outline would hide it: the half-unit line between municipalities
// paints a quarter of a unit inside a shape all along its outline, which covers a quarter of a
// shape whose outline is as long as its area (a square of 4 units), and the whole of an island
// of a unit or two, as the small islands of an inset are (小笠原村, 伊豆諸島). Such a shape is drawn
// without the outline, in its colour only; its neighbours' outlines still mark it off.
func (s *shapePath) thin() bool { return s.perimeter > math.Abs(s.twice)/2 }

// sort puts the rows in code order (the catalog's), their paths with them.
func (d *drawnMap) sort() {
	idx := make([]int, len(d.Rows))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return d.Rows[a] - d.Rows[b] })
	rows, paths, thin := make([]int, len(idx)), make([]string, len(idx)), make([]bool, len(idx))
	for n, i := range idx {
		rows[n], paths[n], thin[n] = d.Rows[i], d.Paths[i], d.Thin[i]
	}
	d.Rows, d.Paths, d.Thin = rows, paths, thin
}

// insetIsland is the least an island of an inset is drawn across, in map units: 小笠原村's islands,
// a unit or two at the scale that fits 南鳥島 and 沖ノ鳥島 in, show as diamonds of this size rather
// than specks (at a phone's width, 2 px).
const insetIsland = 6

// pathData writes a shape as SVG path data in whole map units: per ring a move, then relative
// lines, positions that round onto the one before left out, and rings left with fewer than three
// corners dropped. A shape that leaves nothing (a small island far from the scale) is drawn as a
// small square per polygon, so that no municipality disappears. A polygon less than least units
// across is drawn as a diamond least units across around its middle (an inset's islands; 0: none).
func pathData(shape [][][][2]float64, scale, offX, offY, least float64) *shapePath {
	var b shapePath
	var pts [][2]int
	seen := map[[2]int]bool{}
	for _, poly := range shape {
		if least > 0 {
			x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
			for _, pt := range poly[0] {
				x, y := pt[0]*scale+offX, pt[1]*scale+offY
				x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
			}
			if x1-x0 < least && y1-y0 < least {
				r := int(math.Round(least / 2))
				q := [2]int{int(math.Round((x0 + x1) / 2)), int(math.Round((y0 + y1) / 2))}
				if !seen[q] {
					seen[q] = true
					b.ring([][2]int{{q[0], q[1] - r}, {q[0] + r, q[1]}, {q[0], q[1] + r}, {q[0] - r, q[1]}})
				}
				continue
			}
		}
		for _, ring := range poly {
			pts = pts[:0]
			for _, pt := range ring {
				q := [2]int{int(math.Round(pt[0]*scale + offX)), int(math.Round(pt[1]*scale + offY))}
				if len(pts) == 0 || pts[len(pts)-1] != q {
					pts = append(pts, q)
				}
			}
			if len(pts) > 1 && pts[0] == pts[len(pts)-1] {
				pts = pts[:len(pts)-1] // z closes the ring
			}
			if pts = simplify(pts); len(pts) < 3 {
				continue
			}
			b.ring(pts)
		}
	}
	if len(b.data) == 0 {
		for _, poly := range shape {
			var cx, cy float64
			for _, pt := range poly[0] {
				cx, cy = cx+pt[0], cy+pt[1]
			}
			n := float64(len(poly[0]))
			q := [2]int{int(math.Round(cx/n*scale+offX)) - 2, int(math.Round(cy/n*scale+offY)) - 2}
			if !seen[q] {
				seen[q] = true
				b.ring([][2]int{q, {q[0] + 4, q[1]}, {q[0] + 4, q[1] + 4}, {q[0], q[1] + 4}})
			}
		}
	}
	return &b
}

// tolerance is how far, in map units, simplify may move a ring's outline: under a screen pixel
// at the map's usual width, and under the half-unit stroke between municipalities.
const tolerance = 0.7

// simplify drops the corners of a closed ring (last corner not repeated) that lie within
// tolerance of the outline without them (Ramer–Douglas–Peucker, split at the corner farthest from
// the first); what the eye cannot tell apart need not be sent.
func simplify(pts [][2]int) [][2]int {
	if len(pts) < 4 {
		return pts
	}
	far, best := 0, -1.0
	for k, p := range pts {
		if d := sqDist(p, pts[0]); d > best {
			far, best = k, d
		}
	}
	keep := make([]bool, len(pts))
	keep[0], keep[far] = true, true
	closed := append(slices.Clone(pts), pts[0])
	rdp(closed, 0, far, keep)
	rdp(closed, far, len(pts), keep)
	out := pts[:0:0]
	for k, p := range pts {
		if keep[k] {
			out = append(out, p)
		}
	}
	return out
}

// rdp marks the corners between i and j (exclusive) to keep.
func rdp(pts [][2]int, i, j int, keep []bool) {
	if j-i < 2 {
		return
	}
	a, b := pts[i], pts[j]
	dx, dy := float64(b[0]-a[0]), float64(b[1]-a[1])
	length := math.Hypot(dx, dy)
	far, best := -1, tolerance
	for k := i + 1; k < j; k++ {
		var d float64
		if length == 0 {
			d = math.Sqrt(sqDist(pts[k], a))
		} else {
			d = math.Abs(dx*float64(pts[k][1]-a[1])-dy*float64(pts[k][0]-a[0])) / length
		}
		if d > best {
			far, best = k, d
		}
	}
	if far < 0 {
		return
	}
	keep[far%len(keep)] = true
	rdp(pts, i, far, keep)
	rdp(pts, far, j, keep)
}

func sqDist(p, q [2]int) float64 {
	dx, dy := float64(p[0]-q[0]), float64(p[1]-q[1])
	return dx*dx + dy*dy
}

// appendRing writes M x y, then l and the differences, then z.
func appendRing(b []byte, pts [][2]int) []byte {
	b = append(b, 'M')
	b = appendPair(b, pts[0][0], pts[0][1])
	b = append(b, 'l')
	for k := 1; k < len(pts); k++ {
		if k > 1 && pts[k][0]-pts[k-1][0] >= 0 {
			b = append(b, ' ')
		}
		b = appendPair(b, pts[k][0]-pts[k-1][0], pts[k][1]-pts[k-1][1])
	}
	return append(b, 'z')
}

// appendPair writes two numbers, a space between them unless the second has its minus.
func appendPair(b []byte, x, y int) []byte {
	b = strconv.AppendInt(b, int64(x), 10)
	if y >= 0 {
		b = append(b, ' ')
	}
	return strconv.AppendInt(b, int64(y), 10)
}
