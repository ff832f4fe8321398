// Package topojson reads TopoJSON topologies (https://github.com/topojson/topojson-specification)
// of the kind the boundary files are: a quantising transform, delta-encoded arcs, and collections
// of Polygon and MultiPolygon geometries drawn from those arcs. Positions stay on the file's grid
// (geo.QShape) with its geo.Transform, so nothing is lost. Decode checks the whole file — every
// arc index, every ring closed, every position within the grid's range — so that a damaged file is
// refused with where it is damaged and never makes a reader panic.
package topojson

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/hensachi/hensachi/geo"
)

// ErrTopology marks a file that is not a TopoJSON topology this package reads.
var ErrTopology = errors.New("not a quantised TopoJSON topology")

// Topology is a decoded file: the arcs as absolute grid positions, the named collections.
type Topology struct {
	Transform geo.Transform
	// Arcs[i] are the positions of arc i, no longer delta-encoded.
	Arcs    [][]geo.QPoint
	Objects map[string]Collection
}

// Collection is a GeometryCollection.
type Collection struct {
	Geometries []Geometry
}

// Geometry is one Polygon or MultiPolygon, or a geometry without a type (null), which has no
// polygons.
type Geometry struct {
	Type       string
	Properties map[string]any
	// polygons are the arc indexes of each polygon's rings, a Polygon's as one polygon
	polygons [][][]int
}

// Property returns a string property, or "" when it is absent, null or not a string.
func (g *Geometry) Property(name string) string {
	s, _ := g.Properties[name].(string)
	return s
}

// Null reports whether the geometry has no shape.
func (g *Geometry) Null() bool { return len(g.polygons) == 0 }

type fileTopology struct {
	Type      string                    `json:"type"`
	Transform *geo.Transform            `json:"transform"`
	Arcs      [][][2]float64            `json:"arcs"`
	Objects   map[string]fileCollection `json:"objects"`
}

type fileCollection struct {
	Type       string         `json:"type"`
	Geometries []fileGeometry `json:"geometries"`
}

type fileGeometry struct {
	Type       *string         `json:"type"`
	Arcs       json.RawMessage `json:"arcs"`
	Properties map[string]any  `json:"properties"`
}

// Decode reads and checks a topology.
func Decode(r io.Reader) (*Topology, error) {
	var f fileTopology
	if err := json.NewDecoder(r).Decode(&f); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTopology, err)
	}
	if f.Type != "Topology" {
		return nil, fmt.Errorf("%w: type %q", ErrTopology, f.Type)
	}
	if f.Transform == nil {
		return nil, fmt.Errorf("%w: no transform (unquantised arcs are not read)", ErrTopology)
	}
	for i, s := range f.Transform.Scale {
		if !(s > 0) || math.IsInf(s, 0) || math.IsNaN(f.Transform.Translate[i]) || math.IsInf(f.Transform.Translate[i], 0) {
			return nil, fmt.Errorf("%w: transform %v", ErrTopology, *f.Transform)
		}
	}
	t := &Topology{Transform: *f.Transform, Arcs: make([][]geo.QPoint, len(f.Arcs)), Objects: map[string]Collection{}}
	for i, arc := range f.Arcs {
		if len(arc) < 2 {
			return nil, fmt.Errorf("%w: arc %d has %d positions", ErrTopology, i, len(arc))
		}
		var x, y float64
		pts := make([]geo.QPoint, len(arc))
		for k, d := range arc {
			x, y = x+d[0], y+d[1]
			if x != math.Trunc(x) || y != math.Trunc(y) || math.Abs(x) > math.MaxInt32 || math.Abs(y) > math.MaxInt32 {
				return nil, fmt.Errorf("%w: arc %d position %d: (%v, %v) is not a 32-bit grid position", ErrTopology, i, k, x, y)
			}
			pts[k] = geo.QPoint{int32(x), int32(y)}
		}
		t.Arcs[i] = pts
	}
	for name, o := range f.Objects {
		if o.Type != "GeometryCollection" {
			return nil, fmt.Errorf("%w: object %s is a %q, not a GeometryCollection", ErrTopology, name, o.Type)
		}
		c := Collection{Geometries: make([]Geometry, len(o.Geometries))}
		for i, fg := range o.Geometries {
			g, err := t.geometry(fg)
			if err != nil {
				return nil, fmt.Errorf("%w: object %s geometry %d: %v", ErrTopology, name, i, err)
			}
			c.Geometries[i] = g
		}
		t.Objects[name] = c
	}
	return t, nil
}

// geometry reads a geometry's arcs and checks that its rings are closed.
func (t *Topology) geometry(fg fileGeometry) (Geometry, error) {
	g := Geometry{Properties: fg.Properties}
	if fg.Type == nil {
		return g, nil
	}
	g.Type = *fg.Type
	var err error
	switch g.Type {
	case "Polygon":
		var rings [][]int
		err = json.Unmarshal(fg.Arcs, &rings)
		g.polygons = [][][]int{rings}
	case "MultiPolygon":
		err = json.Unmarshal(fg.Arcs, &g.polygons)
	default:
		return g, fmt.Errorf("type %q (only Polygon and MultiPolygon are read)", g.Type)
	}
	if err != nil {
		return g, fmt.Errorf("%s arcs: %v", g.Type, err)
	}
	for p, poly := range g.polygons {
		if len(poly) == 0 {
			return g, fmt.Errorf("polygon %d has no ring", p)
		}
		for r, ring := range poly {
			if len(ring) == 0 {
				return g, fmt.Errorf("polygon %d ring %d has no arc", p, r)
			}
			for _, a := range ring {
				if i := arcIndex(a); i >= len(t.Arcs) {
					return g, fmt.Errorf("polygon %d ring %d: arc %d of %d", p, r, a, len(t.Arcs))
				}
			}
			// a simplified file may leave a ring of three positions, there and back: degenerate, but
			// closed, and the reader's to pass over
			if pts := t.ring(ring); pts[0] != pts[len(pts)-1] {
				return g, fmt.Errorf("polygon %d ring %d is not a closed ring (%d positions)", p, r, len(pts))
			}
		}
	}
	return g, nil
}

// arcIndex is the arc a ring's entry names: ~i for arc i reversed.
func arcIndex(a int) int {
	if a < 0 {
		return ^a
	}
	return a
}

// ring joins the arcs of a ring, each after the first without its first position (the last of
// the one before).
func (t *Topology) ring(arcs []int) geo.QRing {
	var out geo.QRing
	for _, a := range arcs {
		pts := t.Arcs[arcIndex(a)]
		if a < 0 {
			pts = slices.Clone(pts)
			slices.Reverse(pts)
		}
		if len(out) > 0 {
			pts = pts[1:]
		}
		out = append(out, pts...)
	}
	return out
}

// Shape returns a geometry's polygons on the topology's grid; nil for a null geometry.
func (t *Topology) Shape(g *Geometry) geo.QShape {
	if g.Null() {
		return nil
	}
	s := make(geo.QShape, len(g.polygons))
	for i, poly := range g.polygons {
		s[i] = make(geo.QPolygon, len(poly))
		for j, ring := range poly {
			s[i][j] = t.ring(ring)
		}
	}
	return s
}
