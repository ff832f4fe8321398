package mxnet

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/hensachi/hensachi/cmd/assemble-models/internal/onnxpb"
)

// The ONNX versions written: IR 6 and opset 11 are read by every ONNX Runtime since 1.0 and
// have every operator the supported MXNet layers map to.
const (
	irVersion    = 6
	opsetVersion = 11
	batchDim     = "N"
)

// Options describe what the symbol JSON does not record.
type Options struct {
	// InputShape is the shape of one sample, e.g. [3, 112, 112]; the batch dimension in front of it
	// is left dynamic (named "N").
	InputShape []int64
	GraphName  string
	// Metadata goes to the model's metadata_props, e.g. provenance and licence notes.
	Metadata []onnxpb.Prop
}

type symbol struct {
	Nodes []symNode `json:"nodes"`
	Heads [][]int   `json:"heads"`
}

type symNode struct {
	Op     string            `json:"op"`
	Name   string            `json:"name"`
	Attrs  map[string]string `json:"attrs"`
	Inputs [][]int           `json:"inputs"`
}

// Convert builds an ONNX model from an MXNet symbol JSON and its parameters. The ONNX graph keeps
// MXNet's layer names: each layer's output tensor is named after the layer, and each weight after its
// MXNet argument, so the result can be compared with the symbol layer by layer. The output is
// deterministic: the same inputs give the same bytes.
func Convert(symbolJSON []byte, params Params, opt Options) (*onnxpb.Model, error) {
	var sym symbol
	if err := json.Unmarshal(symbolJSON, &sym); err != nil {
		return nil, fmt.Errorf("mxnet symbol: %w", err)
	}
	if len(sym.Heads) != 1 || len(sym.Heads[0]) < 2 || sym.Heads[0][1] != 0 {
		return nil, fmt.Errorf("mxnet symbol: heads %v: exactly one output is supported", sym.Heads)
	}
	c := &converter{
		nodes:   sym.Nodes,
		params:  params,
		opt:     opt,
		weights: make(map[int]string),
		shapes:  make(map[int][]int64),
		emitted: make(map[string]bool),
	}
	for i, n := range sym.Nodes {
		if err := c.convert(i, n); err != nil {
			return nil, fmt.Errorf("mxnet: node %d %q (%s): %w", i, n.Name, n.Op, err)
		}
	}
	head := sym.Heads[0][0]
	shape, ok := c.shapes[head]
	if !ok || head < 0 || head >= len(sym.Nodes) {
		return nil, fmt.Errorf("mxnet symbol: head %d is not a layer", head)
	}
	c.graph.Outputs = []onnxpb.ValueInfo{valueInfo(sym.Nodes[head].Name, shape)}
	c.graph.Name = opt.GraphName
	return &onnxpb.Model{
		IRVersion:    irVersion,
		OpsetVersion: opsetVersion,
		// the name the converter had when bundle.json pinned its output's hash; it is part of the bytes
		ProducerName: "hensachi face/mxnet",
		Metadata:     opt.Metadata,
		Graph:        c.graph,
	}, nil
}

type converter struct {
	nodes   []symNode
	params  Params
	opt     Options
	graph   onnxpb.Graph
	weights map[int]string  // node index → stored parameter name, for "null" nodes with a value
	shapes  map[int][]int64 // node index → output shape, -1 for the batch dimension
	emitted map[string]bool // initializers already in the graph
}

func (c *converter) convert(i int, n symNode) error {
	switch n.Op {
	case "null":
		return c.variable(i, n)
	case "_minus_scalar":
		return c.scalar(i, n, "Sub")
	case "_mul_scalar":
		return c.scalar(i, n, "Mul")
	case "Convolution":
		return c.convolution(i, n)
	case "BatchNorm":
		return c.batchNorm(i, n)
	case "Activation":
		if t := n.Attrs["act_type"]; t != "relu" {
			return fmt.Errorf("act_type %q: only relu is supported", t)
		}
		return c.unary(i, n, "Relu")
	case "LeakyReLU":
		return c.prelu(i, n)
	case "Pooling":
		return c.pooling(i, n)
	case "Flatten":
		x, xs, err := c.data(n, 0)
		if err != nil {
			return err
		}
		size := int64(1)
		for _, d := range xs[1:] {
			size *= d
		}
		c.add(i, n, "Flatten", []string{x}, []int64{-1, size}, onnxpb.IntAttr("axis", 1))
		return nil
	case "FullyConnected":
		return c.fullyConnected(i, n)
	}
	return fmt.Errorf("operator %s is not supported by this converter", n.Op)
}

