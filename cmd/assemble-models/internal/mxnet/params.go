// Package mxnet converts an MXNet checkpoint (symbol JSON + .params file) into an ONNX model at
// build time. There is no MXNet for this platform to export with, and the InsightFace gender-age
// model exists only as an MXNet checkpoint, so the project reads the format itself. Only the
// operators the project's checkpoints use are supported; anything else is rejected by name.
package mxnet

import (
	"encoding/binary"
	"fmt"
	"math"
)

// The magic numbers of MXNet's NDArray list file (dmlc stream) and of one NDArray record.
const (
	listMagic = 0x112
	v1Magic   = 0xF993fac8
	v2Magic   = 0xF993fac9
	v3Magic   = 0xF993faca
)

// Bounds that keep a corrupt file from asking for absurd allocations before it runs out of bytes.
const (
	maxDims   = 32
	maxArrays = 1 << 20
)

// NDArray is a dense float32 array in row-major order.
type NDArray struct {
	Shape []int64
	Data  []float32
}

// Params is the content of a .params file keyed by the stored name, e.g. "arg:fc1_weight" for a
// learned parameter or "aux:bn1_moving_mean" for an auxiliary state.
type Params map[string]*NDArray

// mxnet's mshadow type flags, for naming the ones that are rejected.
var dtypeNames = map[int32]string{0: "float32", 1: "float64", 2: "float16", 3: "uint8", 4: "int32", 5: "int8", 6: "int64", 7: "bool", 12: "bfloat16"}

// ParseParams reads an MXNet NDArray list file as written by mx.nd.save / Module.save_checkpoint
// (NDArray V2 records: MXNet 1.x). Only dense float32 arrays are accepted.
func ParseParams(b []byte) (Params, error) {
	r := &reader{b: b}
	if m := r.u64(); r.err == nil && m != listMagic {
		return nil, fmt.Errorf("mxnet params: magic %#x, want %#x: not an NDArray list file", m, listMagic)
	}
	r.u64() // reserved
	n := r.u64()
	if r.err == nil && n > maxArrays {
		return nil, fmt.Errorf("mxnet params: %d arrays claimed: corrupt file", n)
	}
	arrays := make([]*NDArray, 0, min(n, 1024))
	for i := uint64(0); i < n && r.err == nil; i++ {
		a, err := r.ndarray()
		if err != nil {
			return nil, fmt.Errorf("mxnet params: array %d: %w", i, err)
		}
		arrays = append(arrays, a)
	}
	names := r.u64()
	if r.err == nil && names != n {
		return nil, fmt.Errorf("mxnet params: %d names for %d arrays", names, n)
	}
	p := make(Params, n)
	for i := uint64(0); i < names && r.err == nil; i++ {
		name := r.str()
		if _, dup := p[name]; dup {
			return nil, fmt.Errorf("mxnet params: name %q appears twice", name)
		}
		p[name] = arrays[i]
	}
	if r.err != nil {
		return nil, fmt.Errorf("mxnet params: %w", r.err)
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("mxnet params: %d bytes after the last name", len(r.b))
	}
	return p, nil
}

func (r *reader) ndarray() (*NDArray, error) {
	switch m := r.u32(); {
	case r.err != nil:
		return nil, r.err
	case m == v1Magic || m == v3Magic:
		return nil, fmt.Errorf("NDArray record magic %#x: only the V2 format (%#x, MXNet 1.x) is supported", m, v2Magic)
	case m != v2Magic:
		return nil, fmt.Errorf("NDArray record magic %#x: legacy or unknown format (want V2, %#x)", m, uint32(v2Magic))
	}
	if stype := r.i32(); r.err == nil && stype != 0 {
		// Sparse arrays (row_sparse 1, csr 2) add a storage shape and aux arrays: never in a checkpoint of a dense net.
		return nil, fmt.Errorf("storage type %d: only dense arrays (0) are supported", stype)
	}
	ndim := r.u32()
	if r.err == nil && ndim > maxDims {
		return nil, fmt.Errorf("%d dimensions: corrupt record", ndim)
	}
	shape := make([]int64, ndim)
	size := int64(1)
	for i := range shape {
		shape[i] = int64(r.u64())
		// Both factors stay below the file length, so the product cannot overflow.
		if r.err == nil && (shape[i] < 0 || shape[i] > int64(len(r.b)) || size*shape[i] > int64(len(r.b))) {
			return nil, fmt.Errorf("shape %v: larger than the file", shape[:i+1])
		}
		size *= shape[i]
	}
	if r.err != nil {
		return nil, r.err
	}
	if ndim == 0 {
		// MXNet writes nothing more for an empty ("none") array.
		return &NDArray{Shape: shape}, nil
	}
	r.i32() // device type: where the array lived when saved; it is loaded onto the CPU regardless
	r.i32() // device id
	if dtype := r.i32(); r.err == nil && dtype != 0 {
		name, ok := dtypeNames[dtype]
		if !ok {
			name = "unknown"
		}
		return nil, fmt.Errorf("dtype %s (flag %d): only float32 is supported", name, dtype)
	}
	raw := r.bytes(4 * size)
	if r.err != nil {
		return nil, r.err
	}
	data := make([]float32, size)
	for i := range data {
		data[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return &NDArray{Shape: shape, Data: data}, nil
}

// reader consumes little-endian values and remembers the first short read, so the parser can check
// once per record instead of after every field.
type reader struct {
	b   []byte
	err error
}

func (r *reader) bytes(n int64) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > int64(len(r.b)) {
		r.err = fmt.Errorf("truncated: %d bytes wanted, %d left", n, len(r.b))
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) u64() uint64 {
	if b := r.bytes(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (r *reader) u32() uint32 {
	if b := r.bytes(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *reader) i32() int32 { return int32(r.u32()) }

func (r *reader) str() string {
	n := r.u64()
	if r.err == nil && n > uint64(len(r.b)) {
		r.err = fmt.Errorf("truncated: name of %d bytes, %d left", n, len(r.b))
	}
	return string(r.bytes(int64(n)))
}
