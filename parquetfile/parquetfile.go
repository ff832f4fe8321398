// Package parquetfile writes a table of typed, nullable columns (hensachi.Column) as an Apache
// Parquet file with arrow-go's pqarrow: the statistics API's bulk export (package export) in a
// form that data tools read with their types (integers, doubles, strings and nulls) intact.
package parquetfile

import (
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/hensachi/hensachi"
)

// Write writes the columns to w as one Parquet file with one row group, compressed with Snappy,
// which every Parquet reader decodes without extra codecs.
func Write(w io.Writer, cols []hensachi.Column) error {
	fields := make([]arrow.Field, len(cols))
	arrays := make([]arrow.Array, 0, len(cols))
	defer func() {
		for _, a := range arrays {
			a.Release()
		}
	}()
	rows, err := hensachi.Rows(cols)
	if err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	for i, c := range cols {
		var a arrow.Array
		switch {
		case c.Strings != nil:
			b := array.NewStringBuilder(memory.DefaultAllocator)
			b.AppendValues(c.Strings, nil)
			a = b.NewArray()
			b.Release()
		case c.Ints != nil:
			a = optionalArray(array.NewInt64Builder(memory.DefaultAllocator), c.Ints)
		default:
			a = optionalArray(array.NewFloat64Builder(memory.DefaultAllocator), c.Floats)
		}
		arrays = append(arrays, a)
		fields[i] = arrow.Field{Name: c.Name, Type: a.DataType(), Nullable: c.Strings == nil}
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrays, int64(rows))
	defer rec.Release()
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy))
	fw, err := pqarrow.NewFileWriter(rec.Schema(), w, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	if err := fw.Write(rec); err != nil {
		fw.Close()
		return fmt.Errorf("parquet: %w", err)
	}
	if err := fw.Close(); err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	return nil
}

// optionalArray builds an array of optional values, a null where one is not Valid.
func optionalArray[T int64 | float64, B interface {
	array.Builder
	Append(T)
}](b B, values []hensachi.Optional[T]) arrow.Array {
	defer b.Release()
	for _, v := range values {
		if v.Valid {
			b.Append(v.V)
		} else {
			b.AppendNull()
		}
	}
	return b.NewArray()
}
