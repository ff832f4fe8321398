package mxnet

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

// record is one NDArray as MXNet 1.x writes it; the fields other than name, shape and data let a
// test write what the parser must reject.
type record struct {
	name  string
	shape []int64
	data  []float32
	magic uint32
	stype int32
	dtype int32
}

func writeParams(records ...record) []byte {
	var b []byte
	u64 := func(v uint64) { b = binary.LittleEndian.AppendUint64(b, v) }
	u32 := func(v uint32) { b = binary.LittleEndian.AppendUint32(b, v) }
	u64(listMagic)
	u64(0)
	u64(uint64(len(records)))
	for _, r := range records {
		if r.magic == 0 {
			r.magic = v2Magic
		}
		u32(r.magic)
		u32(uint32(r.stype))
		u32(uint32(len(r.shape)))
		for _, d := range r.shape {
			u64(uint64(d))
		}
		if len(r.shape) == 0 {
			continue
		}
		u32(1) // CPU
		u32(0)
		u32(uint32(r.dtype))
		for _, v := range r.data {
			u32(math.Float32bits(v))
		}
	}
	u64(uint64(len(records)))
	for _, r := range records {
		u64(uint64(len(r.name)))
		b = append(b, r.name...)
	}
	return b
}

func TestParseParams(t *testing.T) {
	b := writeParams(
		record{name: "arg:conv_weight", shape: []int64{2, 1, 1, 3}, data: []float32{1, -2, 3.5, 0, 1e-7, -0.25}},
		record{name: "aux:bn_moving_var", shape: []int64{2}, data: []float32{1, 2}},
		record{name: "arg:none"},
	)
	p, err := ParseParams(b)
	if err != nil {
		t.Fatal(err)
	}
	want := Params{
		"arg:conv_weight":   {Shape: []int64{2, 1, 1, 3}, Data: []float32{1, -2, 3.5, 0, 1e-7, -0.25}},
		"aux:bn_moving_var": {Shape: []int64{2}, Data: []float32{1, 2}},
		"arg:none":          {Shape: []int64{}},
	}
	if !reflect.DeepEqual(p, want) {
		t.Fatalf("got %v, want %v", p, want)
	}
}

func TestParseParamsRejects(t *testing.T) {
	ok := record{name: "arg:w", shape: []int64{2}, data: []float32{1, 2}}
	good := writeParams(ok)
	with := func(f func(*record)) []byte {
		r := ok
		f(&r)
		return writeParams(r)
	}
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"list magic", append([]byte{0x13}, good[1:]...), "not an NDArray list file"},
		{"v1 record", with(func(r *record) { r.magic = v1Magic }), "only the V2 format"},
		{"legacy record", with(func(r *record) { r.magic = 1 }), "legacy or unknown format"},
		{"sparse", with(func(r *record) { r.stype = 1 }), "storage type 1"},
		{"float16", with(func(r *record) { r.dtype = 2 }), "dtype float16 (flag 2): only float32"},
		{"truncated data", good[:60], "truncated: 8 bytes wanted, 4 left"}, // header 24, record head 32, data 8
		{"huge shape", with(func(r *record) { r.shape = []int64{1 << 40} }), "larger than the file"},
		{"trailing bytes", append(good, 0), "1 bytes after the last name"},
		{"duplicate name", writeParams(ok, ok), `name "arg:w" appears twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseParams(tc.b)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestParseParamsShared(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testenv.Shared(t, "models/src/insightface-genderage-2018"), "model-0000.params"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParseParams(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(p) != 146 {
		t.Errorf("%d arrays, want 146", len(p))
	}
	for name, shape := range map[string][]int64{
		"arg:conv_1_conv2d_weight":         {8, 3, 3, 3},
		"arg:pre_fc1_weight":               {202, 256},
		"aux:fc1_moving_var":               {202},
		"arg:relu1_gamma":                  {256},
		"aux:conv_1_batchnorm_moving_mean": {8},
	} {
		if a := p[name]; a == nil || !reflect.DeepEqual(a.Shape, shape) {
			t.Errorf("%s: got %v, want shape %v", name, a, shape)
		}
	}
}

func FuzzParseParams(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	f.Add(writeParams(record{name: "arg:w", shape: []int64{2, 2}, data: []float32{1, 2, 3, 4}}, record{name: "aux:x"}))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParseParams(b)
		if err != nil {
			return
		}
		for name, a := range p {
			n := int64(1)
			for _, d := range a.Shape {
				n *= d
			}
			if len(a.Shape) > 0 && int64(len(a.Data)) != n {
				t.Fatalf("%s: shape %v with %d values", name, a.Shape, len(a.Data))
			}
		}
	})
}
