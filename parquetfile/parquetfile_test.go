package parquetfile_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/parquetfile"
)

// TestRoundTrip writes a column of each kind, nulls among the numbers, and reads the file back with
// arrow-go: the types, nullability, values and nulls come back as written.
func TestRoundTrip(t *testing.T) {
	cols := []hensachi.Column{
		{Name: "code", Strings: []string{"01100", "13101", "47201"}},
		{Name: "rank", Ints: []hensachi.Optional[int64]{hensachi.Some(int64(3)), {}, hensachi.Some(int64(-1))}},
		{Name: "value", Floats: []hensachi.Optional[float64]{{}, hensachi.Some(12.58), hensachi.Some(0.0)}},
	}
	var b bytes.Buffer
	if err := parquetfile.Write(&b, cols); err != nil {
		t.Fatal(err)
	}
	tbl, err := pqarrow.ReadTable(context.Background(), bytes.NewReader(b.Bytes()), nil, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	schema := tbl.Schema()
	for k, want := range []struct {
		name     string
		typ      arrow.Type
		nullable bool
	}{{"code", arrow.STRING, false}, {"rank", arrow.INT64, true}, {"value", arrow.FLOAT64, true}} {
		if f := schema.Field(k); f.Name != want.name || f.Type.ID() != want.typ || f.Nullable != want.nullable {
			t.Errorf("field %d: %s %s nullable %v, want %+v", k, f.Name, f.Type, f.Nullable, want)
		}
	}
	codes := tbl.Column(0).Data().Chunk(0).(*array.String)
	ranks := tbl.Column(1).Data().Chunk(0).(*array.Int64)
	values := tbl.Column(2).Data().Chunk(0).(*array.Float64)
	if codes.Value(2) != "47201" || ranks.Value(0) != 3 || !ranks.IsNull(1) || ranks.Value(2) != -1 ||
		!values.IsNull(0) || values.Value(1) != 12.58 || values.IsNull(2) || values.Value(2) != 0 {
		t.Errorf("values: %v %v %v", codes, ranks, values)
	}
}

func TestColumnsOfUnequalLength(t *testing.T) {
	err := parquetfile.Write(&bytes.Buffer{}, []hensachi.Column{
		{Name: "a", Strings: []string{"x", "y"}},
		{Name: "b", Ints: []hensachi.Optional[int64]{hensachi.Some(int64(1))}},
	})
	if err == nil {
		t.Error("columns of 2 and 1 values written")
	}
}