// variable handles an argument: a stored parameter (used by the layers that read it), or else the
// network's input.
func (c *converter) variable(i int, n symNode) error {
	for _, prefix := range []string{"arg:", "aux:"} {
		if _, ok := c.params[prefix+n.Name]; ok {
			c.weights[i] = prefix + n.Name
			return nil
		}
	}
	if len(c.graph.Inputs) > 0 {
		return fmt.Errorf("no value in the params file, and the input is already %q: only one input is supported", c.graph.Inputs[0].Name)
	}
	if len(c.opt.InputShape) == 0 {
		return fmt.Errorf("input %q needs Options.InputShape", n.Name)
	}
	shape := append([]int64{-1}, c.opt.InputShape...)
	c.graph.Inputs = []onnxpb.ValueInfo{valueInfo(n.Name, shape)}
	c.shapes[i] = shape
	return nil
}

func (c *converter) scalar(i int, n symNode, op string) error {
	x, xs, err := c.data(n, 0)
	if err != nil {
		return err
	}
	v, err := strconv.ParseFloat(n.Attrs["scalar"], 32)
	if err != nil {
		return fmt.Errorf("scalar: %w", err)
	}
	name := n.Name + "_scalar"
	c.init(onnxpb.FloatTensor(name, nil, []float32{float32(v)}))
	c.add(i, n, op, []string{x, name}, xs)
	return nil
}

func (c *converter) convolution(i int, n symNode) error {
	x, xs, err := c.data(n, 0)
	if err != nil {
		return err
	}
	if l, ok := n.Attrs["layout"]; ok && l != "NCHW" {
		return fmt.Errorf("layout %s: only NCHW is supported", l)
	}
	kernel, err := tuple(n.Attrs, "kernel", nil)
	if err != nil {
		return err
	}
	if len(kernel) != 2 || len(xs) != 4 {
		return fmt.Errorf("kernel %v on input %v: only 2-D convolution is supported", kernel, xs)
	}
	stride, err := tuple(n.Attrs, "stride", []int64{1, 1})
	if err != nil {
		return err
	}
	pad, err := tuple(n.Attrs, "pad", []int64{0, 0})
	if err != nil {
		return err
	}
	dilate, err := tuple(n.Attrs, "dilate", []int64{1, 1})
	if err != nil {
		return err
	}
	if len(stride) != 2 || len(pad) != 2 || len(dilate) != 2 {
		return fmt.Errorf("stride %v, pad %v, dilate %v: want two values each", stride, pad, dilate)
	}
	filters, err := integer(n.Attrs, "num_filter", -1)
	if err != nil {
		return err
	}
	group, err := integer(n.Attrs, "num_group", 1)
	if err != nil {
		return err
	}
	noBias, err := boolean(n.Attrs, "no_bias", false)
	if err != nil {
		return err
	}
	if filters <= 0 || group <= 0 || xs[1]%group != 0 || filters%group != 0 {
		return fmt.Errorf("num_filter %d, num_group %d on %d channels", filters, group, xs[1])
	}
	w, err := c.weight(n, 1, filters, xs[1]/group, kernel[0], kernel[1])
	if err != nil {
		return err
	}
	inputs := []string{x, w}
	if !noBias {
		b, err := c.weight(n, 2, filters)
		if err != nil {
			return err
		}
		inputs = append(inputs, b)
	}
	out := []int64{xs[0], filters, 0, 0}
	for k := range 2 {
		out[2+k] = (xs[2+k]+2*pad[k]-dilate[k]*(kernel[k]-1)-1)/stride[k] + 1
		if out[2+k] < 1 {
			return fmt.Errorf("kernel %v does not fit input %v", kernel, xs)
		}
	}
	c.add(i, n, "Conv", inputs, out,
		onnxpb.IntsAttr("kernel_shape", kernel...),
		onnxpb.IntsAttr("strides", stride...),
		onnxpb.IntsAttr("pads", pad[0], pad[1], pad[0], pad[1]),
		onnxpb.IntsAttr("dilations", dilate...),
		onnxpb.IntAttr("group", group))
	return nil
}

