package onnxpb

import (
	"encoding/binary"
	"math"
	"reflect"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// msg is a decoded message: the values of each field number in order. Varints and fixed32 values
// are stored as uint64, length-delimited ones as []byte.
type msg map[protowire.Number][]any

func decode(t *testing.T, b []byte) msg {
	t.Helper()
	m := msg{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			t.Fatalf("tag: %v", protowire.ParseError(n))
		}
		b = b[n:]
		var v any
		switch typ {
		case protowire.VarintType:
			var x uint64
			x, n = protowire.ConsumeVarint(b)
			v = x
		case protowire.Fixed32Type:
			var x uint32
			x, n = protowire.ConsumeFixed32(b)
			v = uint64(x)
		case protowire.BytesType:
			var x []byte
			x, n = protowire.ConsumeBytes(b)
			v = x
		default:
			t.Fatalf("field %d: unexpected wire type %d", num, typ)
		}
		if n < 0 {
			t.Fatalf("field %d: %v", num, protowire.ParseError(n))
		}
		b = b[n:]
		m[num] = append(m[num], v)
	}
	return m
}

func (m msg) str(num protowire.Number) string {
	if len(m[num]) != 1 {
		return "<absent or repeated>"
	}
	return string(m[num][0].([]byte))
}

func (m msg) strs(num protowire.Number) []string {
	var s []string
	for _, v := range m[num] {
		s = append(s, string(v.([]byte)))
	}
	return s
}

func (m msg) ints(num protowire.Number) []int64 {
	var s []int64
	for _, v := range m[num] {
		s = append(s, int64(v.(uint64)))
	}
	return s
}

func (m msg) sub(t *testing.T, num protowire.Number, i int) msg {
	t.Helper()
	if i >= len(m[num]) {
		t.Fatalf("field %d has %d values, want index %d", num, len(m[num]), i)
	}
	return decode(t, m[num][i].([]byte))
}

func TestMarshalRoundTrip(t *testing.T) {
	model := Model{
		IRVersion:    6,
		OpsetVersion: 11,
		ProducerName: "test",
		Metadata:     []Prop{{"source", "here"}, {"licence", "MIT"}},
		Graph: Graph{
			Name: "g",
			Nodes: []Node{{
				Name: "conv", OpType: "Conv", Inputs: []string{"x", "w", ""}, Outputs: []string{"y"},
				Attrs: []Attr{IntsAttr("pads", 1, 1, -1, 0), IntAttr("group", 0), FloatAttr("epsilon", 2e-5)},
			}},
			Initializers: []Tensor{FloatTensor("w", []int64{2, 1}, []float32{1.5, -3})},
			Inputs:       []ValueInfo{{Name: "x", ElemType: Float, Shape: []Dim{{Param: "N"}, {Value: 3}}}},
			Outputs:      []ValueInfo{{Name: "y", ElemType: Float}},
		},
	}
	m := decode(t, model.Marshal())
	if got := m.ints(1); !reflect.DeepEqual(got, []int64{6}) {
		t.Errorf("ir_version %v", got)
	}
	if m.str(2) != "test" {
		t.Errorf("producer %q", m.str(2))
	}
	opset := m.sub(t, 8, 0)
	if len(opset[1]) != 0 || !reflect.DeepEqual(opset.ints(2), []int64{11}) {
		t.Errorf("opset_import %v: want the default domain at version 11", opset)
	}
	if len(m[14]) != 2 || m.sub(t, 14, 1).str(1) != "licence" || m.sub(t, 14, 1).str(2) != "MIT" {
		t.Errorf("metadata_props %v", m[14])
	}

	g := m.sub(t, 7, 0)
	if g.str(2) != "g" || len(g[1]) != 1 || len(g[5]) != 1 || len(g[11]) != 1 || len(g[12]) != 1 {
		t.Fatalf("graph fields %v", g)
	}
	node := g.sub(t, 1, 0)
	if !reflect.DeepEqual(node.strs(1), []string{"x", "w", ""}) || !reflect.DeepEqual(node.strs(2), []string{"y"}) ||
		node.str(3) != "conv" || node.str(4) != "Conv" {
		t.Errorf("node %v", node)
	}
	pads, group, eps := node.sub(t, 5, 0), node.sub(t, 5, 1), node.sub(t, 5, 2)
	if pads.str(1) != "pads" || !reflect.DeepEqual(pads.ints(8), []int64{1, 1, -1, 0}) || !reflect.DeepEqual(pads.ints(20), []int64{7}) {
		t.Errorf("ints attribute %v", pads)
	}
	if group.str(1) != "group" || !reflect.DeepEqual(group.ints(3), []int64{0}) || !reflect.DeepEqual(group.ints(20), []int64{2}) {
		t.Errorf("int attribute %v: a zero value must still be written", group)
	}
	if eps.str(1) != "epsilon" || len(eps[2]) != 1 || math.Float32frombits(uint32(eps[2][0].(uint64))) != 2e-5 ||
		!reflect.DeepEqual(eps.ints(20), []int64{1}) {
		t.Errorf("float attribute %v", eps)
	}

	w := g.sub(t, 5, 0)
	raw := []byte(w.str(9))
	if !reflect.DeepEqual(w.ints(1), []int64{2, 1}) || !reflect.DeepEqual(w.ints(2), []int64{1}) || w.str(8) != "w" ||
		len(raw) != 8 || math.Float32frombits(binary.LittleEndian.Uint32(raw[4:])) != -3 {
		t.Errorf("initializer %v", w)
	}

	x := g.sub(t, 11, 0)
	tensor := x.sub(t, 2, 0).sub(t, 1, 0)
	shape := tensor.sub(t, 2, 0)
	if x.str(1) != "x" || !reflect.DeepEqual(tensor.ints(1), []int64{1}) || len(shape[1]) != 2 ||
		shape.sub(t, 1, 0).str(2) != "N" || !reflect.DeepEqual(shape.sub(t, 1, 1).ints(1), []int64{3}) {
		t.Errorf("input %v", x)
	}
	y := g.sub(t, 12, 0).sub(t, 2, 0).sub(t, 1, 0)
	if len(y[2]) != 1 || len(y[2][0].([]byte)) != 0 {
		t.Errorf("output type %v: a rank-0 shape must be written as an empty shape", y)
	}
}
