package ingest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/geo"
	"github.com/hensachi/hensachi/topojson"
	"github.com/peterstace/simplefeatures/geom"
)

// The boundary files: MLIT's administrative areas (国土数値情報 行政区域データ N03, 2021-01-01),
// simplified to 0.1 % and 1 % of their points and converted to TopoJSON by SmartNews Media
// Research Institute (smartnews-smri/japan-topography), with the wards of each designated city
// merged into the city, as this product counts municipalities. The coarse file draws the national
// map, the fine one a prefecture's.
const (
	BoundaryCoarseFile = "municipalities-s0001.topojson"
	BoundaryFineFile   = "municipalities-s0010.topojson"
	// BoundaryCredit is the credit MLIT's terms ask of every map or file that shows its data.
	BoundaryCredit = "出典：国土交通省国土数値情報（行政区域データ）を加工して作成"
)

// boundaryFiles are the files read, with the hashes of the editions this code was checked with.
var boundaryFiles = []struct {
	name, sha256, url, detail string
}{
	{BoundaryCoarseFile, "7b195eb4b566dc778e140a0ce2946ee74f787c9ccbf4ced323d88cddf6b6a1ff",
		"https://raw.githubusercontent.com/smartnews-smri/japan-topography/b403e71eb97f1fdf32f63d16bd485129f703855e/data/municipality/topojson/s0001/N03-21_210101_designated_city.json",
		"点を0.1 %に簡略化（全国の地図）"},
	{BoundaryFineFile, "5dc58fbe979c68c4af59b17255c62df580a93c434b354f867971537dceab3d33",
		"https://raw.githubusercontent.com/smartnews-smri/japan-topography/b403e71eb97f1fdf32f63d16bd485129f703855e/data/municipality/topojson/s0010/N03-21_210101_designated_city.json",
		"点を1 %に簡略化（都道府県の地図）"},
}

// The files' collection and properties (N03's field names).
const (
	boundaryObject   = "N03-21_210101"
	propCode         = "N03_007"
	propTown         = "N03_004"
	undeterminedArea = "所属未定地" // an area no municipality's, without a code
)

// ErrBoundaries marks boundary files that cannot give every municipality its boundary.
var ErrBoundaries = errors.New("boundaries unusable")

// Boundaries are the municipalities' boundaries for the dataset and their description for the meta
// document.
type Boundaries struct {
	geo.Boundaries
	Meta hensachi.BoundaryMeta
	// HashMismatches lists the files that differ from the editions this code was checked with;
	// they were read all the same.
	HashMismatches []HashMismatch
}

// BoundaryMeta is the meta document's description of the boundary files, without the files read.
func BoundaryMeta() hensachi.BoundaryMeta {
	return hensachi.BoundaryMeta{
		Source: hensachi.Link{Name: "国土交通省 国土数値情報「行政区域データ」（2021年1月1日）、SmartNews Media Research Institute による簡略化（japan-topography）",
			URL: "https://nlftp.mlit.go.jp/ksj/gml/datalist/KsjTmplt-N03-v3_0.html"},
		Credit: BoundaryCredit,
	}
}

// ReadBoundaries reads the two boundary files in dir and gives each of codes (the dataset's
// municipalities, in its row order) its boundary at both levels of detail. Every code must have a
// boundary in the fine file, and no other code may have one except the Northern Territories';
// a municipality the coarse file lost or left without area (small islands and towns) is drawn
// there from the fine file, moved onto the coarse grid, and named in the meta's note. Every shape is
// cleaned of the repeated positions and spikes that simplification leaves (geo.QShape.Clean) and
// must then be a valid MultiPolygon (valid), so that every GIS reads the export as it is. A file
// that is missing, damaged (an invalid shape among others) or does not cover the codes is an error
// wrapping ErrBoundaries or the file's own error: the caller writes the dataset without
// boundaries, and only the maps are off.
func ReadBoundaries(dir string, codes []string) (*Boundaries, error) {
	b := &Boundaries{Meta: BoundaryMeta()}
	var layers [2]geo.Layer
	for i, f := range boundaryFiles {
		path := filepath.Join(dir, f.name)
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("boundary file: %w (copy it from %s)", err, f.url)
		}
		sum := sha256.Sum256(data)
		got := hex.EncodeToString(sum[:])
		if got != f.sha256 {
			b.HashMismatches = append(b.HashMismatches, HashMismatch{Path: path, Want: f.sha256, Got: got})
		}
		b.Meta.Files = append(b.Meta.Files, hensachi.BoundaryFile{Name: f.name, SHA256: got, Detail: f.detail})
		topo, err := topojson.Decode(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("boundary file %s: %w", path, err)
		}
		if layers[i], err = layer(topo, codes); err != nil {
			return nil, fmt.Errorf("boundary file %s: %w", path, err)
		}
	}
	b.Coarse, b.Fine = layers[0], layers[1]
	var filled []string
	for i, s := range b.Coarse.Shapes {
		if s.Empty() {
			if b.Fine.Shapes[i].Empty() {
				return nil, fmt.Errorf("%w: municipality %s has no boundary in %s", ErrBoundaries, codes[i], BoundaryFineFile)
			}
			b.Coarse.Shapes[i] = b.Coarse.Transform.Regrid(b.Fine.Shapes[i], b.Fine.Transform)
			filled = append(filled, codes[i])
		}
	}
	for k, l := range []geo.Layer{b.Coarse, b.Fine} {
		for i, s := range l.Shapes {
			if err := valid(s); err != nil {
				return nil, fmt.Errorf("%w: municipality %s in %s: %v", ErrBoundaries, codes[i], boundaryFiles[k].name, err)
			}
		}
	}
	b.Meta.Note = "政令指定都市は区を合わせて市ひとつの境界とする。"
	if len(filled) > 0 {
		b.Meta.Note += "全国の地図では、簡略化で消えたか線になった" + fmt.Sprint(len(filled)) + "市町村（" + strings.Join(filled, "、") + "）を1 %のファイルから描く。"
	}
	return b, nil
}