func (c *converter) batchNorm(i int, n symNode) error {
	x, xs, err := c.data(n, 0)
	if err != nil {
		return err
	}
	if axis, err := integer(n.Attrs, "axis", 1); err != nil || axis != 1 {
		return fmt.Errorf("axis %q: only the channel axis 1 is supported", n.Attrs["axis"])
	}
	if len(xs) < 2 {
		return fmt.Errorf("input %v has no channel axis", xs)
	}
	// MXNet's defaults: eps 1e-3 (not ONNX's 1e-5) and fix_gamma true.
	eps, err := float(n.Attrs, "eps", 1e-3)
	if err != nil {
		return err
	}
	fixGamma, err := boolean(n.Attrs, "fix_gamma", true)
	if err != nil {
		return err
	}
	inputs := []string{x}
	for k := 1; k <= 4; k++ {
		if k == 1 && fixGamma {
			// MXNet multiplies by 1 whatever gamma holds (training never updates it; the stored
			// value is the initialiser's), so the graph gets ones under a name of its own.
			if _, _, err := c.param(n, k); err != nil {
				return err
			}
			ones := make([]float32, xs[1])
			for j := range ones {
				ones[j] = 1
			}
			inputs = append(inputs, n.Name+"_gamma_fixed")
			c.init(onnxpb.FloatTensor(n.Name+"_gamma_fixed", []int64{xs[1]}, ones))
			continue
		}
		w, err := c.weight(n, k, xs[1])
		if err != nil {
			return err
		}
		inputs = append(inputs, w)
	}
	c.add(i, n, "BatchNormalization", inputs, xs, onnxpb.FloatAttr("epsilon", float32(eps)))
	return nil
}

func (c *converter) prelu(i int, n symNode) error {
	if t := n.Attrs["act_type"]; t != "prelu" {
		return fmt.Errorf("act_type %q: only prelu is supported", t)
	}
	x, xs, err := c.data(n, 0)
	if err != nil {
		return err
	}
	if len(xs) < 2 {
		return fmt.Errorf("input %v has no channel axis", xs)
	}
	name, a, err := c.param(n, 1)
	if err != nil {
		return err
	}
	if err := wantShape(name, a.Shape, xs[1]); err != nil {
		return err
	}
	// MXNet's slope is per channel, [C]; ONNX broadcasts from the right, so over NCHW it needs [C,1,1].
	dims := []int64{xs[1]}
	for range len(xs) - 2 {
		dims = append(dims, 1)
	}
	c.init(onnxpb.FloatTensor(name, dims, a.Data))
	c.add(i, n, "PRelu", []string{x, name}, xs)
	return nil
}

func (c *converter) pooling(i int, n symNode) error {
	global, err := boolean(n.Attrs, "global_pool", false)
	if err != nil {
		return err
	}
	if t := n.Attrs["pool_type"]; !global || t != "avg" {
		return fmt.Errorf("pool_type %q, global_pool %v: only global average pooling is supported", t, global)
	}
	x, xs, err := c.data(n, 0)
	if err != nil {
		return err
	}
	if len(xs) != 4 {
		return fmt.Errorf("input %v: want NCHW", xs)
	}
	c.add(i, n, "GlobalAveragePool", []string{x}, []int64{xs[0], xs[1], 1, 1})
	return nil
}

func (c *converter) fullyConnected(i int, n symNode) error {
	x, xs, err := c.data(n, 0)
	if err != nil {
		return err
	}
	if len(xs) != 2 {
		return fmt.Errorf("input %v: only 2-D input is supported (add a Flatten)", xs)
	}
	hidden, err := integer(n.Attrs, "num_hidden", -1)
	if err != nil {
		return err
	}
	noBias, err := boolean(n.Attrs, "no_bias", false)
	if err != nil {
		return err
	}
	w, err := c.weight(n, 1, hidden, xs[1])
	if err != nil {
		return err
	}
	inputs := []string{x, w}
	if !noBias {
		b, err := c.weight(n, 2, hidden)
		if err != nil {
			return err
		}
		inputs = append(inputs, b)
	}
	// MXNet stores the weight as [hidden, in]: y = x·Wᵀ + b.
	c.add(i, n, "Gemm", inputs, []int64{xs[0], hidden}, onnxpb.IntAttr("transB", 1))
	return nil
}

func (c *converter) unary(i int, n symNode, op string) error {
	x, xs, err := c.data(n, 0)
	if err != nil {
		return err
	}
	c.add(i, n, op, []string{x}, xs)
	return nil
}

// add appends the ONNX node for layer i; its output tensor is named after the layer.
func (c *converter) add(i int, n symNode, op string, inputs []string, shape []int64, attrs ...onnxpb.Attr) {
	c.graph.Nodes = append(c.graph.Nodes, onnxpb.Node{
		Name: n.Name, OpType: op, Inputs: inputs, Outputs: []string{n.Name}, Attrs: attrs,
	})
	c.shapes[i] = shape
}

