package tfjs

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"

	"github.com/hensachi/hensachi/cmd/assemble-models/internal/onnxpb"
)

// The ONNX versions written, as cmd/assemble-models/internal/mxnet writes them: every operator below is in opset 11.
const (
	irVersion    = 6
	opsetVersion = 11
)

// Options describe what the graph model does not record.
type Options struct {
	// Input is the Placeholder fed by the ONNX input "input", which takes NCHW images (N, 3, H, W
	// dynamic) where the TensorFlow graph takes NHWC: the layout is changed once, at the front,
	// instead of transposing around every operator.
	Input string
	// Outputs are the nodes whose values become the ONNX outputs, under the same names.
	Outputs   []string
	GraphName string
	Metadata  []onnxpb.Prop
}

// Convert builds an ONNX model from a graph model. It supports what MobileNet v1 networks with
// dense heads are made of: Conv2D and DepthwiseConv2dNative (NHWC, SAME or VALID padding),
// Add and Mul with a constant (folded batch normalisation), Relu, Minimum and Maximum with a
// constant (ReLU6), Mean over the spatial axes, _FusedMatMul with BiasAdd (and Relu), Sigmoid,
// Softmax and Identity. Anything else is an error naming the node.
//
// Two patterns are fused on the way, as TensorFlow's own runtime would: a convolution followed by
// a per-channel Mul and Add (batch normalisation) becomes one convolution with scaled weights and
// a bias, and Relu, Minimum(6), Maximum(0) (ReLU6) becomes one Clip, which ONNX Runtime in turn
// fuses into the convolution, so that the network pays for no elementwise pass of its own.
func Convert(m *Model, opt Options) (*onnxpb.Model, error) {
	c := &converter{model: m, rank: map[string]int{}, nodes: map[string]*Node{}, emitted: map[string]bool{},
		readers: map[string][]*Node{}, fused: map[string]bool{}}
	for i := range m.Nodes {
		n := &m.Nodes[i]
		c.nodes[n.Name] = n
		for _, in := range n.Inputs {
			c.readers[in] = append(c.readers[in], n)
		}
	}
	for _, o := range opt.Outputs {
		c.readers[o] = append(c.readers[o], nil) // read outside the graph: never fused away
	}
	if n, ok := c.nodes[opt.Input]; !ok || n.Op != "Placeholder" {
		return nil, fmt.Errorf("tfjs: input %q is not a Placeholder of the graph", opt.Input)
	}
	c.rank[opt.Input] = 4
	c.alias = map[string]string{opt.Input: "input"}
	for _, n := range m.Nodes {
		if n.Op == "Const" || n.Op == "Placeholder" || c.fused[n.Name] {
			continue
		}
		if err := c.convert(n); err != nil {
			return nil, fmt.Errorf("tfjs: node %q (%s): %w", n.Name, n.Op, err)
		}
	}
	g := &c.graph
	g.Name = opt.GraphName
	g.Inputs = []onnxpb.ValueInfo{{Name: "input", ElemType: onnxpb.Float,
		Shape: []onnxpb.Dim{{Param: "N"}, {Value: 3}, {Param: "H"}, {Param: "W"}}}}
	for _, o := range opt.Outputs {
		r, ok := c.rank[o]
		if !ok {
			return nil, fmt.Errorf("tfjs: output %q is not a computed node", o)
		}
		shape := []onnxpb.Dim{{Param: "N"}}
		for k := 1; k < r; k++ {
			shape = append(shape, onnxpb.Dim{Param: fmt.Sprintf("%s_%d", o, k)})
		}
		g.Outputs = append(g.Outputs, onnxpb.ValueInfo{Name: c.name(o), ElemType: onnxpb.Float, Shape: shape})
	}
	// The producer name is in the file, so in face/models/bundle.json's hash: it keeps the
	// converter's first path rather than follow it around the tree.
	return &onnxpb.Model{IRVersion: irVersion, OpsetVersion: opsetVersion, ProducerName: "hensachi internal/tfjs",
		Metadata: opt.Metadata, Graph: *g}, nil
}

