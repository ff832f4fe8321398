package dataset

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hensachi/hensachi/geo"
)

// The boundaries are two nullable binary columns after all others, one shape per row at each level
// of detail (geo.Boundaries): boundary_coarse for the national map, boundary_fine for a
// prefecture's. A shape is kept on its file's grid, as varints: the number of polygons, then per
// polygon the number of rings, per ring the number of positions and the positions themselves, each
// as the zigzag difference from the one before (the first from 0,0). The grids' transforms, a
// checksum of both columns, or why the dataset has no boundaries, are the JSON of boundaryHeader
// under the schema metadata key boundariesKey.
//
// The boundaries stand apart from the rest of the file: the content checksum and the checks Open
// makes leave them out, and Boundaries checks them on its own, so that a damaged boundary column
// turns the maps off and nothing else.
const (
	boundariesKey  = "hensachi.boundaries"
	colCoarseShape = "boundary_coarse"
	colFineShape   = "boundary_fine"
)

// ErrNoBoundaries marks a dataset without usable boundaries; its message says why.
var ErrNoBoundaries = errors.New("no municipality boundaries")

type boundaryHeader struct {
	Coarse      geo.Transform `json:"coarse"`
	Fine        geo.Transform `json:"fine"`
	Checksum    string        `json:"checksum,omitempty"`
	Unavailable string        `json:"unavailable,omitempty"`
}

// WithBoundaries writes the municipalities' boundaries, which must have a shape per municipality at
// each level; when b is nil, unavailable says why there are none, which Boundaries returns.
func WithBoundaries(b *geo.Boundaries, unavailable string) Option {
	return func(o *options) { o.boundaries, o.noBoundaries = b, unavailable }
}

func boundaryFields() []arrow.Field {
	return []arrow.Field{
		{Name: colCoarseShape, Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: colFineShape, Type: arrow.BinaryTypes.Binary, Nullable: true},
	}
}

// isBoundaryColumn tells the boundary columns apart from those Open checks.
func isBoundaryColumn(name string) bool { return name == colCoarseShape || name == colFineShape }

// appendBoundaries fills the two boundary columns and returns the header: nulls and why without
// boundaries.
func appendBoundaries(next func() array.Builder, o *options, rows int) (string, error) {
	coarse, fine := next().(*array.BinaryBuilder), next().(*array.BinaryBuilder)
	h := boundaryHeader{Unavailable: o.noBoundaries}
	if o.boundaries == nil {
		if h.Unavailable == "" {
			h.Unavailable = "the dataset was built without boundary files"
		}
		for range rows {
			coarse.AppendNull()
			fine.AppendNull()
		}
		return marshalHeader(h)
	}
	b := o.boundaries
	if len(b.Coarse.Shapes) != rows || len(b.Fine.Shapes) != rows {
		return "", fmt.Errorf("boundaries for %d and %d municipalities, the dataset has %d", len(b.Coarse.Shapes), len(b.Fine.Shapes), rows)
	}
	h = boundaryHeader{Coarse: b.Coarse.Transform, Fine: b.Fine.Transform}
	sum := sha256.New()
	for _, l := range []struct {
		b      *array.BinaryBuilder
		shapes []geo.QShape
	}{{coarse, b.Coarse.Shapes}, {fine, b.Fine.Shapes}} {
		for _, s := range l.shapes {
			enc := encodeShape(s)
			hashShape(sum, enc)
			l.b.Append(enc)
		}
	}
	h.Checksum = hex.EncodeToString(sum.Sum(nil))
	return marshalHeader(h)
}

func marshalHeader(h boundaryHeader) (string, error) {
	b, err := json.Marshal(h)
	if err != nil {
		return "", fmt.Errorf("encode boundary header: %w", err)
	}
	return string(b), nil
}

func hashShape(h hash.Hash, enc []byte) {
	h.Write(binary.AppendUvarint(nil, uint64(len(enc))))
	h.Write(enc)
}

