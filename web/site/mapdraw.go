package site

import (
	"math"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

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
	// Rows are the catalog rows drawn, in code order; Paths[i] is the path data of Rows[i],
	// Thin[i] says that it is too small or too thin for an outline (thin), and Boxes[i] is the box
	// around what it draws, in map units.
	Rows   []int
	Paths  []string
	Thin   []bool
	Boxes  []rect
	Frames []mapFrame
	// PxPerUnit is how many screen pixels a map unit covers where the map is seen smallest (phone).
	PxPerUnit float64
}

// mapFrame is an inset's frame and its label, written FontSize units high.
type mapFrame struct {
	X, Y, W, H int
	Label      string
	FontSize   int
}

// mapSet is the maps of one dataset version, each drawn on first use: the national map, each
// prefecture's, and each prefecture's small map for its municipalities' pages.
type mapSet struct {
	national    func() *drawnMap
	prefs, mini map[string]func() *drawnMap
}

// miniWidth is the most a municipality page's prefecture map is wide or tall.
const miniWidth = 320

// The smallest a map is seen: a phone 390 px wide and 844 high, whose page column leaves a map
// 366 px (main's padding is .75rem a side) and whose style caps it at 80% of the screen's height
// (675 px); a municipality page's prefecture map (the locator) is at most 20rem, 320 px, wide.
const (
	phoneMapWidth  = 366
	phoneMapHeight = 675
	locatorWidth   = miniWidth
)

// speckPx is the least, in screen pixels, that a municipality must be across one way or the
// other to be seen and hit with a finger; one under it on a phone is a speck.
const speckPx = 4

var drawnMaps = town.NewMemo(func(c *town.Catalog) *mapSet {
	b, err := c.Boundaries()
	if err != nil {
		return &mapSet{}
	}
	s := &mapSet{prefs: map[string]func() *drawnMap{}, mini: map[string]func() *drawnMap{}}
	s.national = sync.OnceValue(func() *drawnMap {
		return layout(c, b.Coarse, nil, nationalInsets, mapWidth, true, phoneMapWidth)
	})
	for _, p := range c.Meta.Prefectures {
		rows := func() []int {
			var rows []int
			for _, m := range c.InPrefecture(p.Code) {
				rows = append(rows, c.Index(m.Code))
			}
			return rows
		}
		s.prefs[p.Code] = sync.OnceValue(func() *drawnMap {
			return layout(c, b.Fine, rows(), prefectureInsets[p.Code], mapWidth, false, phoneMapWidth)
		})
		s.mini[p.Code] = sync.OnceValue(func() *drawnMap {
			return layout(c, b.Coarse, rows(), prefectureInsets[p.Code], miniWidth, false, locatorWidth)
		})
	}
	return s
})

// inset is a group of remote islands drawn in a frame of their own, at a scale of their own,
// labelled, where the sea around the rest of the map is empty: so that islands far from the rest
// do not shrink it (沖縄本島 beside 与那国 and 大東 would be a speck) and show at a size one can
// see and tap. holds picks the parts (islands) it draws, by their municipality, the municipality's
// southmost latitude, or where the part lies (its middle); share is the most of the main map's
// width and height its frame may take, and corner where it is looked for first (where the islands
// lie from the rest).
type inset struct {
	label  string
	holds  func(m *hensachi.Municipality, south float64, part geo.Point) bool
	share  [2]float64
	corner corner
}

// corner is a corner of a map, where an inset goes first.
type corner int

const (
	topLeft corner = iota
	topRight
	bottomLeft
	bottomRight
)

// codes holds the municipalities of those codes.
func codes(list ...string) func(*hensachi.Municipality, float64, geo.Point) bool {
	return func(m *hensachi.Municipality, _ float64, _ geo.Point) bool { return slices.Contains(list, m.Code) }
}

// ogasawara is 小笠原村, a thousand kilometres south of Tokyo: an inset wherever it is drawn.
const ogasawara = "13421"

// southWestLat is the latitude south of which Kagoshima's islands (Amami, 十島村) join Okinawa in
// the national map's inset.
const southWestLat = 29.5