type converter struct {
	model   *Model
	nodes   map[string]*Node
	graph   onnxpb.Graph
	rank    map[string]int     // the rank of each computed value
	alias   map[string]string  // node → ONNX value, where they differ (the input, Identity)
	emitted map[string]bool    // initializers written
	readers map[string][]*Node // the nodes that read each node's value (nil: a graph output)
	fused   map[string]bool    // nodes folded into an earlier one, which computes their value
}

// next returns the one node that reads n's value when it is of the given operator, nil otherwise.
func (c *converter) next(n, op string) *Node {
	if r := c.readers[n]; len(r) == 1 && r[0] != nil && r[0].Op == op {
		return r[0]
	}
	return nil
}

// operand returns the constant operand of a binary node whose other operand is from, or nil.
func (c *converter) operand(n *Node, from string) *Tensor {
	if n == nil || len(n.Inputs) != 2 {
		return nil
	}
	switch from {
	case n.Inputs[0]:
		return c.constant(n.Inputs[1])
	case n.Inputs[1]:
		return c.constant(n.Inputs[0])
	}
	return nil
}

func (c *converter) name(n string) string {
	if a, ok := c.alias[n]; ok {
		return a
	}
	return n
}

// constant returns the weight behind a Const input, or nil when the input is computed.
func (c *converter) constant(input string) *Tensor {
	n, ok := c.nodes[input]
	if !ok || n.Op != "Const" {
		return nil
	}
	t, ok := c.model.Weights[input]
	if !ok {
		return nil
	}
	return &t
}

func (c *converter) initializer(name string, dims []int64, data []float32) string {
	if !c.emitted[name] {
		c.emitted[name] = true
		c.graph.Initializers = append(c.graph.Initializers, onnxpb.FloatTensor(name, dims, data))
	}
	return name
}

func (c *converter) emit(n Node, op string, inputs []string, attrs ...onnxpb.Attr) {
	c.graph.Nodes = append(c.graph.Nodes, onnxpb.Node{Name: n.Name, OpType: op, Inputs: inputs, Outputs: []string{n.Name}, Attrs: attrs})
}

// computed returns the ONNX value and rank of a computed input.
func (c *converter) computed(input string) (string, int, error) {
	r, ok := c.rank[input]
	if !ok {
		return "", 0, fmt.Errorf("input %q is not computed before its use", input)
	}
	return c.name(input), r, nil
}

func (c *converter) convert(n Node) error {
	switch n.Op {
	case "Conv2D", "DepthwiseConv2dNative":
		return c.conv(n)
	case "Add", "AddV2", "Mul", "Minimum", "Maximum":
		return c.withConstant(n)
	case "Relu", "Sigmoid", "Identity":
		x, r, err := c.unary(n)
		if err != nil {
			return err
		}
		if n.Op == "Relu" && c.relu6(n, x, r) {
			return nil
		}
		if n.Op == "Identity" {
			c.alias[n.Name], c.rank[n.Name] = x, r
			return nil
		}
		c.emit(n, n.Op, []string{x})
		c.rank[n.Name] = r
	case "Softmax":
		x, r, err := c.unary(n)
		if err != nil {
			return err
		}
		if r != 2 {
			return fmt.Errorf("softmax of rank %d: only rank 2 is supported", r)
		}
		c.emit(n, "Softmax", []string{x}, onnxpb.IntAttr("axis", 1))
		c.rank[n.Name] = 2
	case "Mean":
		return c.mean(n)
	case "_FusedMatMul":
		return c.dense(n)
	default:
		return fmt.Errorf("unsupported operator")
	}
	return nil
}

// relu6 emits Relu → Minimum(hi) → Maximum(lo) with scalar bounds as one Clip(max(lo, 0), hi),
// named as the Maximum, and reports whether it did.
func (c *converter) relu6(n Node, x string, rank int) bool {
	lowest := c.next(n.Name, "Minimum")
	hi := c.operand(lowest, n.Name)
	if hi == nil || len(hi.Data) != 1 {
		return false
	}
	top := c.next(lowest.Name, "Maximum")
	lo := c.operand(top, lowest.Name)
	if lo == nil || len(lo.Data) != 1 {
		return false
	}
	c.fused[lowest.Name], c.fused[top.Name] = true, true
	clip := Node{Name: top.Name}
	c.emit(clip, "Clip", []string{x,
		c.initializer(top.Name+"/min", nil, []float32{max(lo.Data[0], 0)}),
		c.initializer(top.Name+"/max", nil, hi.Data)})
	c.rank[top.Name] = rank
	return true
}