// layer gives each code its shape in a topology: nil where the file has a null geometry for it.
// A code of the dataset missing from the file, a code twice, or a code the dataset does not know
// (other than the Northern Territories') is an error.
func layer(topo *topojson.Topology, codes []string) (geo.Layer, error) {
	coll, ok := topo.Objects[boundaryObject]
	if !ok {
		return geo.Layer{}, fmt.Errorf("%w: no object %s", ErrBoundaries, boundaryObject)
	}
	rows := make(map[string]int, len(codes))
	for i, c := range codes {
		rows[c] = i
	}
	l := geo.Layer{Transform: topo.Transform, Shapes: make([]geo.QShape, len(codes))}
	seen := make([]bool, len(codes))
	for i := range coll.Geometries {
		g := &coll.Geometries[i]
		code := g.Property(propCode)
		row, known := rows[code]
		switch {
		case code == "" && g.Property(propTown) == undeterminedArea:
			continue
		case code == "":
			return l, fmt.Errorf("%w: geometry %d has no code", ErrBoundaries, i)
		case !known && slices.Contains(northernTerritories, code):
			continue
		case !known:
			return l, fmt.Errorf("%w: geometry %d has code %s, which is no municipality of the dataset", ErrBoundaries, i, code)
		case seen[row]:
			return l, fmt.Errorf("%w: geometry %d repeats code %s", ErrBoundaries, i, code)
		}
		seen[row] = true
		l.Shapes[row] = topo.Shape(g).Clean()
	}
	if i := slices.Index(seen, false); i >= 0 {
		return l, fmt.Errorf("%w: %d municipalities have no geometry, the first %s", ErrBoundaries, countFalse(seen), codes[i])
	}
	return l, nil
}

// valid checks a shape as OGC's simple features define a valid MultiPolygon (ST_IsValid in GDAL,
// PostGIS and DuckDB): rings simple and closed, holes inside their outer ring, parts meeting at
// most at points. The positions are the grid's integers, exact as floats, so the test is exact.
// Clean has removed what simplification leaves (repeats, spikes); anything else is a damaged file,
// which GIS would refuse or "repair" into another type.
func valid(s geo.QShape) error {
	polys := make([]geom.Polygon, len(s))
	for i, p := range s {
		rings := make([]geom.LineString, len(p))
		for j, r := range p {
			xy := make([]float64, 0, 2*len(r))
			for _, q := range r {
				xy = append(xy, float64(q[0]), float64(q[1]))
			}
			rings[j] = geom.NewLineString(geom.NewSequence(xy, geom.DimXY))
		}
		polys[i] = geom.NewPolygon(rings)
	}
	return geom.NewMultiPolygon(polys).Validate()
}

func countFalse(bs []bool) int {
	n := 0
	for _, b := range bs {
		if !b {
			n++
		}
	}
	return n
}

// AddBoundaries reads the boundary files in dir for the result's municipalities (ReadBoundaries)
// and describes them in the meta document. Files that cannot be used leave Boundaries nil and say
// why in the meta (Unavailable): the dataset is built all the same, without maps.
func (r *Result) AddBoundaries(dir string, log *slog.Logger) {
	codes := make([]string, len(r.Municipalities))
	for i, m := range r.Municipalities {
		codes[i] = m.Code
	}
	b, err := ReadBoundaries(dir, codes)
	if err != nil {
		log.Warn("no boundaries: the maps are off", "err", err)
		meta := BoundaryMeta()
		meta.Unavailable = err.Error()
		r.Meta.Boundaries, r.Boundaries = &meta, nil
		return
	}
	for _, m := range b.HashMismatches {
		log.Warn("boundary file differs from the edition checked", "file", m.Path, "sha256", m.Got, "expected", m.Want)
	}
	r.HashMismatches = append(r.HashMismatches, b.HashMismatches...)
	log.Info("read boundaries", "municipalities", len(codes), "note", b.Meta.Note)
	r.Meta.Boundaries, r.Boundaries = &b.Meta, &b.Boundaries
}