// nationalInsets are the national map's: the south-west islands (Okinawa, Amami) in the empty sea
// to the north-west and 小笠原村 in the Pacific to the south-east. The country's other islands
// keep their place (an island municipality too small to see is drawn at the least size, draw).
var nationalInsets = []inset{
	{label: "沖縄県・奄美群島など", share: [2]float64{0.44, 0.38}, corner: topLeft,
		holds: func(m *hensachi.Municipality, south float64, _ geo.Point) bool {
			return m.Prefecture.Code == "47" || m.Prefecture.Code == "46" && south < southWestLat
		}},
	{label: "小笠原村", share: [2]float64{0.26, 0.2}, corner: bottomRight, holds: codes(ogasawara)},
}

// prefectureInsets are the prefecture maps' (and their locators'), found by measuring every
// municipality at a phone's width (TestMapSpecksOnRealData) and where one prefecture's islands lie
// so far out that they shrink the rest: Tokyo's islands, 長崎's 五島 and 対馬・壱岐, 鹿児島's
// 三島村, 十島村 and 奄美, 沖縄's 宮古・八重山, 大東 and 尖閣.
var prefectureInsets = map[string][]inset{
	"13": {
		{label: "伊豆諸島", share: [2]float64{0.5, 0.6}, corner: bottomLeft,
			holds: codes("13361", "13362", "13363", "13364", "13381", "13382", "13401", "13402")},
		{label: "小笠原村", share: [2]float64{0.5, 0.6}, corner: bottomRight, holds: codes(ogasawara)},
	},
	"42": {
		{label: "五島列島", share: [2]float64{0.4, 0.5}, corner: bottomLeft, holds: codes("42211", "42383", "42411")},
		{label: "対馬・壱岐", share: [2]float64{0.4, 0.5}, corner: topLeft, holds: codes("42209", "42210")},
	},
	"46": {
		{label: "三島村", share: [2]float64{0.4, 0.2}, corner: bottomLeft, holds: codes("46303")},
		{label: "十島村", share: [2]float64{0.35, 0.4}, corner: bottomLeft, holds: codes("46304")},
		{label: "奄美群島", share: [2]float64{0.5, 0.5}, corner: bottomRight,
			holds: codes("46222", "46523", "46524", "46525", "46527", "46529", "46530", "46531", "46532", "46533", "46534", "46535")},
	},
	"47": {
		// 石垣市's 尖閣諸島 lie 150 km north of its island, and would halve the scale of 八重山's
		{label: "尖閣諸島", share: [2]float64{0.2, 0.15}, corner: topLeft,
			holds: func(m *hensachi.Municipality, _ float64, part geo.Point) bool {
				return m.Code == "47207" && part[1] > 25.5
			}},
		{label: "宮古・八重山", share: [2]float64{0.6, 0.4}, corner: bottomLeft, holds: codes("47207", "47214", "47375", "47381", "47382")},
		{label: "大東諸島", share: [2]float64{0.2, 0.4}, corner: bottomRight, holds: codes("47357", "47358")},
	},
}