func (c *converter) unary(n Node) (string, int, error) { return c.first(n, 1) }

// first checks a node's number of inputs and returns its first, which must be computed.
func (c *converter) first(n Node, inputs int) (string, int, error) {
	if len(n.Inputs) != inputs {
		return "", 0, fmt.Errorf("%d inputs, want %d", len(n.Inputs), inputs)
	}
	return c.computed(n.Inputs[0])
}

func (c *converter) conv(n Node) error {
	x, r, err := c.first(n, 2)
	if err != nil {
		return err
	}
	w := c.constant(n.Inputs[1])
	if r != 4 || w == nil || len(w.Shape) != 4 {
		return fmt.Errorf("a rank-4 input and a constant rank-4 filter are needed")
	}
	if f := decodeString(n.Attr["data_format"].S); f != "" && f != "NHWC" {
		return fmt.Errorf("data format %q: only NHWC is supported", f)
	}
	strides, err := n.Attr["strides"].ints()
	if err != nil || len(strides) != 4 || strides[0] != 1 || strides[3] != 1 {
		return fmt.Errorf("strides %v: want [1 s s 1]", n.Attr["strides"].List.I)
	}
	if d, _ := n.Attr["dilations"].ints(); len(d) != 0 && slices.ContainsFunc(d, func(v int64) bool { return v != 1 }) {
		return fmt.Errorf("dilations %v: only 1 is supported", d)
	}
	attrs := []onnxpb.Attr{onnxpb.IntsAttr("kernel_shape", int64(w.Shape[0]), int64(w.Shape[1])),
		onnxpb.IntsAttr("strides", strides[1], strides[2])}
	switch p := decodeString(n.Attr["padding"].S); p {
	case "SAME":
		// TensorFlow puts the odd pixel of SAME padding at the end, as SAME_UPPER does
		attrs = append(attrs, onnxpb.StringAttr("auto_pad", "SAME_UPPER"))
	case "VALID":
	default:
		return fmt.Errorf("padding %q: only SAME and VALID are supported", p)
	}
	kh, kw, cin, cout := w.Shape[0], w.Shape[1], w.Shape[2], w.Shape[3]
	var dims []int64
	data := make([]float32, len(w.Data))
	if n.Op == "Conv2D" {
		// HWIO → OIHW
		dims = []int64{int64(cout), int64(cin), int64(kh), int64(kw)}
		for h := range kh {
			for x := range kw {
				for i := range cin {
					for o := range cout {
						data[((o*cin+i)*kh+h)*kw+x] = w.Data[((h*kw+x)*cin+i)*cout+o]
					}
				}
			}
		}
	} else {
		// [H, W, C, multiplier] → a grouped convolution of C groups, output channel c·M + m
		mult := cout
		dims = []int64{int64(cin * mult), 1, int64(kh), int64(kw)}
		for h := range kh {
			for x := range kw {
				for ch := range cin {
					for m := range mult {
						data[((ch*mult+m)*kh+h)*kw+x] = w.Data[((h*kw+x)*cin+ch)*mult+m]
					}
				}
			}
		}
		attrs = append(attrs, onnxpb.IntAttr("group", int64(cin)))
	}
	out, inputs := n, []string{x, "", ""}
	if mul := c.next(n.Name, "Mul"); perChannel(c.operand(mul, n.Name), int(dims[0])) {
		// scale each output channel's filter
		scale, per := c.operand(mul, n.Name).Data, len(data)/int(dims[0])
		for i := range data {
			data[i] *= scale[i/per]
		}
		c.fused[mul.Name], out = true, *mul
	}
	if add := c.next(out.Name, "Add"); perChannel(c.operand(add, out.Name), int(dims[0])) {
		inputs[2] = c.initializer(add.Name+"/bias", []int64{dims[0]}, c.operand(add, out.Name).Data)
		c.fused[add.Name], out = true, *add
	}
	// the filter is named after the node whose value the convolution computes: folding changes it
	inputs[1] = c.initializer(out.Name+"/filter", dims, data)
	if inputs[2] == "" {
		inputs = inputs[:2]
	}
	c.emit(out, "Conv", inputs, attrs...)
	c.rank[out.Name] = 4
	return nil
}

