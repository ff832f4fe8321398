package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hensachi/hensachi"
)

// The dataset is one Arrow IPC file holding one record batch, one row per municipality in
// ascending code order. Its columns:
//
//	code, name, kana, pref_code, pref_name      utf8 (kana: the name's reading in hiragana)
//	<axis>_value, <axis>_hensachi               float64, null where the axis has no value
//	<axis>_rank                                 int32, national competition rank
//	stat_<key>                                  float64, null where the statistic has no value
//	furusato_receipts_yen, _count               int64
//	furusato_receipts_rank                      int32
//	furusato_deductions_yen, _donors            int64 (donors: null until a source has them)
//	furusato_balance_yen                        int64
//	furusato_balance_rank                       int32
//	furusato_history                            list<struct<fiscal_year: utf8, amount_thousand_yen: int64>>
//	indicator_<key>_<year>                      float64 per indicator and survey year (indicators.go)
//	boundary_coarse, boundary_fine              binary, the boundaries (boundaries.go)
//
// The schema metadata holds "hensachi.meta", the JSON meta document (hensachi.Meta) — its
// peer_groups are the only record of each municipality's 類似団体 (Municipality.PeerGroup),
// "hensachi.indicators", the indicator catalogue and "hensachi.items", the names of the items its
// formulas take (indicators.go), "hensachi.boundaries", the
// boundaries' grids and checksum (boundaries.go), "hensachi.schema", the layout
// version below, and "hensachi.checksum", the content checksum that Open verifies (validate.go).
// The dataset version is the SHA-256 of the file.
const (
	SchemaVersion = "7"
	metaKey       = "hensachi.meta"
	schemaKey     = "hensachi.schema"
)

// AxisColumns names the three columns of an axis.
func AxisColumns(key string) (value, hensachi, rank string) {
	return key + "_value", key + "_hensachi", key + "_rank"
}

// StatColumn names the column of a statistic.
func StatColumn(key string) string { return "stat_" + key }

const (
	colCode            = "code"
	colName            = "name"
	colKana            = "kana"
	colPrefCode        = "pref_code"
	colPrefName        = "pref_name"
	colReceiptsYen     = "furusato_receipts_yen"
	colReceiptsCount   = "furusato_receipts_count"
	colReceiptsRank    = "furusato_receipts_rank"
	colDeductionsYen   = "furusato_deductions_yen"
	colDeductionDonors = "furusato_deductions_donors"
	colBalanceYen      = "furusato_balance_yen"
	colBalanceRank     = "furusato_balance_rank"
	colHistory         = "furusato_history"
)

