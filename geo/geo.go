// Package geo holds the municipalities' boundaries: read from the boundary file (TopoJSON), kept
// per dataset version, drawn on maps and written for GIS.
//
// A boundary is kept as the file quantised it: integer positions on a grid (QShape) and the
// Transform that turns them back into longitude and latitude. That is exact — the file holds no
// finer figure — and a third of the size of the degrees as floats.
package geo

import "math"

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

// Regrid moves q from the grid of from onto the grid of t, dropping the positions that fall on
// the one before them; a ring left with fewer than four positions (a triangle, closed) is dropped,
// a polygon without its outer ring too.
func (t Transform) Regrid(q QShape, from Transform) QShape {
	var out QShape
	for _, poly := range q {
		var p QPolygon
		for j, ring := range poly {
			var r QRing
			for _, pos := range ring {
				g := t.Grid(from.Point(pos))
				if len(r) == 0 || r[len(r)-1] != g {
					r = append(r, g)
				}
			}
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