// layout draws rows (every row when nil) from a layer: those of no inset fitted into size (its
// width alone when wide, for the national map; else at most size either way), each inset's in a
// frame placed where the rest leaves the sea empty, or beside the map (below a wide one, to the
// right of a tall one) where none is. screen is the width the map is seen at on a phone.
func layout(c *town.Catalog, l geo.Layer, rows []int, insets []inset, size float64, wide bool, screen float64) *drawnMap {
	if rows == nil {
		rows = make([]int, c.Len())
		for i := range rows {
			rows[i] = i
		}
	}
	p := project(l, rows)
	// frame 0 is the main map, k+1 inset k: each holds the parts of the rows it draws
	parts := make([]projected, len(insets)+1)
	drawn := make([][]int, len(insets)+1)
	for k := range parts {
		parts[k] = make(projected, len(p))
	}
	for _, i := range rows {
		south := p.south(i)
		for _, poly := range p[i] {
			mid := p.ringBox(poly[0])
			at := geo.Point{(mid.X0 + mid.X1) / 2, latitude((mid.Y0 + mid.Y1) / 2)}
			k := 1 + slices.IndexFunc(insets, func(in inset) bool { return in.holds(c.Row(i), south, at) })
			if len(parts[k][i]) == 0 {
				drawn[k] = append(drawn[k], i)
			}
			parts[k][i] = append(parts[k][i], poly)
		}
	}
	main := drawn[0]
	box := parts[0].bbox(main)
	scale := min(size/box.w(), size/box.h())
	if wide {
		scale = size / box.w()
	}
	W, H := int(math.Ceil(box.w()*scale)), int(math.Ceil(box.h()*scale))
	d := &drawnMap{W: W, H: H}
	mainFrame := rect{0, 0, float64(W), float64(H)}
	// an inset's label is about 10 px high on a phone, within 13 and 24 units (a wide map's 24 is
	// 23 px at the page's widest)
	font := int(math.Round(min(max(10/min(screen/float64(W), phoneMapHeight/float64(H)), 13), 24)))
	sea := newLand(parts[0], main, scale, -box.X0*scale, -box.Y0*scale, W, H)
	frames := make([]rect, len(insets))
	var taken []rect // the frames placed in the sea
	var beside []int
	for k, in := range insets {
		held := drawn[k+1]
		if len(held) == 0 {
			continue
		}
		fw, fh := insetSize(parts[k+1].bbox(held), in.share[0]*float64(W), in.share[1]*float64(H), in.label, font)
		placed := false
		for _, shrink := range []float64{1, 0.8} { // smaller, the islands would be specks again
			w, h := insetSize(parts[k+1].bbox(held), shrink*in.share[0]*float64(W), shrink*in.share[1]*float64(H), in.label, font)
			for _, at := range candidates(in.corner, w, h, W, H) {
				if sea.empty(at) && !slices.ContainsFunc(taken, at.overlaps) {
					frames[k], placed = at, true
					taken = append(taken, at)
					break
				}
			}
			if placed {
				break
			}
		}
		if !placed {
			frames[k] = rect{0, 0, fw, fh}
			beside = append(beside, k)
		}
	}
	// the insets no sea holds go in a band below a wide map, in a column right of a tall one
	x, y := 4.0, float64(H)+8
	if W < H {
		x, y = float64(W)+8, 4
	}
	for _, k := range beside {
		f := frames[k]
		frames[k] = rect{x, y, x + f.w(), y + f.h()}
		d.W, d.H = max(d.W, int(math.Ceil(frames[k].X1))+4), max(d.H, int(math.Ceil(frames[k].Y1))+4)
		if W < H {
			y += f.h() + 8
		} else {
			x += f.w() + 8
		}
	}
	d.PxPerUnit = min(screen/float64(d.W), phoneMapHeight/float64(d.H))
	alone := isolated(l, rows)
	least := speckPx / d.PxPerUnit
	paths := map[int]*shapePath{}
	parts[0].draw(d, paths, main, mainFrame, "", 0, least, alone)
	for k, in := range insets {
		parts[k+1].draw(d, paths, drawn[k+1], frames[k], in.label, font, least, alone)
	}
	for _, i := range rows {
		if paths[i] != nil {
			d.Rows = append(d.Rows, i)
		}
	}
	slices.Sort(d.Rows)
	for _, i := range d.Rows {
		d.Paths = append(d.Paths, string(paths[i].data))
		d.Thin = append(d.Thin, paths[i].thin())
		d.Boxes = append(d.Boxes, paths[i].box)
	}
	return d
}

// insetPad is the room inside an inset's frame around its islands.
const insetPad = 6.0

// insetSize is the frame that holds a box of islands at the largest scale that fits w by h, with
// its label above them and wide enough for it.
func insetSize(box rect, w, h float64, label string, font int) (float64, float64) {
	labelH := float64(font) + 4
	s := min((w-2*insetPad)/max(box.w(), 1e-9), (h-2*insetPad-labelH)/max(box.h(), 1e-9))
	return max(box.w()*s+2*insetPad, float64(utf8.RuneCountInString(label)*font)+2*insetPad), box.h()*s + 2*insetPad + labelH
}

// candidates are the places tried for an inset's frame w by h on a W by H map: its corner, the
// other corners, then the middles of the edges.
func candidates(first corner, w, h float64, W, H int) []rect {
	const m = 4
	x := []float64{m, float64(W) - m - w, (float64(W) - w) / 2}
	y := []float64{m, float64(H) - m - h, (float64(H) - h) / 2}
	at := func(i, j int) rect { return rect{x[i], y[j], x[i] + w, y[j] + h} }
	corners := []rect{at(0, 0), at(1, 0), at(0, 1), at(1, 1)}
	out := []rect{corners[first]}
	for c, r := range corners {
		if corner(c) != first {
			out = append(out, r)
		}
	}
	return append(out, at(2, 0), at(2, 1), at(0, 2), at(1, 2))
}

// overlaps reports whether two boxes share more than an edge, a few units apart counting as
// touching.
func (r rect) overlaps(o rect) bool {
	const gap = 4
	return r.X0 < o.X1+gap && o.X0 < r.X1+gap && r.Y0 < o.Y1+gap && o.Y0 < r.Y1+gap
}

