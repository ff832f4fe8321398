// Package geojsonfile writes a table of municipalities with their boundaries as a GeoJSON file
// (RFC 7946) for GIS: the bulk export's GeoJSON (package export). It writes as it goes, a feature
// at a time, holding one feature's bytes and one shape (Collection.Shape), never the whole file.
package geojsonfile

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/geo"
)

// Decimals is the precision of the coordinates written: 1e-6 degree is about 0.1 m on the ground,
// finer than any boundary file the dataset is drawn from, and each further digit would add a tenth
// to the file's size.
const Decimals = 6

// Collection is what a file holds: one feature per row of the columns.
type Collection struct {
	// Columns are the features' properties, in their order, all of one length: the features'.
	Columns []hensachi.Column
	// ID names the column of strings whose values are the features' ids (the municipality code).
	ID string
	// Shape returns row r's geometry, asked for once as the row is written, so that a caller
	// keeping its boundaries in another form makes one at a time; an empty shape is a null geometry.
	Shape func(r int) geo.Shape
	// Attribution is the credits the data must carry, written as the collection's foreign member
	// "attribution" (RFC 7946 §6.1), for GIS to keep beside the features.
	Attribution []string
}

// Write writes c to w as a FeatureCollection, one feature per line: each with its id, its
// geometry (always a MultiPolygon, of one part or several; null for none) in
// longitude and latitude at Decimals, and its properties, numbers as the CSV export writes them and
// null for a missing value. Rings are written closed, outer rings counter-clockwise and holes
// clockwise (RFC 7946 §3.1.6), whatever the order of the shapes; a ring that rounding leaves
// with fewer than four positions or no area is left out, with its holes when it is an outer ring.
func Write(w io.Writer, c Collection) error {
	rows, err := hensachi.Rows(c.Columns)
	if err != nil {
		return fmt.Errorf("geojson: %w", err)
	}
	ids := -1
	for k, col := range c.Columns {
		if col.Name == c.ID && col.Strings != nil {
			ids = k
		}
	}
	if ids < 0 {
		return fmt.Errorf("geojson: no column of strings named %q for the ids", c.ID)
	}
	bw := bufio.NewWriter(w)
	b := make([]byte, 0, 64<<10)
	b = append(b, `{"type":"FeatureCollection","attribution":`...)
	b = appendJSON(b, c.Attribution)
	b = append(b, `,"features":[`...)
	names := make([][]byte, len(c.Columns))
	for k, col := range c.Columns {
		names[k] = append(appendJSON(nil, col.Name), ':')
	}
	var ring []geo.Point // the ring being written, rounded: reused from ring to ring
	for r := range rows {
		if r > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n"+`{"type":"Feature","id":`...)
		b = appendJSON(b, c.Columns[ids].Strings[r])
		b = append(b, `,"geometry":`...)
		b, ring = appendGeometry(b, c.Shape(r), ring)
		b = append(b, `,"properties":{`...)
		for k, col := range c.Columns {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, names[k]...)
			if b, err = appendValue(b, col, r); err != nil {
				return fmt.Errorf("geojson: row %d: %w", r, err)
			}
		}
		b = append(b, "}}"...)
		if _, err := bw.Write(b); err != nil {
			return fmt.Errorf("geojson: %w", err)
		}
		b = b[:0]
	}
	bw.WriteString("\n]}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("geojson: %w", err)
	}
	return nil
}

// appendGeometry appends a shape's geometry: a MultiPolygon, or null for none left after rounding.
// One type for every feature, even of one part, because a GIS layer has one geometry type: a file
// of Polygons and MultiPolygons is converted (ogr2ogr to a Shapefile or GeoPackage, QGIS) only
// when the user knows to promote the Polygons. ring is scratch space, returned for the next call.
func appendGeometry(b []byte, s geo.Shape, ring []geo.Point) ([]byte, []geo.Point) {
	var parts [][]byte // each polygon's rings, written
	for _, p := range s {
		var part []byte
		for k, r := range p {
			ring = rounded(ring[:0], r)
			if len(ring) < 4 {
				if k == 0 {
					break // no outer ring: no polygon
				}
				continue
			}
			area := SignedArea(ring)
			if area == 0 {
				if k == 0 {
					break
				}
				continue
			}
			// positive is counter-clockwise: the outer ring's turn; a hole turns the other way
			reverse := (area > 0) != (k == 0)
			if part == nil {
				part = append(part, '[')
			} else {
				part = append(part, ',')
			}
			part = appendRing(part, ring, reverse)
		}
		if part != nil {
			parts = append(parts, append(part, ']'))
		}
	}
	if len(parts) == 0 {
		return append(b, "null"...), ring
	}
	b = append(b, `{"type":"MultiPolygon","coordinates":[`...)
	for k, p := range parts {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, p...)
	}
	return append(b, "]}"...), ring
}

// rounded appends a ring's points rounded to Decimals to dst, without the repeats rounding makes
// of neighbours, and closed.
func rounded(dst []geo.Point, r geo.Ring) []geo.Point {
	for _, p := range r {
		q := geo.Point{round(p[0]), round(p[1])}
		if len(dst) > 0 && dst[len(dst)-1] == q {
			continue
		}
		dst = append(dst, q)
	}
	if len(dst) > 0 && dst[0] != dst[len(dst)-1] {
		dst = append(dst, dst[0])
	}
	return dst
}

var scale = math.Pow10(Decimals)

func round(v float64) float64 { return math.Round(v*scale) / scale }

// SignedArea is a closed ring's area in square degrees by the shoelace formula, positive when it
// turns counter-clockwise with longitude to the east and latitude to the north, as RFC 7946 asks of
// an outer ring. Planar degrees are enough to tell the turn of a municipality's ring.
func SignedArea(r []geo.Point) float64 {
	var a float64
	for k := 1; k < len(r); k++ {
		a += r[k-1][0]*r[k][1] - r[k][0]*r[k-1][1]
	}
	return a / 2
}

// appendRing appends a ring's positions, in reverse when asked.
func appendRing(b []byte, r []geo.Point, reverse bool) []byte {
	b = append(b, '[')
	for k := range r {
		p := r[k]
		if reverse {
			p = r[len(r)-1-k]
		}
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendFloat(b, p[0], 'f', -1, 64)
		b = append(b, ',')
		b = strconv.AppendFloat(b, p[1], 'f', -1, 64)
		b = append(b, ']')
	}
	return append(b, ']')
}

// appendValue appends value r of a column as a JSON value: a string, a number in decimal as the
// CSV export writes it (never an exponent), or null.
func appendValue(b []byte, col hensachi.Column, r int) ([]byte, error) {
	switch {
	case col.Strings != nil:
		return appendJSON(b, col.Strings[r]), nil
	case col.Ints != nil:
		if v := col.Ints[r]; v.Valid {
			return strconv.AppendInt(b, v.V, 10), nil
		}
	default:
		if v := col.Floats[r]; v.Valid {
			if math.IsNaN(v.V) || math.IsInf(v.V, 0) {
				return nil, fmt.Errorf("column %s: %v is no JSON number", col.Name, v.V)
			}
			return strconv.AppendFloat(b, v.V, 'f', -1, 64), nil
		}
	}
	return append(b, "null"...), nil
}

// appendJSON appends a string or a list of strings in JSON.
func appendJSON(b []byte, v any) []byte {
	j, err := json.Marshal(v)
	if err != nil {
		panic(err) // strings always marshal
	}
	return append(b, j...)
}
