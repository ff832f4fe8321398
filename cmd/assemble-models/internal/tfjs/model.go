// Package tfjs reads TensorFlow.js graph models (model.json and its weight files) and converts the
// small set of operators that MobileNet-style face models use to ONNX, at build time, as
// cmd/assemble-models/internal/mxnet does for MXNet checkpoints.
package tfjs

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"path"
	"strconv"
)

// Model is a parsed graph model: its nodes in file order and its weights, dequantised to float32.
type Model struct {
	Nodes   []Node
	Weights map[string]Tensor
}

// Node is one operation of the graph. Inputs name other nodes; a ":k" suffix (the k-th output)
// is kept as written.
type Node struct {
	Name   string          `json:"name"`
	Op     string          `json:"op"`
	Inputs []string        `json:"input"`
	Attr   map[string]Attr `json:"attr"`
}

// Attr is one attribute of a node, in TensorFlow's AttrValue JSON form; only the fields the
// converter reads are declared.
type Attr struct {
	S    string  `json:"s"` // base64 of the bytes, as protobuf JSON writes them
	I    string  `json:"i"` // int64 as a string
	F    float64 `json:"f"`
	B    bool    `json:"b"`
	List struct {
		I []string `json:"i"`
		S []string `json:"s"`
	} `json:"list"`
}

// Tensor is a weight: its shape as TensorFlow lays it out, and its values (int32 weights, which
// are axes, are held as float32 too).
type Tensor struct {
	Shape []int
	Data  []float32
}

type modelFile struct {
	Format   string `json:"format"`
	Topology struct {
		Node []Node `json:"node"`
	} `json:"modelTopology"`
	Manifest []struct {
		Paths   []string     `json:"paths"`
		Weights []weightSpec `json:"weights"`
	} `json:"weightsManifest"`
}

type weightSpec struct {
	Name         string `json:"name"`
	Shape        []int  `json:"shape"`
	DType        string `json:"dtype"`
	Quantization *struct {
		DType string  `json:"dtype"`
		Scale float64 `json:"scale"`
		Min   float64 `json:"min"`
	} `json:"quantization"`
}

// Parse reads a graph model from its JSON and the weight files its manifest names, given by base
// name.
func Parse(modelJSON []byte, files map[string][]byte) (*Model, error) {
	var f modelFile
	if err := json.Unmarshal(modelJSON, &f); err != nil {
		return nil, fmt.Errorf("tfjs: %w", err)
	}
	if f.Format != "graph-model" {
		return nil, fmt.Errorf("tfjs: format %q, want graph-model", f.Format)
	}
	m := &Model{Nodes: f.Topology.Node, Weights: map[string]Tensor{}}
	for _, group := range f.Manifest {
		var data []byte
		for _, p := range group.Paths {
			part, ok := files[path.Base(p)]
			if !ok {
				return nil, fmt.Errorf("tfjs: weight file %s is missing", p)
			}
			data = append(data, part...)
		}
		for _, w := range group.Weights {
			t, n, err := decodeWeight(w, data)
			if err != nil {
				return nil, fmt.Errorf("tfjs: weight %q: %w", w.Name, err)
			}
			m.Weights[w.Name], data = t, data[n:]
		}
		if len(data) != 0 {
			return nil, fmt.Errorf("tfjs: %d bytes of %v are not described by the manifest", len(data), group.Paths)
		}
	}
	return m, nil
}

// decodeWeight reads one weight from the front of data and says how many bytes it took.
func decodeWeight(w weightSpec, data []byte) (Tensor, int, error) {
	count := 1
	for _, d := range w.Shape {
		if d < 0 || (d > 0 && count > math.MaxInt32/d) {
			return Tensor{}, 0, fmt.Errorf("shape %v", w.Shape)
		}
		count *= d
	}
	if w.DType != "float32" && w.DType != "int32" {
		return Tensor{}, 0, fmt.Errorf("dtype %q: only float32 and int32 weights are supported", w.DType)
	}
	stored := w.DType
	if w.Quantization != nil {
		stored = w.Quantization.DType
	}
	size := map[string]int{"float32": 4, "int32": 4, "float16": 2, "uint16": 2, "uint8": 1}[stored]
	if size == 0 {
		return Tensor{}, 0, fmt.Errorf("stored as %q: unsupported", stored)
	}
	if len(data) < size*count {
		return Tensor{}, 0, fmt.Errorf("%d values of %s need %d bytes, %d are left", count, stored, size*count, len(data))
	}
	out := make([]float32, count)
	for i := range out {
		switch stored {
		case "float32":
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
		case "int32": // axes and shapes: small integers, exact in float32
			out[i] = float32(int32(binary.LittleEndian.Uint32(data[4*i:])))
		case "float16":
			out[i] = halfToFloat(binary.LittleEndian.Uint16(data[2*i:]))
		case "uint16":
			out[i] = float32(w.Quantization.Min + w.Quantization.Scale*float64(binary.LittleEndian.Uint16(data[2*i:])))
		case "uint8":
			out[i] = float32(w.Quantization.Min + w.Quantization.Scale*float64(data[i]))
		}
	}
	return Tensor{Shape: w.Shape, Data: out}, size * count, nil
}

// halfToFloat widens an IEEE 754 binary16 value.
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // infinity or NaN
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp == 0 && frac == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: frac·2^−24
		v := float32(frac) / (1 << 24)
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
}

// ints reads a list attribute of integers.
func (a Attr) ints() ([]int64, error) {
	out := make([]int64, len(a.List.I))
	for i, s := range a.List.I {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}
