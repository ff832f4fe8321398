package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// checksumKey holds the content checksum in the schema metadata: SHA-256 over the meta JSON, the
// indicator catalogue's JSON, every row as Open decodes it and every indicator value. Write computes it from the record it is about to write and Open
// from the mapped file, so a file whose bytes changed anywhere that matters to a reader is refused.
const checksumKey = "hensachi.checksum"

// contentChecksum hashes the meta document, the indicator catalogue, the decoded rows of d and
// its indicator values.
func contentChecksum(metaJSON, catJSON string, d *Dataset) string {
	h := sha256.New()
	io.WriteString(h, metaJSON)
	io.WriteString(h, "\n"+catJSON)
	for i := range d.Len() {
		fmt.Fprintf(h, "\n%v", d.Municipality(i))
	}
	d.hashIndicators(h)
	return hex.EncodeToString(h.Sum(nil))
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