// land is where a map's main part draws, on a grid of cells landCell units square, for finding
// the empty sea an inset may take.
type land struct {
	cols, rows int
	filled     []bool
}

const landCell = 5

// newLand fills the cells the outer rings of rows cover, drawn at scale and offset on a W by H
// map: each ring's inside, row of cells by row (even–odd), and each corner's cell, so that an
// island smaller than a cell counts too.
func newLand(p projected, rows []int, scale, offX, offY float64, W, H int) *land {
	g := &land{cols: W/landCell + 1, rows: H/landCell + 1}
	g.filled = make([]bool, g.cols*g.rows)
	set := func(cx, cy int) {
		if cx >= 0 && cy >= 0 && cx < g.cols && cy < g.rows {
			g.filled[cy*g.cols+cx] = true
		}
	}
	var xs []float64
	for _, i := range rows {
		for _, poly := range p[i] {
			ring := poly[0]
			y0, y1 := math.Inf(1), math.Inf(-1)
			for _, pt := range ring {
				x, y := pt[0]*scale+offX, pt[1]*scale+offY
				set(int(x/landCell), int(y/landCell))
				y0, y1 = min(y0, y), max(y1, y)
			}
			for cy := int(y0 / landCell); cy <= int(y1/landCell); cy++ {
				yc := (float64(cy) + 0.5) * landCell
				xs = xs[:0]
				for k := range ring {
					a, b := ring[k], ring[(k+1)%len(ring)]
					ay, by := a[1]*scale+offY, b[1]*scale+offY
					if (ay <= yc) != (by <= yc) {
						ax, bx := a[0]*scale+offX, b[0]*scale+offX
						xs = append(xs, ax+(yc-ay)/(by-ay)*(bx-ax))
					}
				}
				slices.Sort(xs)
				for k := 0; k+1 < len(xs); k += 2 {
					for cx := int(xs[k] / landCell); cx <= int(xs[k+1]/landCell); cx++ {
						set(cx, cy)
					}
				}
			}
		}
	}
	return g
}

// empty reports whether a frame lies on the map and over no land, a cell's margin around it.
func (g *land) empty(r rect) bool {
	if r.X0 < 0 || r.Y0 < 0 || r.X1 > float64(g.cols*landCell) || r.Y1 > float64(g.rows*landCell) {
		return false
	}
	for cy := int(r.Y0/landCell) - 1; cy <= int(r.Y1/landCell)+1; cy++ {
		for cx := int(r.X0/landCell) - 1; cx <= int(r.X1/landCell)+1; cx++ {
			if cx >= 0 && cy >= 0 && cx < g.cols && cy < g.rows && g.filled[cy*g.cols+cx] {
				return false
			}
		}
	}
	return true
}

// isolated says which rows share no border with another of rows in a layer (no position of their
// rings is another's): islands, which a map may draw larger than they are without covering a
// neighbour.
func isolated(l geo.Layer, rows []int) map[int]bool {
	owner := map[geo.QPoint]int{}
	shared := map[int]bool{}
	for _, i := range rows {
		for _, poly := range l.Shapes[i] {
			for _, ring := range poly {
				for _, q := range ring {
					if o, ok := owner[q]; ok && o != i {
						shared[i], shared[o] = true, true
					}
					owner[q] = i
				}
			}
		}
	}
	alone := make(map[int]bool, len(rows))
	for _, i := range rows {
		alone[i] = !shared[i]
	}
	return alone
}

// rect is a box in projected or map units: X0, Y0 the top left corner.
type rect struct{ X0, Y0, X1, Y1 float64 }

func (r rect) w() float64 { return r.X1 - r.X0 }
func (r rect) h() float64 { return r.Y1 - r.Y0 }

// projected is a layer's shapes in Mercator units (degrees east, and north as y grows downwards),
// by catalog row; nil for a row not projected.
type projected [][][][][2]float64 // row, polygon, ring, point

// project projects the shapes of rows.
func project(l geo.Layer, rows []int) projected {
	out := make(projected, len(l.Shapes))
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
	return latitude(y)
}

