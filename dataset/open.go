package dataset

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/hensachi/hensachi"
)

// Dataset is a dataset file mapped into memory. Its column buffers point into the mapping, so it
// must not be used after Close.
type Dataset struct {
	Meta hensachi.Meta
	// Indicators is the indicator catalogue; IndicatorValue reads its values.
	Indicators hensachi.IndicatorCatalogue
	// ItemNames name the items the catalogue's formulas take, keyed as a formula writes them (A4101:
	// 出生数); empty for a file written before they were.
	ItemNames map[string]string
	Version   string

	data []byte
	rec  arrow.RecordBatch
	// boundaryHeader is the boundaries' header, read when Boundaries is called
	boundaryHeader string

	code, name, kana               *array.String
	prefCode, prefName             *array.String
	axisValue, axisHensachi        []*array.Float64
	axisRank                       []*array.Int32
	stat                           []*array.Float64
	receiptsYen, receiptsCount     *array.Int64
	deductionsYen, deductionDonors *array.Int64
	balanceYen                     *array.Int64
	receiptsRank, balanceRank      *array.Int32
	history                        *array.List
	historyAmounts                 *array.Int64
	indicatorValues                [][]*array.Float64 // by indicator, then survey year
	// rows gives the row of each code, the codes copied out of the mapping: the server looks a
	// code up on every call, and a map costs a fraction of a binary search over the column
	rows map[string]int
	// peerGroup[i] is the code of row i's 類似団体 by the latest census of Meta.PeerGroups, which
	// the file holds once, as the groups' members
	peerGroup []string
}

// ErrDataset marks a file that is not a dataset of this layout.
var ErrDataset = errors.New("not a hensachi dataset")

// Open maps the dataset file read-only and checks it fully: layout, every offset and length, and
// the content checksum written with it. The mapping is shared with the file: a server must not
// map a file someone may overwrite in place (see Holder).
func Open(path string) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return openFile(f, path)
}

// openFile maps f; path names it in errors.
func openFile(f *os.File, path string) (*Dataset, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() == 0 {
		return nil, fmt.Errorf("open dataset %s: %w: empty file", path, ErrDataset)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map dataset %s: %w", path, err)
	}
	d, err := newDataset(data)
	if err != nil {
		syscall.Munmap(data)
		return nil, fmt.Errorf("open dataset %s: %w", path, err)
	}
	return d, nil
}

// newDataset reads and fully checks a mapped file. The Arrow reader trusts the offsets and lengths
// it finds, so a damaged file can make it panic before any check runs; that panic is the file's
// fault and is returned as an error.
func newDataset(data []byte) (d *Dataset, err error) {
	defer func() {
		if p := recover(); p != nil {
			d, err = nil, fmt.Errorf("%w: damaged file: %v", ErrDataset, p)
		}
	}()
	r, err := ipc.NewMappedFileReader(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDataset, err)
	}
	defer r.Close()
	md := r.Schema().Metadata()
	if v, _ := md.GetValue(schemaKey); v != SchemaVersion {
		return nil, fmt.Errorf("%w: layout version %q, this build reads %q", ErrDataset, v, SchemaVersion)
	}
	if r.NumRecords() != 1 {
		return nil, fmt.Errorf("%w: %d record batches, expected 1", ErrDataset, r.NumRecords())
	}
	rec, err := r.RecordBatch(0)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDataset, err)
	}
	rec.Retain()
	d = &Dataset{data: data, rec: rec}
	defer func() {
		if err != nil {
			rec.Release()
		}
	}()
	metaJSON, _ := md.GetValue(metaKey)
	if err := json.Unmarshal([]byte(metaJSON), &d.Meta); err != nil {
		return nil, fmt.Errorf("%w: meta: %v", ErrDataset, err)
	}
	if err := validateColumns(rec); err != nil {
		return nil, err
	}
	catJSON, ok := md.GetValue(indicatorsKey)
	if !ok {
		return nil, fmt.Errorf("%w: no indicator catalogue", ErrDataset)
	}
	if err := d.bindColumns(catJSON); err != nil {
		return nil, err
	}
	header, _ := md.GetValue(boundariesKey)
	d.boundaryHeader = strings.Clone(header)
	itemsJSON, _ := md.GetValue(itemsKey)
	if itemsJSON != "" {
		if err := json.Unmarshal([]byte(itemsJSON), &d.ItemNames); err != nil {
			return nil, fmt.Errorf("%w: item names: %v", ErrDataset, err)
		}
	}
	want, _ := md.GetValue(checksumKey)
	if got := contentChecksum(metaJSON, catJSON, itemsJSON, rec); got != want {
		return nil, fmt.Errorf("%w: content checksum %.16s… does not match the one written, %.16s…; the file is damaged", ErrDataset, got, want)
	}
	sum := sha256.Sum256(data)
	d.Version = versionOf(sum[:])
	return d, nil
}

