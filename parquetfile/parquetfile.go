// Package parquetfile writes a table of typed, nullable columns (hensachi.Column) as an Apache
// Parquet file: the statistics API's bulk export (package export) in a form that data tools read
// with their types (integers, doubles, strings and nulls) intact.
//
// It writes with arrow-go's low-level parquet/file writer rather than pqarrow: pqarrow imports
// arrow/flight, which would link gRPC and protobuf into the server for a table of three kinds of
// column.
package parquetfile

import (
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/hensachi/hensachi"
)

// Write writes the columns to w as one Parquet file with one row group, compressed with Snappy,
// which every Parquet reader decodes without extra codecs. Strings are required UTF-8 columns,
// integers and floats optional INT64 (signed) and DOUBLE columns.
func Write(w io.Writer, cols []hensachi.Column) error {
	tw := NewWriter(w)
	if err := tw.Write(cols); err != nil {
		return err
	}
	return tw.Close()
}

// Writer writes a table that comes in parts, one row group each, as Write writes one: a table
// too long to hold as columns at once, such as the indicators' long table, is written a part at a
// time. The first part gives the schema.
type Writer struct {
	w  io.Writer
	fw *file.Writer // nil until the first part
}

// NewWriter starts a file on w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes the next part as a row group; every part has the first one's columns.
func (w *Writer) Write(cols []hensachi.Column) error {
	if _, err := hensachi.Rows(cols); err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	if w.fw == nil {
		root, err := tableSchema(cols)
		if err != nil {
			return fmt.Errorf("parquet: %w", err)
		}
		props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy))
		if w.fw, err = file.NewParquetWriterWithError(w.w, root, file.WithWriterProps(props)); err != nil {
			return fmt.Errorf("parquet: %w", err)
		}
	}
	if n := w.fw.Schema.NumColumns(); n != len(cols) {
		return fmt.Errorf("parquet: a part of %d columns, not %d", len(cols), n)
	}
	if err := writeRowGroup(w.fw, cols); err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	return nil
}

// Close writes the file's footer; a file of no part is an error, as it has no schema.
func (w *Writer) Close() error {
	if w.fw == nil {
		return errors.New("parquet: no columns written")
	}
	if err := w.fw.Close(); err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	return nil
}

// tableSchema declares one leaf per column.
func tableSchema(cols []hensachi.Column) (*schema.GroupNode, error) {
	fields := make(schema.FieldList, len(cols))
	for i, c := range cols {
		var err error
		switch {
		case c.Strings != nil:
			fields[i], err = schema.NewPrimitiveNodeLogical(c.Name, parquet.Repetitions.Required, schema.StringLogicalType{}, parquet.Types.ByteArray, -1, -1)
		case c.Ints != nil:
			fields[i], err = schema.NewPrimitiveNodeLogical(c.Name, parquet.Repetitions.Optional, schema.NewIntLogicalType(64, true), parquet.Types.Int64, -1, -1)
		default:
			fields[i], err = schema.NewPrimitiveNode(c.Name, parquet.Repetitions.Optional, parquet.Types.Double, -1, -1)
		}
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", c.Name, err)
		}
	}
	return schema.NewGroupNode("schema", parquet.Repetitions.Required, fields, -1)
}

// writeRowGroup writes every column into one row group, in the schema's order.
func writeRowGroup(fw *file.Writer, cols []hensachi.Column) error {
	rg, err := fw.AppendRowGroupChecked()
	if err != nil {
		return err
	}
	for _, c := range cols {
		cw, err := rg.NextColumn()
		if err != nil {
			return fmt.Errorf("column %s: %w", c.Name, err)
		}
		switch cw := cw.(type) {
		case *file.ByteArrayColumnChunkWriter:
			values := make([]parquet.ByteArray, len(c.Strings))
			for i, s := range c.Strings {
				values[i] = parquet.ByteArray(s)
			}
			_, err = cw.WriteBatch(values, nil, nil)
		case *file.Int64ColumnChunkWriter:
			values, defined := present(c.Ints)
			_, err = cw.WriteBatch(values, defined, nil)
		case *file.Float64ColumnChunkWriter:
			values, defined := present(c.Floats)
			_, err = cw.WriteBatch(values, defined, nil)
		default:
			err = fmt.Errorf("unexpected column writer %T", cw)
		}
		if err == nil {
			err = cw.Close()
		}
		if err != nil {
			return fmt.Errorf("column %s: %w", c.Name, err)
		}
	}
	return rg.Close()
}

// present splits optional values into what an optional Parquet column stores: the values that
// exist, and a definition level per row (1 where the value exists, 0 for a null).
func present[T int64 | float64](values []hensachi.Optional[T]) ([]T, []int16) {
	out := make([]T, 0, len(values))
	defined := make([]int16, len(values))
	for i, v := range values {
		if v.Valid {
			out = append(out, v.V)
			defined[i] = 1
		}
	}
	return out, defined
}