var historyEntry = arrow.StructOf(
	arrow.Field{Name: "fiscal_year", Type: arrow.BinaryTypes.String},
	arrow.Field{Name: "amount_thousand_yen", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
)

// schemaFields are the columns of a dataset with the catalogue's indicators.
func schemaFields(cat hensachi.IndicatorCatalogue) []arrow.Field {
	return slices.Concat(municipalityFields(), indicatorFields(cat), boundaryFields())
}

func municipalityFields() []arrow.Field {
	str := func(n string) arrow.Field { return arrow.Field{Name: n, Type: arrow.BinaryTypes.String} }
	f64 := func(n string) arrow.Field {
		return arrow.Field{Name: n, Type: arrow.PrimitiveTypes.Float64, Nullable: true}
	}
	i64 := func(n string) arrow.Field {
		return arrow.Field{Name: n, Type: arrow.PrimitiveTypes.Int64, Nullable: true}
	}
	i32 := func(n string) arrow.Field {
		return arrow.Field{Name: n, Type: arrow.PrimitiveTypes.Int32, Nullable: true}
	}
	fields := []arrow.Field{str(colCode), str(colName), str(colKana), str(colPrefCode), str(colPrefName)}
	for _, a := range hensachi.Axes {
		v, h, r := AxisColumns(a.Key)
		fields = append(fields, f64(v), f64(h), i32(r))
	}
	for _, s := range hensachi.Stats {
		fields = append(fields, f64(StatColumn(s.Key)))
	}
	return append(fields,
		i64(colReceiptsYen), i64(colReceiptsCount), i32(colReceiptsRank),
		i64(colDeductionsYen), i64(colDeductionDonors),
		i64(colBalanceYen), i32(colBalanceRank),
		arrow.Field{Name: colHistory, Type: arrow.ListOf(historyEntry)},
	)
}

// Write writes the dataset atomically: a temporary file in the same directory is written,
// synced and renamed over path, so a reader sees either the old file or the whole new one. It
// returns the dataset version. Without WithIndicators, its indicator catalogue is empty.
func Write(path string, ms []hensachi.Municipality, meta hensachi.Meta, opts ...Option) (string, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	cat, values := o.indicators, o.indicatorValues
	metaJSON, err := json.Marshal(meta)
	if err != nil {
		return "", fmt.Errorf("encode meta: %w", err)
	}
	catJSON, err := json.Marshal(cat)
	if err != nil {
		return "", fmt.Errorf("encode indicator catalogue: %w", err)
	}
	itemsJSON, err := json.Marshal(o.itemNames)
	if err != nil {
		return "", fmt.Errorf("encode item names: %w", err)
	}
	if err := checkIndicatorValues(cat, values, len(ms)); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	rec, boundaries, err := buildRecord(arrow.NewSchema(schemaFields(cat), nil), ms, meta.Furusato.History.FiscalYears, &o)
	if err != nil {
		return "", err
	}
	defer rec.Release()
	// what Open will refuse is refused here, before the file is replaced
	written := &Dataset{Meta: meta, rec: rec}
	if err := written.bindColumns(string(catJSON)); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	for i := range ms {
		if ms[i].PeerGroup != written.peerGroup[i] {
			return "", fmt.Errorf("write %s: %s is in peer group %q, the meta's latest groups have it in %q", path, ms[i].Code, ms[i].PeerGroup, written.peerGroup[i])
		}
	}
	md := arrow.NewMetadata([]string{metaKey, indicatorsKey, itemsKey, boundariesKey, schemaKey, checksumKey},
		[]string{string(metaJSON), string(catJSON), string(itemsJSON), boundaries, SchemaVersion, contentChecksum(string(metaJSON), string(catJSON), string(itemsJSON), rec)})
	schema := arrow.NewSchema(schemaFields(cat), &md)
	rec = array.NewRecordBatch(schema, rec.Columns(), rec.NumRows())
	defer rec.Release()

	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing left to remove
	h := sha256.New()
	w, err := ipc.NewFileWriter(io.MultiWriter(tmp, h), ipc.WithSchema(schema))
	if err != nil {
		tmp.Close()
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if err := w.Write(rec); err != nil {
		tmp.Close()
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if err := w.Close(); err != nil {
		tmp.Close()
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return "", fmt.Errorf("sync %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", err
	}
	if d, err := os.Open(dir); err == nil { // make the rename itself durable
		d.Sync()
		d.Close()
	}
	return versionOf(h.Sum(nil)), nil
}

// versionOf shortens a SHA-256 to the dataset version: 16 hex digits are plenty to tell versions apart.
func versionOf(sum []byte) string { return hex.EncodeToString(sum)[:16] }

// buildRecord fills the record of ms and what o adds; it returns the boundaries' header too.
func buildRecord(schema *arrow.Schema, ms []hensachi.Municipality, historyYears []string, o *options) (arrow.RecordBatch, string, error) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	col := 0
	next := func() array.Builder { col++; return b.Field(col - 1) }
	str := func(get func(m *hensachi.Municipality) string) {
		fb := next().(*array.StringBuilder)
		for i := range ms {
			fb.Append(get(&ms[i]))
		}
	}
	f64 := func(get func(m *hensachi.Municipality) hensachi.Optional[float64]) {
		fb := next().(*array.Float64Builder)
		for i := range ms {
			if v := get(&ms[i]); v.Valid {
				fb.Append(v.V)
			} else {
				fb.AppendNull()
			}
		}
	}
	i64 := func(get func(m *hensachi.Municipality) hensachi.Optional[int64]) {
		fb := next().(*array.Int64Builder)
		for i := range ms {
			if v := get(&ms[i]); v.Valid {
				fb.Append(v.V)
			} else {
				fb.AppendNull()
			}
		}
	}
	// rank columns are valid exactly where the ranked value is
	i32 := func(get func(m *hensachi.Municipality) (int, bool)) {
		fb := next().(*array.Int32Builder)
		for i := range ms {
			if r, ok := get(&ms[i]); ok {
				fb.Append(int32(r))
			} else {
				fb.AppendNull()
			}
		}
	}
	str(func(m *hensachi.Municipality) string { return m.Code })
	str(func(m *hensachi.Municipality) string { return m.Name })
	str(func(m *hensachi.Municipality) string { return m.Kana })
	str(func(m *hensachi.Municipality) string { return m.Prefecture.Code })
	str(func(m *hensachi.Municipality) string { return m.Prefecture.Name })
	for a := range hensachi.Axes {
		f64(func(m *hensachi.Municipality) hensachi.Optional[float64] { return m.Scores[a].Value })
		f64(func(m *hensachi.Municipality) hensachi.Optional[float64] {
			s := m.Scores[a]
			return hensachi.Optional[float64]{V: s.Hensachi, Valid: s.Value.Valid}
		})
		i32(func(m *hensachi.Municipality) (int, bool) { return m.Scores[a].Rank, m.Scores[a].Value.Valid })
	}
	for s := range hensachi.Stats {
		f64(func(m *hensachi.Municipality) hensachi.Optional[float64] { return m.Stats[s] })
	}
	i64(func(m *hensachi.Municipality) hensachi.Optional[int64] { return m.Furusato.ReceiptsYen })
	i64(func(m *hensachi.Municipality) hensachi.Optional[int64] { return m.Furusato.ReceiptsCount })
	i32(func(m *hensachi.Municipality) (int, bool) {
		return m.Furusato.ReceiptsRank, m.Furusato.ReceiptsYen.Valid
	})
	i64(func(m *hensachi.Municipality) hensachi.Optional[int64] { return m.Furusato.DeductionsYen })
	i64(func(m *hensachi.Municipality) hensachi.Optional[int64] { return m.Furusato.DeductionDonors })
	i64(func(m *hensachi.Municipality) hensachi.Optional[int64] { return m.Furusato.BalanceYen })
	i32(func(m *hensachi.Municipality) (int, bool) { return m.Furusato.BalanceRank, m.Furusato.BalanceYen.Valid })

	lb := next().(*array.ListBuilder)
	sb := lb.ValueBuilder().(*array.StructBuilder)
	years := sb.FieldBuilder(0).(*array.StringBuilder)
	amounts := sb.FieldBuilder(1).(*array.Int64Builder)
	for i := range ms {
		h := ms[i].Furusato.HistoryThousandYen
		if len(h) != len(historyYears) {
			return nil, "", fmt.Errorf("municipality %s has %d history entries for %d fiscal years", ms[i].Code, len(h), len(historyYears))
		}
		lb.Append(true)
		for j, v := range h {
			sb.Append(true)
			years.Append(historyYears[j])
			if v.Valid {
				amounts.Append(v.V)
			} else {
				amounts.AppendNull()
			}
		}
	}
	appendIndicators(next, o.indicatorValues)
	boundaries, err := appendBoundaries(next, o, len(ms))
	if err != nil {
		return nil, "", err
	}
	if col != len(schema.Fields()) {
		return nil, "", fmt.Errorf("dataset writer filled %d of %d columns", col, len(schema.Fields()))
	}
	return b.NewRecordBatch(), boundaries, nil
}
