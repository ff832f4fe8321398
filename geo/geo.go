// Package geo holds the municipalities' boundaries: read from the boundary file (TopoJSON), kept
// per dataset version, drawn on maps and written for GIS.
package geo

// Point is a longitude and a latitude in degrees (JGD2011, which GIS may read as WGS 84).
type Point [2]float64

// Ring is a closed ring: its last point equals its first.
type Ring []Point

// Polygon is an outer ring followed by its holes.
type Polygon []Ring

// Shape is one municipality's territory: one polygon per island or exclave.
type Shape []Polygon