// latitude is the latitude of a projected y (mercator's inverse, north up).
func latitude(y float64) float64 { return math.Atan(math.Sinh(-y*math.Pi/180)) * 180 / math.Pi }

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
// d; a labelled frame is an inset, its frame shrunk around what it holds and drawn, its label font
// units high. An island municipality (alone: sharing no border) whose largest part would be under
// least units across is drawn as a diamond least across per part, so that it can be seen and hit.
// A row's parts in several frames make one path (paths).
func (p projected) draw(d *drawnMap, paths map[int]*shapePath, rows []int, frame rect, label string, font int, least float64, alone map[int]bool) {
	if len(rows) == 0 {
		return
	}
	box := p.bbox(rows)
	inner := frame
	labelH := float64(font) + 4
	if label != "" {
		inner = rect{frame.X0 + insetPad, frame.Y0 + insetPad + labelH, frame.X1 - insetPad, frame.Y1 - insetPad}
	}
	scale := min(inner.w()/max(box.w(), 1e-9), inner.h()/max(box.h(), 1e-9))
	offX := inner.X0 + (inner.w()-box.w()*scale)/2 - box.X0*scale
	offY := inner.Y0 + (inner.h()-box.h()*scale)/2 - box.Y0*scale
	if label != "" {
		w := max(box.w()*scale+2*insetPad, frame.w())
		x0, y0 := offX+box.X0*scale+box.w()*scale/2-w/2, box.Y0*scale+offY-insetPad-labelH
		d.Frames = append(d.Frames, mapFrame{X: int(x0), Y: int(y0), W: int(w), H: int(box.h()*scale + 2*insetPad + labelH), Label: label, FontSize: font})
	}
	for _, i := range rows {
		islands := 0.0
		if alone[i] && p.largest(i)*scale < least {
			islands = least
		}
		if paths[i] == nil {
			paths[i] = &shapePath{}
		}
		paths[i].add(p[i], scale, offX, offY, islands)
	}
}

// largest is how far across, the longer way, row i's largest part is in projected units.
func (p projected) largest(i int) float64 {
	most := 0.0
	for _, poly := range p[i] {
		r := p.ringBox(poly[0])
		most = max(most, r.w(), r.h())
	}
	return most
}

// ringBox is the box around a ring.
func (projected) ringBox(ring [][2]float64) rect {
	r := rect{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, pt := range ring {
		r = rect{min(r.X0, pt[0]), min(r.Y0, pt[1]), max(r.X1, pt[0]), max(r.Y1, pt[1])}
	}
	return r
}

// shapePath is a shape's SVG path data as pathData writes it, ring by ring, with the sums thin
// reads: twice the area (the shoelace's sum, holes turning the other way) and the outline's length.
// box is the box around what it draws.
type shapePath struct {
	data             []byte
	twice, perimeter float64
	box              rect
}

func (s *shapePath) ring(pts [][2]int) {
	if len(s.data) == 0 {
		s.box = rect{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	}
	s.data = appendRing(s.data, pts)
	for k, p := range pts {
		s.box = rect{min(s.box.X0, float64(p[0])), min(s.box.Y0, float64(p[1])), max(s.box.X1, float64(p[0])), max(s.box.Y1, float64(p[1]))}
		q := pts[(k+1)%len(pts)]
		s.twice += float64(p[0]*q[1] - q[0]*p[1])
		s.perimeter += math.Hypot(float64(q[0]-p[0]), float64(q[1]-p[1]))
	}
}

// thin says whether a shape's outline would hide it: the half-unit line between municipalities
// paints a quarter of a unit inside a shape all along its outline, which covers a quarter of a
// shape whose outline is as long as its area (a square of 4 units), and the whole of an island
// of a unit or two, as small islands are (小笠原村, 伊豆諸島). Such a shape is drawn
// without the outline, in its colour only; its neighbours' outlines still mark it off.
func (s *shapePath) thin() bool { return s.perimeter > math.Abs(s.twice)/2 }

// pathData writes a shape as SVG path data in whole map units: per ring a move, then relative
// lines, positions that round onto the one before left out, and rings left with fewer than three
// corners dropped. A shape that leaves nothing (a small island far from the scale) is drawn as a
// small square per polygon, so that no municipality disappears. A polygon less than least units
// across is drawn as a diamond at least least units across around its middle (an island too small
// to see; 0: none).
func pathData(shape [][][][2]float64, scale, offX, offY, least float64) *shapePath {
	var b shapePath
	b.add(shape, scale, offX, offY, least)
	return &b
}

// add writes a shape's path data after what b holds, as pathData does.
func (b *shapePath) add(shape [][][][2]float64, scale, offX, offY, least float64) {
	before := len(b.data)
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
				r := int(math.Ceil(least / 2))
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
	if len(b.data) == before {
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