// perChannel reports whether t is a vector of one value per channel.
func perChannel(t *Tensor, channels int) bool {
	return t != nil && len(t.Shape) == 1 && t.Shape[0] == channels
}

// withConstant converts a binary operator with one computed and one constant operand. A
// per-channel vector [C] becomes [1, C, 1, 1] against an NCHW image.
func (c *converter) withConstant(n Node) error {
	if len(n.Inputs) != 2 {
		return fmt.Errorf("%d inputs, want 2", len(n.Inputs))
	}
	a, b := n.Inputs[0], n.Inputs[1]
	k := c.constant(b)
	if k == nil {
		a, b = b, a
		k = c.constant(b)
	}
	x, r, err := c.computed(a)
	if err != nil || k == nil {
		return fmt.Errorf("one computed and one constant operand are needed")
	}
	var dims []int64
	switch {
	case len(k.Data) == 1:
	case len(k.Shape) == 1 && r == 4:
		dims = []int64{1, int64(k.Shape[0]), 1, 1}
	case len(k.Shape) == 1 && r == 2:
		dims = []int64{int64(k.Shape[0])}
	default:
		return fmt.Errorf("constant of shape %v against rank %d: only scalars and per-channel vectors are supported", k.Shape, r)
	}
	op := map[string]string{"Add": "Add", "AddV2": "Add", "Mul": "Mul", "Minimum": "Min", "Maximum": "Max"}[n.Op]
	// the initializer is named after the node that uses it: a constant's layout depends on its use
	c.emit(n, op, []string{x, c.initializer(n.Name+"/const", dims, k.Data)})
	c.rank[n.Name] = r
	return nil
}

// mean converts global average pooling: a Mean over the NHWC spatial axes 1 and 2.
func (c *converter) mean(n Node) error {
	x, r, err := c.first(n, 2)
	if err != nil {
		return err
	}
	axes := c.constant(n.Inputs[1])
	if r != 4 || axes == nil || !slices.Equal(axes.Data, []float32{1, 2}) {
		return fmt.Errorf("only a mean over the spatial axes [1 2] of a rank-4 input is supported")
	}
	if n.Attr["keep_dims"].B {
		return fmt.Errorf("keep_dims: not supported")
	}
	c.emit(n, "ReduceMean", []string{x}, onnxpb.IntsAttr("axes", 2, 3), onnxpb.IntAttr("keepdims", 0))
	c.rank[n.Name] = 2
	return nil
}

// dense converts _FusedMatMul(x, W, b) with the fused BiasAdd, and Relu when fused too, into Gemm.
func (c *converter) dense(n Node) error {
	x, r, err := c.first(n, 3) // x, kernel and bias
	if err != nil {
		return err
	}
	w, b := c.constant(n.Inputs[1]), c.constant(n.Inputs[2])
	if r != 2 || w == nil || b == nil || len(w.Shape) != 2 || len(b.Data) != w.Shape[1] {
		return fmt.Errorf("a rank-2 input, a constant kernel and a matching bias are needed")
	}
	if n.Attr["transpose_a"].B || n.Attr["transpose_b"].B {
		return fmt.Errorf("transposed operands: not supported")
	}
	var fused []string
	for _, s := range n.Attr["fused_ops"].List.S {
		fused = append(fused, decodeString(s))
	}
	relu := false
	switch strings.Join(fused, ",") {
	case "BiasAdd":
	case "BiasAdd,Relu":
		relu = true
	default:
		return fmt.Errorf("fused operations %v: only BiasAdd and BiasAdd,Relu are supported", fused)
	}
	gemm := n
	if relu {
		gemm.Name = n.Name + "/gemm"
	}
	c.emit(gemm, "Gemm", []string{x,
		c.initializer(n.Inputs[1], []int64{int64(w.Shape[0]), int64(w.Shape[1])}, w.Data),
		c.initializer(n.Inputs[2], []int64{int64(w.Shape[1])}, b.Data)})
	if relu {
		c.emit(n, "Relu", []string{gemm.Name})
	}
	c.rank[n.Name] = 2
	return nil
}

// decodeString reads a bytes attribute, which protobuf JSON writes in base64.
func decodeString(s string) string {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return ""
	}
	return string(b)
}
