package dataset

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// checksumKey holds the content checksum in the schema metadata: SHA-256 over the meta JSON, the
// indicator catalogue's JSON, the item names' JSON where the file has them, and every column but
// the boundaries', each as a reader decodes it.
// Write computes it from the record it is about to write and Open from the mapped file, so a file
// whose bytes changed anywhere that matters to a reader is refused.
const checksumKey = "hensachi.checksum"

// contentChecksum hashes the meta document, the indicator catalogue, the item names (itemsJSON; ""
// for a file written before they were, whose checksum did not take them) and every column of rec
// but the boundaries' (hashColumn), in order and by name. Columns are hashed from their buffers, not
// value by value (strings and list lengths, a few thousand, are): Open computes it on every start
// and swap, over some 2,700 columns.
func contentChecksum(metaJSON, catJSON, itemsJSON string, rec arrow.RecordBatch) string {
	h := sha256.New()
	io.WriteString(h, metaJSON)
	io.WriteString(h, "\n"+catJSON)
	if itemsJSON != "" {
		io.WriteString(h, "\n"+itemsJSON)
	}
	for i, col := range rec.Columns() {
		if name := rec.ColumnName(i); !isBoundaryColumn(name) {
			io.WriteString(h, "\n"+name)
			hashColumn(h, col)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// hashColumn writes a's values to h as a reader sees them: its length, which values are null (the
// bits of its range only) and its values, lists and structs through their children. The bytes of
// a null value's slot count too: the writer leaves them zero, so a file changed there is refused.
func hashColumn(h io.Writer, a arrow.Array) {
	var head [9]byte
	binary.LittleEndian.PutUint64(head[:], uint64(a.Len()))
	if a.NullN() > 0 {
		head[8] = 1
	}
	h.Write(head[:])
	if a.NullN() > 0 {
		bits := make([]byte, bitutil.BytesForBits(int64(a.Len())))
		bitutil.CopyBitmap(a.NullBitmapBytes(), a.Data().Offset(), a.Len(), bits, 0)
		h.Write(bits)
	}
	switch v := a.(type) {
	case *array.Float64:
		h.Write(arrow.Float64Traits.CastToBytes(v.Float64Values()))
	case *array.Int64:
		h.Write(arrow.Int64Traits.CastToBytes(v.Int64Values()))
	case *array.Int32:
		h.Write(arrow.Int32Traits.CastToBytes(v.Int32Values()))
	case *array.String:
		for i := range v.Len() {
			binary.LittleEndian.PutUint64(head[:8], uint64(v.ValueLen(i)))
			h.Write(head[:8])
			io.WriteString(h, v.Value(i))
		}
	case *array.List:
		for i := range v.Len() {
			start, end := v.ValueOffsets(i)
			binary.LittleEndian.PutUint64(head[:8], uint64(end-start))
			h.Write(head[:8])
		}
		if v.Len() > 0 {
			start, _ := v.ValueOffsets(0)
			_, end := v.ValueOffsets(v.Len() - 1)
			values := array.NewSlice(v.ListValues(), start, end)
			hashColumn(h, values)
			values.Release()
		}
	case *array.Struct:
		for i := range v.NumField() {
			hashColumn(h, v.Field(i))
		}
	default:
		io.WriteString(h, a.DataType().String()) // a column no reader reads
	}
}

// validateColumns checks every column's buffers, offsets and lengths, nested ones included,
// before any value is read: a damaged file must be refused, not crash the reader. The boundary
// columns are Boundaries' to check.
func validateColumns(rec arrow.RecordBatch) error {
	for i, col := range rec.Columns() {
		if isBoundaryColumn(rec.ColumnName(i)) {
			continue
		}
		if col.Len() != int(rec.NumRows()) {
			return fmt.Errorf("%w: column %s has %d rows, the batch %d", ErrDataset, rec.ColumnName(i), col.Len(), rec.NumRows())
		}
		if err := validateArray(col); err != nil {
			return fmt.Errorf("%w: column %s: %v", ErrDataset, rec.ColumnName(i), err)
		}
	}
	return nil
}

func validateArray(a arrow.Array) error {
	d := a.Data()
	need := int64(d.Offset() + d.Len())
	bufs := d.Buffers()
	if len(bufs) > 0 && bufs[0] != nil && int64(bufs[0].Len())*8 < need {
		return fmt.Errorf("validity bitmap of %d bytes for %d values", bufs[0].Len(), need)
	}
	if fw, ok := a.DataType().(arrow.FixedWidthDataType); ok && fw.BitWidth() >= 8 && need > 0 {
		if len(bufs) < 2 || bufs[1] == nil || int64(bufs[1].Len()) < need*int64(fw.BitWidth()/8) {
			return fmt.Errorf("values buffer too short for %d values", need)
		}
	}
	switch v := a.(type) {
	case interface{ ValidateFull() error }:
		if err := v.ValidateFull(); err != nil {
			return err
		}
	}
	switch v := a.(type) {
	case *array.List:
		return validateArray(v.ListValues())
	case *array.Struct:
		for i := range v.NumField() {
			if v.Field(i).Len() < v.Len() {
				return fmt.Errorf("struct field %d has %d values for %d", i, v.Field(i).Len(), v.Len())
			}
			if err := validateArray(v.Field(i)); err != nil {
				return err
			}
		}
	}
	return nil
}