func (c *converter) init(t onnxpb.Tensor) {
	if !c.emitted[t.Name] {
		c.emitted[t.Name] = true
		c.graph.Initializers = append(c.graph.Initializers, t)
	}
}

// data resolves input k of n to a computed tensor (a layer's first output or the network input).
func (c *converter) data(n symNode, k int) (string, []int64, error) {
	src, err := c.source(n, k)
	if err != nil {
		return "", nil, err
	}
	shape, ok := c.shapes[src]
	if !ok {
		return "", nil, fmt.Errorf("input %d (%q) is a stored parameter, not data", k, c.nodes[src].Name)
	}
	return c.nodes[src].Name, shape, nil
}

// param resolves input k of n to a stored parameter; the caller decides how it enters the graph.
func (c *converter) param(n symNode, k int) (string, *NDArray, error) {
	src, err := c.source(n, k)
	if err != nil {
		return "", nil, err
	}
	stored, ok := c.weights[src]
	if !ok {
		return "", nil, fmt.Errorf("input %d (%q) has no value in the params file", k, c.nodes[src].Name)
	}
	return c.nodes[src].Name, c.params[stored], nil
}

// weight puts input k of n into the graph unchanged, after checking its shape.
func (c *converter) weight(n symNode, k int, shape ...int64) (string, error) {
	name, a, err := c.param(n, k)
	if err != nil {
		return "", err
	}
	if err := wantShape(name, a.Shape, shape...); err != nil {
		return "", err
	}
	c.init(onnxpb.FloatTensor(name, a.Shape, a.Data))
	return name, nil
}

func (c *converter) source(n symNode, k int) (int, error) {
	if k >= len(n.Inputs) || len(n.Inputs[k]) < 2 {
		return 0, fmt.Errorf("has %d inputs, input %d is needed", len(n.Inputs), k)
	}
	src, out := n.Inputs[k][0], n.Inputs[k][1]
	if src < 0 || src >= len(c.nodes) {
		return 0, fmt.Errorf("input %d refers to node %d of %d", k, src, len(c.nodes))
	}
	// Only BatchNorm has further outputs (its batch statistics), which inference never reads.
	if out != 0 {
		return 0, fmt.Errorf("input %d reads output %d of %q: only first outputs are supported", k, out, c.nodes[src].Name)
	}
	return src, nil
}

func wantShape(name string, got []int64, want ...int64) error {
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = got[i] == want[i]
	}
	if !ok {
		return fmt.Errorf("parameter %s has shape %v, the layer needs %v", name, got, want)
	}
	return nil
}

func valueInfo(name string, shape []int64) onnxpb.ValueInfo {
	dims := make([]onnxpb.Dim, len(shape))
	for i, d := range shape {
		if d < 0 {
			dims[i] = onnxpb.Dim{Param: batchDim}
		} else {
			dims[i] = onnxpb.Dim{Value: d}
		}
	}
	return onnxpb.ValueInfo{Name: name, ElemType: onnxpb.Float, Shape: dims}
}

// Attribute values are Python reprs: "(3, 3)", "True", "2e-05".

func tuple(attrs map[string]string, key string, def []int64) ([]int64, error) {
	s, ok := attrs[key]
	if !ok {
		if def == nil {
			return nil, fmt.Errorf("attribute %s is missing", key)
		}
		return def, nil
	}
	var v []int64
	for _, f := range strings.Split(strings.Trim(s, "()[] "), ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		x, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("attribute %s=%q: %w", key, s, err)
		}
		v = append(v, x)
	}
	return v, nil
}

func integer(attrs map[string]string, key string, def int64) (int64, error) {
	s, ok := attrs[key]
	if !ok {
		if def < 0 {
			return 0, fmt.Errorf("attribute %s is missing", key)
		}
		return def, nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("attribute %s=%q: %w", key, s, err)
	}
	return v, nil
}

func float(attrs map[string]string, key string, def float64) (float64, error) {
	s, ok := attrs[key]
	if !ok {
		return def, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("attribute %s=%q: %w", key, s, err)
	}
	return v, nil
}

func boolean(attrs map[string]string, key string, def bool) (bool, error) {
	s, ok := attrs[key]
	if !ok {
		return def, nil
	}
	switch strings.ToLower(s) {
	case "true", "1":
		return true, nil
	case "false", "0":
		return false, nil
	}
	return false, fmt.Errorf("attribute %s=%q is not a boolean", key, s)
}
