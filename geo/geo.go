// Package geo holds the municipalities' boundaries: read from the boundary file (TopoJSON), kept
// per dataset version, drawn on maps and written for GIS.
//
// A boundary is kept as the file quantised it: integer positions on a grid (QShape) and the
// Transform that turns them back into longitude and latitude. That is exact — the file holds no
// finer figure — and a third of the size of the degrees as floats.
package geo

import (
	"math"
	"math/bits"
)

// Point is a longitude and a latitude in degrees (JGD2011, which GIS may read as WGS 84).
type Point [2]float64

// Ring is a closed ring: its last point equals its first.
type Ring []Point

// Polygon is an outer ring followed by its holes.
type Polygon []Ring

// Shape is one municipality's territory: one polygon per island or exclave.
type Shape []Polygon

// QPoint is a position on a Transform's grid: x counts steps east, y steps north.
type QPoint [2]int32

// QRing, QPolygon and QShape are Ring, Polygon and Shape on a grid.
type (
	QRing    []QPoint
	QPolygon []QRing
	QShape   []QPolygon
)

// Transform turns grid positions into degrees: longitude = x·Scale[0] + Translate[0], latitude
// alike with y.
type Transform struct {
	Scale     [2]float64 `json:"scale"`
	Translate [2]float64 `json:"translate"`
}

// Point returns the longitude and latitude of a grid position.
func (t Transform) Point(q QPoint) Point {
	return Point{float64(q[0])*t.Scale[0] + t.Translate[0], float64(q[1])*t.Scale[1] + t.Translate[1]}
}

// Grid returns the grid position nearest to p.
func (t Transform) Grid(p Point) QPoint {
	return QPoint{int32(math.Round((p[0] - t.Translate[0]) / t.Scale[0])), int32(math.Round((p[1] - t.Translate[1]) / t.Scale[1]))}
}

// Shape returns q in degrees.
func (t Transform) Shape(q QShape) Shape {
	s := make(Shape, len(q))
	for i, poly := range q {
		s[i] = make(Polygon, len(poly))
		for j, ring := range poly {
			r := make(Ring, len(ring))
			for k, p := range ring {
				r[k] = t.Point(p)
			}
			s[i][j] = r
		}
	}
	return s
}

// Empty reports whether q has no area to draw: no polygon whose outer ring has four positions (a
// simplified file may leave a ring there and back, or none).
func (q QShape) Empty() bool {
	for _, poly := range q {
		if len(poly) > 0 && len(poly[0]) >= 4 {
			return false
		}
	}
	return true
}

// Regrid moves q from the grid of from onto the grid of t, then cleans it (Clean): positions that
// fall on the one before them, and spikes that the coarser grid makes, are dropped.
func (t Transform) Regrid(q QShape, from Transform) QShape {
	moved := make(QShape, len(q))
	for i, poly := range q {
		moved[i] = make(QPolygon, len(poly))
		for j, ring := range poly {
			r := make(QRing, len(ring))
			for k, pos := range ring {
				r[k] = t.Grid(from.Point(pos))
			}
			moved[i][j] = r
		}
	}
	return moved.Clean()
}

// Clean returns q without what makes a polygon invalid for GIS while adding no area: a position
// repeated, and a spike — a position the ring goes to and straight back from, along the same line
// (ST_IsValid calls the ring self-intersecting, and ST_MakeValid turns it into a collection). A
// simplified file leaves such spikes where it kept a narrow inlet's tip but not its sides. A ring
// left with fewer than four positions (a triangle, closed) is dropped, a polygon without its outer
// ring too. On the grid the test of a straight line is exact.
func (q QShape) Clean() QShape {
	var out QShape
	for _, poly := range q {
		var p QPolygon
		for j, ring := range poly {
			r := cleanRing(ring)
			if len(r) < 4 {
				if j == 0 {
					break
				}
				continue
			}
			p = append(p, r)
		}
		if len(p) > 0 {
			out = append(out, p)
		}
	}
	return out
}

// cleanRing returns a closed ring without repeated positions and spikes, or nil when fewer than
// three positions remain.
func cleanRing(ring QRing) QRing {
	if len(ring) > 1 && ring[0] == ring[len(ring)-1] {
		ring = ring[:len(ring)-1] // the closing position is put back at the end
	}
	// a stack: each position either drops the one on top (a spike there, or the same position)
	// or goes on it; dropping one may make a spike of the one below, which the next test sees
	var r QRing
	for _, p := range ring {
		for len(r) > 0 && (r[len(r)-1] == p || len(r) > 1 && spike(r[len(r)-2], r[len(r)-1], p)) {
			r = r[:len(r)-1]
		}
		r = append(r, p)
	}
	// the ring closes: its last positions and its first are neighbours too
	for len(r) >= 3 {
		n := len(r)
		switch {
		case r[n-1] == r[0] || spike(r[n-2], r[n-1], r[0]):
			r = r[:n-1]
		case spike(r[n-1], r[0], r[1]):
			r = r[1:]
		default:
			return append(r, r[0])
		}
	}
	return nil
}

// spike reports whether b is a spike between a and c: the ring goes from a to b and comes back
// along the same line (c on the line through a and b, on a's side of b). a ≠ b and b ≠ c.
func spike(a, b, c QPoint) bool {
	ux, uy := int64(b[0])-int64(a[0]), int64(b[1])-int64(a[1])
	vx, vy := int64(c[0])-int64(b[0]), int64(c[1])-int64(b[1])
	// on one line: ux·vy = uy·vx, each product up to 2⁶⁴, past int64; then back: v points against u
	return product(ux, vy) == product(uy, vx) && (ux != 0 && (ux < 0) != (vx < 0) || ux == 0 && (uy < 0) != (vy < 0))
}

// signedProduct is a product of two int64 exactly: its sign and its magnitude's 128 bits.
type signedProduct struct {
	negative bool
	hi, lo   uint64
}

func product(a, b int64) signedProduct {
	hi, lo := bits.Mul64(abs(a), abs(b))
	return signedProduct{negative: (a < 0) != (b < 0) && hi|lo != 0, hi: hi, lo: lo}
}

func abs(v int64) uint64 {
	if v < 0 {
		return uint64(-v)
	}
	return uint64(v)
}

// Layer is every municipality's boundary at one level of detail, on one grid: Shapes[i] is the
// boundary of the dataset's row i (code order).
type Layer struct {
	Transform Transform
	Shapes    []QShape
}

// Boundaries are the two levels of detail a dataset keeps: Coarse for a map of the whole country,
// Fine for a prefecture's.
type Boundaries struct {
	Coarse, Fine Layer
}
