package parquetfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// Magic starts and ends every Parquet file.
const Magic = "PAR1"

// Groups is the layout of a Parquet file written a row group a part (Writer): where each row
// group's bytes lie, and the footer that describes them. A file of some of the groups is those
// bytes copied after Magic and a footer of its own (Subset), with nothing decoded or encoded again:
// the indicators' long table answers a choice of indicators at the speed of a file that way.
type Groups struct {
	meta *metadata.FileMetaData
	// Spans are the row groups' bytes in the file, in order.
	Spans []Span
}

// Span is a range of bytes of a file.
type Span struct{ Off, N int64 }

// ReadGroups reads the layout of the Parquet file of size bytes in r. Row groups with bytes
// elsewhere than in their column chunks (page indexes, bloom filters), which Writer does not
// write, are refused: their offsets would point at bytes a subset does not carry.
func ReadGroups(r io.ReaderAt, size int64) (*Groups, error) {
	tail := make([]byte, 8)
	if size < 12 {
		return nil, errors.New("parquet: file too short")
	}
	if _, err := r.ReadAt(tail, size-8); err != nil {
		return nil, fmt.Errorf("parquet: reading the footer: %w", err)
	}
	n := int64(binary.LittleEndian.Uint32(tail))
	if string(tail[4:]) != Magic || n > size-12 {
		return nil, errors.New("parquet: no footer")
	}
	footer := make([]byte, n)
	if _, err := r.ReadAt(footer, size-8-n); err != nil {
		return nil, fmt.Errorf("parquet: reading the footer: %w", err)
	}
	meta, err := metadata.NewFileMetaData(footer, nil)
	if err != nil {
		return nil, fmt.Errorf("parquet: %w", err)
	}
	g := &Groups{meta: meta, Spans: make([]Span, len(meta.RowGroups))}
	for i, rg := range meta.RowGroups {
		start, end := int64(-1), int64(0)
		for _, cc := range rg.Columns {
			m := cc.MetaData
			if m == nil || cc.OffsetIndexOffset != nil || cc.ColumnIndexOffset != nil || m.BloomFilterOffset != nil || m.IndexPageOffset != nil {
				return nil, fmt.Errorf("parquet: row group %d has bytes outside its column chunks", i)
			}
			off := m.DataPageOffset
			if m.DictionaryPageOffset != nil && *m.DictionaryPageOffset < off {
				off = *m.DictionaryPageOffset
			}
			if start < 0 || off < start {
				start = off
			}
			end = max(end, off+m.TotalCompressedSize)
		}
		g.Spans[i] = Span{start, end - start}
	}
	return g, nil
}

// Subset returns the end of a file of the row groups picked, in that order: the file is Magic,
// then each picked group's bytes (Spans), then the returned tail (its footer, the footer's length
// and Magic).
func (g *Groups) Subset(picked []int) ([]byte, error) {
	sub, err := g.meta.Subset(picked)
	if err != nil {
		return nil, err
	}
	// the subset shares its row groups with g: a copy through the footer's encoding is moved
	var b bytes.Buffer
	if _, err := sub.WriteTo(&b, nil); err != nil {
		return nil, fmt.Errorf("parquet: %w", err)
	}
	if sub, err = metadata.NewFileMetaData(b.Bytes(), nil); err != nil {
		return nil, fmt.Errorf("parquet: %w", err)
	}
	at := int64(len(Magic))
	for k, rg := range sub.RowGroups {
		span := g.Spans[picked[k]]
		shift := at - span.Off
		for _, cc := range rg.Columns {
			if cc.FileOffset > 0 { // deprecated, and left at 0 by some writers
				cc.FileOffset += shift
			}
			cc.MetaData.DataPageOffset += shift
			if p := cc.MetaData.DictionaryPageOffset; p != nil {
				*p += shift
			}
		}
		if rg.FileOffset != nil {
			*rg.FileOffset += shift
		}
		if rg.Ordinal != nil {
			*rg.Ordinal = int16(k)
		}
		at += span.N
	}
	b.Reset()
	if _, err := sub.WriteTo(&b, nil); err != nil {
		return nil, fmt.Errorf("parquet: %w", err)
	}
	b.Write(binary.LittleEndian.AppendUint32(nil, uint32(b.Len())))
	b.WriteString(Magic)
	return b.Bytes(), nil
}
