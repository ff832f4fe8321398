// Package onnxpb writes ONNX model files. It covers only the parts of onnx.proto that an inference
// graph converted at build time needs, encoded with protowire, so the project carries no generated
// protobuf code and no copy of onnx.proto.
//
// onnx.proto is proto2: repeated scalars are written unpacked (one tag per value), as the reference
// serialiser does; tensor contents go in raw_data (little-endian), which every runtime reads.
package onnxpb

import (
	"encoding/binary"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Float is TensorProto.DataType FLOAT, the only element type the converter emits.
const Float int32 = 1

// AttrType is AttributeProto.AttributeType.
type AttrType int32

// The attribute types the converter emits.
const (
	AttrFloat  AttrType = 1
	AttrInt    AttrType = 2
	AttrString AttrType = 3
	AttrInts   AttrType = 7
)

// Model is a ModelProto whose operators all come from the default domain at OpsetVersion.
type Model struct {
	IRVersion    int64
	OpsetVersion int64
	ProducerName string
	Metadata     []Prop
	Graph        Graph
}

// Prop is one StringStringEntryProto of the model's metadata_props.
type Prop struct{ Key, Value string }

// Graph is a GraphProto. Initializers are not listed among Inputs (allowed since IR version 4), so
// a runtime may fold them as constants.
type Graph struct {
	Name         string
	Nodes        []Node
	Initializers []Tensor
	Inputs       []ValueInfo
	Outputs      []ValueInfo
}

// Node is a NodeProto of the default domain.
type Node struct {
	Name    string
	OpType  string
	Inputs  []string
	Outputs []string
	Attrs   []Attr
}

// Attr is an AttributeProto holding the one value its Type selects.
type Attr struct {
	Name string
	Type AttrType
	F    float32
	I    int64
	S    string
	Ints []int64
}

// Tensor is a TensorProto with its contents in raw_data.
type Tensor struct {
	Name     string
	DataType int32
	Dims     []int64
	Raw      []byte
}

// ValueInfo is a ValueInfoProto of a tensor type.
type ValueInfo struct {
	Name     string
	ElemType int32
	Shape    []Dim
}

// Dim is one dimension: a symbolic name when Param is set, else the fixed Value.
type Dim struct {
	Value int64
	Param string
}

// IntAttr, IntsAttr, FloatAttr and StringAttr build attributes.
func IntAttr(name string, v int64) Attr     { return Attr{Name: name, Type: AttrInt, I: v} }
func IntsAttr(name string, v ...int64) Attr { return Attr{Name: name, Type: AttrInts, Ints: v} }
func FloatAttr(name string, v float32) Attr { return Attr{Name: name, Type: AttrFloat, F: v} }
func StringAttr(name, v string) Attr        { return Attr{Name: name, Type: AttrString, S: v} }

// FloatTensor builds a float32 tensor; data must hold the product of dims values.
func FloatTensor(name string, dims []int64, data []float32) Tensor {
	raw := make([]byte, 4*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	return Tensor{Name: name, DataType: Float, Dims: dims, Raw: raw}
}

// Marshal encodes the model as an .onnx file.
func (m *Model) Marshal() []byte {
	var b []byte
	b = appendVarint(b, 1, uint64(m.IRVersion))
	b = appendString(b, 2, m.ProducerName)
	b = appendMessage(b, 7, m.Graph.marshal())
	var opset []byte
	opset = appendVarint(opset, 2, uint64(m.OpsetVersion))
	b = appendMessage(b, 8, opset)
	for _, p := range m.Metadata {
		var e []byte
		e = appendString(e, 1, p.Key)
		e = appendString(e, 2, p.Value)
		b = appendMessage(b, 14, e)
	}
	return b
}

func (g *Graph) marshal() []byte {
	var b []byte
	for i := range g.Nodes {
		b = appendMessage(b, 1, g.Nodes[i].marshal())
	}
	b = appendString(b, 2, g.Name)
	for i := range g.Initializers {
		b = appendMessage(b, 5, g.Initializers[i].marshal())
	}
	for i := range g.Inputs {
		b = appendMessage(b, 11, g.Inputs[i].marshal())
	}
	for i := range g.Outputs {
		b = appendMessage(b, 12, g.Outputs[i].marshal())
	}
	return b
}

func (n *Node) marshal() []byte {
	var b []byte
	for _, s := range n.Inputs {
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendString(b, s)
	}
	for _, s := range n.Outputs {
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendString(b, s)
	}
	b = appendString(b, 3, n.Name)
	b = appendString(b, 4, n.OpType)
	for i := range n.Attrs {
		b = appendMessage(b, 5, n.Attrs[i].marshal())
	}
	return b
}

func (a *Attr) marshal() []byte {
	var b []byte
	b = appendString(b, 1, a.Name)
	switch a.Type {
	case AttrFloat:
		b = protowire.AppendTag(b, 2, protowire.Fixed32Type)
		b = protowire.AppendFixed32(b, math.Float32bits(a.F))
	case AttrInt:
		b = appendVarint(b, 3, uint64(a.I))
	case AttrString:
		b = appendString(b, 4, a.S)
	case AttrInts:
		for _, v := range a.Ints {
			b = appendVarint(b, 8, uint64(v))
		}
	}
	return appendVarint(b, 20, uint64(a.Type))
}

func (t *Tensor) marshal() []byte {
	var b []byte
	for _, d := range t.Dims {
		b = appendVarint(b, 1, uint64(d))
	}
	b = appendVarint(b, 2, uint64(t.DataType))
	b = appendString(b, 8, t.Name)
	b = protowire.AppendTag(b, 9, protowire.BytesType)
	return protowire.AppendBytes(b, t.Raw)
}

func (v *ValueInfo) marshal() []byte {
	var shape []byte
	for _, d := range v.Shape {
		var dim []byte
		if d.Param != "" {
			dim = appendString(dim, 2, d.Param)
		} else {
			dim = appendVarint(dim, 1, uint64(d.Value))
		}
		shape = appendMessage(shape, 1, dim)
	}
	var tensor []byte
	tensor = appendVarint(tensor, 1, uint64(v.ElemType))
	// An empty shape message means rank 0, an absent one an unknown rank: always write it.
	tensor = appendMessage(tensor, 2, shape)
	var typ []byte
	typ = appendMessage(typ, 1, tensor)
	var b []byte
	b = appendString(b, 1, v.Name)
	return appendMessage(b, 2, typ)
}

// appendString leaves out empty strings: in proto2 an absent optional field reads as "".
func appendString(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendVarint(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendMessage(b []byte, num protowire.Number, msg []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, msg)
}