// bindColumns finds every column by name and checks its type, the indicators' by the catalogue
// in catJSON.
func (d *Dataset) bindColumns(catJSON string) error {
	var err error
	r := d.rec
	d.code, d.name = bind[*array.String](r, colCode, &err), bind[*array.String](r, colName, &err)
	d.kana = bind[*array.String](r, colKana, &err)
	d.prefCode, d.prefName = bind[*array.String](r, colPrefCode, &err), bind[*array.String](r, colPrefName, &err)
	for _, a := range hensachi.Axes {
		v, h, rank := AxisColumns(a.Key)
		d.axisValue = append(d.axisValue, bind[*array.Float64](r, v, &err))
		d.axisHensachi = append(d.axisHensachi, bind[*array.Float64](r, h, &err))
		d.axisRank = append(d.axisRank, bind[*array.Int32](r, rank, &err))
	}
	for _, s := range hensachi.Stats {
		d.stat = append(d.stat, bind[*array.Float64](r, StatColumn(s.Key), &err))
	}
	d.receiptsYen, d.receiptsCount = bind[*array.Int64](r, colReceiptsYen, &err), bind[*array.Int64](r, colReceiptsCount, &err)
	d.receiptsRank = bind[*array.Int32](r, colReceiptsRank, &err)
	d.deductionsYen, d.deductionDonors = bind[*array.Int64](r, colDeductionsYen, &err), bind[*array.Int64](r, colDeductionDonors, &err)
	d.balanceYen, d.balanceRank = bind[*array.Int64](r, colBalanceYen, &err), bind[*array.Int32](r, colBalanceRank, &err)
	if d.history = bind[*array.List](r, colHistory, &err); d.history != nil {
		st, ok := d.history.ListValues().(*array.Struct)
		if ok && st.NumField() == 2 {
			d.historyAmounts, ok = st.Field(1).(*array.Int64)
		}
		if !ok {
			err = errors.Join(err, fmt.Errorf("%w: column %s is not a list of (fiscal_year, amount_thousand_yen)", ErrDataset, colHistory))
		}
	}
	if err != nil {
		return err
	}
	if err := d.bindIndicators(catJSON); err != nil {
		return err
	}
	if len(d.Meta.Axes) != len(hensachi.Axes) || len(d.Meta.Stats) != len(hensachi.Stats) {
		return fmt.Errorf("%w: meta describes %d axes and %d statistics", ErrDataset, len(d.Meta.Axes), len(d.Meta.Stats))
	}
	d.rows = make(map[string]int, d.Len())
	for i := range d.Len() {
		if i > 0 && d.code.Value(i-1) >= d.code.Value(i) {
			return fmt.Errorf("%w: codes not in ascending order at row %d", ErrDataset, i)
		}
		d.rows[strings.Clone(d.code.Value(i))] = i
	}
	return d.bindPeerGroups()
}

