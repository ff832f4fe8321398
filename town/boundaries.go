package town

import (
	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/dataset"
	"github.com/hensachi/hensachi/geo"
)

// Boundaries are a dataset version's municipality boundaries, row by row as the catalog's
// municipalities (Row), for the maps and the boundary export. Meta is the description the meta
// document carries: the source, the files' hashes, the credit every map and file must show.
type Boundaries struct {
	geo.Boundaries
	Meta hensachi.BoundaryMeta
}

// Boundaries returns the municipalities' boundaries, or an EUnavailable error saying why the maps
// are off (a dataset built without boundary files, or damaged boundary columns).
func (c *Catalog) Boundaries() (*Boundaries, error) {
	if c.boundaries == nil {
		reason := "この版のデータには市区町村の境界がありません"
		if b := c.Meta.Boundaries; b != nil && b.Unavailable != "" {
			reason += "（" + b.Unavailable + "）"
		}
		return nil, hensachi.Errorf(hensachi.EUnavailable, "地図は利用できません: %s", reason)
	}
	return c.boundaries, nil
}

// WithBoundaries gives the catalog its boundaries, which must have a shape per municipality at
// both levels; meta describes them.
func (c *Catalog) WithBoundaries(b geo.Boundaries, meta hensachi.BoundaryMeta) *Catalog {
	if len(b.Coarse.Shapes) != len(c.towns) || len(b.Fine.Shapes) != len(c.towns) {
		panic("town: boundaries do not fit the catalog")
	}
	c.boundaries = &Boundaries{Boundaries: b, Meta: meta}
	c.Meta.Boundaries = &c.boundaries.Meta
	return c
}

// withDatasetBoundaries reads the dataset's boundaries; without them, the meta says why, for the
// meta document and the health check, and the rest of the catalog is served as ever.
func (c *Catalog) withDatasetBoundaries(ds *dataset.Dataset) *Catalog {
	var meta hensachi.BoundaryMeta
	if ds.Meta.Boundaries != nil {
		meta = *ds.Meta.Boundaries
	}
	b, err := ds.Boundaries()
	if err != nil {
		meta.Unavailable = err.Error()
		c.Meta.Boundaries = &meta
		return c
	}
	return c.WithBoundaries(b, meta)
}