// Boundaries reads and checks the municipalities' boundaries, row by row as the municipalities.
// An error (ErrNoBoundaries) says why there are none: a dataset built without them, or a damaged
// column.
func (d *Dataset) Boundaries() (b geo.Boundaries, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: damaged boundary column: %v", ErrNoBoundaries, p)
		}
	}()
	var h boundaryHeader
	if err := json.Unmarshal([]byte(d.boundaryHeader), &h); err != nil {
		return b, fmt.Errorf("%w: boundary header: %v", ErrNoBoundaries, err)
	}
	if h.Unavailable != "" {
		return b, fmt.Errorf("%w: %s", ErrNoBoundaries, h.Unavailable)
	}
	var bindErr error
	cols := []*array.Binary{bind[*array.Binary](d.rec, colCoarseShape, &bindErr), bind[*array.Binary](d.rec, colFineShape, &bindErr)}
	if bindErr != nil {
		return b, fmt.Errorf("%w: %v", ErrNoBoundaries, bindErr)
	}
	layers := []*geo.Layer{&b.Coarse, &b.Fine}
	layers[0].Transform, layers[1].Transform = h.Coarse, h.Fine
	sum := sha256.New()
	for k, col := range cols {
		if err := validateArray(col); err != nil {
			return b, fmt.Errorf("%w: column %s: %v", ErrNoBoundaries, col.DataType(), err)
		}
		if col.Len() != d.Len() || col.NullN() > 0 {
			return b, fmt.Errorf("%w: a boundary column has %d rows and %d nulls for %d municipalities", ErrNoBoundaries, col.Len(), col.NullN(), d.Len())
		}
		layers[k].Shapes = make([]geo.QShape, d.Len())
		for i := range d.Len() {
			enc := col.Value(i)
			hashShape(sum, enc)
			s, err := decodeShape(enc)
			if err != nil {
				return b, fmt.Errorf("%w: the boundary of %s: %v", ErrNoBoundaries, d.Code(i), err)
			}
			layers[k].Shapes[i] = s
		}
	}
	if got := hex.EncodeToString(sum.Sum(nil)); got != h.Checksum {
		return geo.Boundaries{}, fmt.Errorf("%w: boundary checksum %.16s… does not match the one written, %.16s…; the boundary columns are damaged", ErrNoBoundaries, got, h.Checksum)
	}
	return b, nil
}

// encodeShape writes a shape as described above.
func encodeShape(s geo.QShape) []byte {
	var buf []byte
	var last geo.QPoint
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	for _, poly := range s {
		buf = binary.AppendUvarint(buf, uint64(len(poly)))
		for _, ring := range poly {
			buf = binary.AppendUvarint(buf, uint64(len(ring)))
			for _, p := range ring {
				buf = binary.AppendVarint(buf, int64(p[0])-int64(last[0]))
				buf = binary.AppendVarint(buf, int64(p[1])-int64(last[1]))
				last = p
			}
		}
	}
	return buf
}

// decodeShape reads what encodeShape wrote, refusing counts the bytes left cannot hold.
func decodeShape(buf []byte) (geo.QShape, error) {
	count := func(each int) (int, error) {
		n, k := binary.Uvarint(buf)
		if k <= 0 || n > uint64(len(buf)-k)/uint64(each) {
			return 0, fmt.Errorf("bad count at %d bytes from the end", len(buf))
		}
		buf = buf[k:]
		return int(n), nil
	}
	coord := func(prev int32) (int32, error) {
		d, k := binary.Varint(buf)
		v := int64(prev) + d
		if k <= 0 || v != int64(int32(v)) {
			return 0, fmt.Errorf("bad position at %d bytes from the end", len(buf))
		}
		buf = buf[k:]
		return int32(v), nil
	}
	var last geo.QPoint
	np, err := count(1)
	if err != nil {
		return nil, err
	}
	s := make(geo.QShape, np)
	for i := range s {
		nr, err := count(1)
		if err != nil {
			return nil, err
		}
		s[i] = make(geo.QPolygon, nr)
		for j := range s[i] {
			n, err := count(2)
			if err != nil {
				return nil, err
			}
			ring := make(geo.QRing, n)
			for k := range ring {
				if last[0], err = coord(last[0]); err != nil {
					return nil, err
				}
				if last[1], err = coord(last[1]); err != nil {
					return nil, err
				}
				ring[k] = last
			}
			s[i][j] = ring
		}
	}
	if len(buf) != 0 {
		return nil, fmt.Errorf("%d bytes after the shape", len(buf))
	}
	return s, nil
}