// bindPeerGroups checks the meta's 類似団体 — census years latest first, members municipalities of
// the file in code order, none in two groups of a year — and reads each row's group by the latest
// census.
func (d *Dataset) bindPeerGroups() error {
	d.peerGroup = make([]string, d.Len())
	groups := d.Meta.PeerGroups
	seen := map[int]map[string]string{} // census year → member → group
	for k, g := range groups {
		if k > 0 && g.CensusYear > groups[k-1].CensusYear {
			return fmt.Errorf("%w: meta: peer groups of %d after %d", ErrDataset, g.CensusYear, groups[k-1].CensusYear)
		}
		if seen[g.CensusYear] == nil {
			seen[g.CensusYear] = map[string]string{}
		}
		for j, code := range g.Members {
			i := d.Index(code)
			if i < 0 || j > 0 && g.Members[j-1] >= code {
				return fmt.Errorf("%w: meta: peer group %s of %d: member %q unknown or out of code order", ErrDataset, g.Code, g.CensusYear, code)
			}
			if other, dup := seen[g.CensusYear][code]; dup {
				return fmt.Errorf("%w: meta: %s is in peer groups %s and %s of %d", ErrDataset, code, other, g.Code, g.CensusYear)
			}
			seen[g.CensusYear][code] = g.Code
			if g.CensusYear == groups[0].CensusYear {
				d.peerGroup[i] = g.Code
			}
		}
	}
	return nil
}

// Close releases the record and unmaps the file.
func (d *Dataset) Close() error {
	d.rec.Release()
	return syscall.Munmap(d.data)
}

// Len returns the number of municipalities.
func (d *Dataset) Len() int { return int(d.rec.NumRows()) }

// Index returns the row of a municipality code, or -1.
func (d *Dataset) Index(code string) int {
	if i, ok := d.rows[code]; ok {
		return i
	}
	return -1
}

// Code returns the code of row i, without decoding the rest of the row.
func (d *Dataset) Code(i int) string { return d.code.Value(i) }

// Municipality decodes row i.
func (d *Dataset) Municipality(i int) hensachi.Municipality {
	m := hensachi.Municipality{
		Code: d.code.Value(i), Name: d.name.Value(i), Kana: d.kana.Value(i),
		Prefecture: hensachi.Prefecture{Code: d.prefCode.Value(i), Name: d.prefName.Value(i)},
		Scores:     make([]hensachi.Score, len(hensachi.Axes)),
		Stats:      make([]hensachi.Optional[float64], len(hensachi.Stats)),
		PeerGroup:  d.peerGroup[i],
	}
	for a := range hensachi.Axes {
		m.Scores[a] = d.Score(a, i)
	}
	for s := range hensachi.Stats {
		m.Stats[s] = opt[float64](d.stat[s], i)
	}
	f := &m.Furusato
	f.ReceiptsYen, f.ReceiptsCount = opt[int64](d.receiptsYen, i), opt[int64](d.receiptsCount, i)
	f.ReceiptsRank = int(d.receiptsRank.Value(i))
	f.DeductionsYen, f.DeductionDonors = opt[int64](d.deductionsYen, i), opt[int64](d.deductionDonors, i)
	f.BalanceYen, f.BalanceRank = opt[int64](d.balanceYen, i), int(d.balanceRank.Value(i))
	start, end := d.history.ValueOffsets(i)
	for j := start; j < end; j++ {
		f.HistoryThousandYen = append(f.HistoryThousandYen, opt[int64](d.historyAmounts, int(j)))
	}
	return m
}

// Score returns row i's standing on axis a without decoding the rest of the row.
func (d *Dataset) Score(a, i int) hensachi.Score {
	return hensachi.Score{
		Value:    opt[float64](d.axisValue[a], i),
		Hensachi: d.axisHensachi[a].Value(i),
		Rank:     int(d.axisRank[a].Value(i)),
	}
}

// bind returns the column of a record with the given name and array type, adding a problem to
// *errs when it is missing or of another type.
func bind[T arrow.Array](r arrow.RecordBatch, name string, errs *error) T {
	var col T
	idx := r.Schema().FieldIndices(name)
	if len(idx) != 1 {
		*errs = errors.Join(*errs, fmt.Errorf("%w: column %s missing", ErrDataset, name))
		return col
	}
	col, ok := r.Column(idx[0]).(T)
	if !ok {
		*errs = errors.Join(*errs, fmt.Errorf("%w: column %s has type %s", ErrDataset, name, r.Column(idx[0]).DataType()))
	}
	return col
}

// nullable is an Arrow array of T with a validity bitmap.
type nullable[T int64 | float64] interface {
	IsNull(i int) bool
	Value(i int) T
}

func opt[T int64 | float64](a nullable[T], i int) hensachi.Optional[T] {
	if a.IsNull(i) {
		return hensachi.Optional[T]{}
	}
	return hensachi.Some(a.Value(i))
}
