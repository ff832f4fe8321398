package tfjs

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"maps"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	onnxruntime "github.com/yalue/onnxruntime_go"

	"github.com/hensachi/hensachi/face/ort"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

// graphBuilder writes a graph model the way the TensorFlow.js converter does: nodes with
// protobuf-JSON attributes, and one weight file described by the manifest.
type graphBuilder struct {
	nodes   []map[string]any
	weights []map[string]any
	bin     []byte
	rng     *rand.Rand
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func ints(v ...int) map[string]any {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return map[string]any{"list": map[string]any{"i": s}}
}

func (g *graphBuilder) node(name, op string, inputs []string, attr map[string]any) string {
	n := map[string]any{"name": name, "op": op, "attr": attr}
	if inputs != nil {
		n["input"] = inputs
	}
	g.nodes = append(g.nodes, n)
	return name
}

// constant adds a random weight, stored as float16 when half is set (as quantised models are).
func (g *graphBuilder) constant(name string, half bool, shape ...int) string {
	n := 1
	for _, d := range shape {
		n *= d
	}
	spec := map[string]any{"name": name, "shape": shape, "dtype": "float32"}
	if half {
		spec["quantization"] = map[string]any{"dtype": "float16", "original_dtype": "float32"}
	}
	for range n {
		v := float32(g.rng.NormFloat64() * 0.5)
		if half {
			g.bin = binary.LittleEndian.AppendUint16(g.bin, floatToHalf(v))
		} else {
			g.bin = binary.LittleEndian.AppendUint32(g.bin, math.Float32bits(v))
		}
	}
	g.weights = append(g.weights, spec)
	return g.node(name, "Const", nil, map[string]any{"dtype": map[string]any{"type": "DT_FLOAT"}})
}

// floatToHalf narrows a normal float32 of moderate size to binary16 (truncating the mantissa).
func floatToHalf(v float32) uint16 {
	b := math.Float32bits(v)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23&0xff) - 127 + 15
	if exp <= 0 {
		return sign
	}
	return sign | uint16(exp)<<10 | uint16(b>>13&0x3ff)
}

func (g *graphBuilder) axes(name string, v ...int32) string {
	g.weights = append(g.weights, map[string]any{"name": name, "shape": []int{len(v)}, "dtype": "int32"})
	for _, x := range v {
		g.bin = binary.LittleEndian.AppendUint32(g.bin, uint32(x))
	}
	return g.node(name, "Const", nil, map[string]any{"dtype": map[string]any{"type": "DT_INT32"}})
}

func (g *graphBuilder) json() []byte {
	b, err := json.Marshal(map[string]any{
		"format":          "graph-model",
		"modelTopology":   map[string]any{"node": g.nodes},
		"weightsManifest": []any{map[string]any{"paths": []string{"w.bin"}, "weights": g.weights}},
	})
	if err != nil {
		panic(err)
	}
	return b
}

// testGraph is a small network with every supported operator: a strided SAME convolution and a
// VALID one, folded batch normalisation, ReLU6, a depthwise convolution with a multiplier, global
// pooling and dense layers with their fused bias and ReLU, and two heads.
func testGraph() *graphBuilder {
	g := &graphBuilder{rng: rand.New(rand.NewPCG(7, 8))}
	conv := map[string]any{"strides": ints(1, 2, 2, 1), "padding": map[string]any{"s": b64("SAME")},
		"data_format": map[string]any{"s": b64("NHWC")}, "dilations": ints(1, 1, 1, 1)}
	dense := func(relu bool) map[string]any {
		ops := []string{b64("BiasAdd")}
		if relu {
			ops = append(ops, b64("Relu"))
		}
		return map[string]any{"fused_ops": map[string]any{"list": map[string]any{"s": ops}}, "transpose_a": map[string]any{"b": false}}
	}
	x := g.node("input_1", "Placeholder", nil, map[string]any{"dtype": map[string]any{"type": "DT_FLOAT"}})
	x = g.node("conv1", "Conv2D", []string{x, g.constant("conv1/w", false, 3, 3, 3, 4)}, conv)
	x = g.node("bn/mul", "Mul", []string{x, g.constant("bn/scale", true, 4)}, nil)
	x = g.node("bn/add", "Add", []string{g.constant("bn/shift", false, 4), x}, nil) // constant first
	x = g.node("relu", "Relu", []string{x}, nil)
	x = g.node("relu6/min", "Minimum", []string{x, g.constant("six", false)}, nil)
	x = g.node("relu6", "Maximum", []string{x, g.constant("zero", false)}, nil)
	dw := map[string]any{"strides": ints(1, 1, 1, 1), "padding": map[string]any{"s": b64("SAME")}}
	x = g.node("dw", "DepthwiseConv2dNative", []string{x, g.constant("dw/w", false, 3, 3, 4, 2)}, dw)
	valid := map[string]any{"strides": ints(1, 1, 1, 1), "padding": map[string]any{"s": b64("VALID")}}
	x = g.node("pw", "Conv2D", []string{x, g.constant("pw/w", true, 2, 2, 8, 5)}, valid)
	x = g.node("floor", "Maximum", []string{x, g.constant("floor/v", false)}, nil) // no Relu before it: not fused
	x = g.node("pool", "Mean", []string{x, g.axes("pool/axes", 1, 2)}, map[string]any{"keep_dims": map[string]any{"b": false}})
	x = g.node("pool/scale", "Mul", []string{x, g.constant("pool/scale/v", false, 5)}, nil)
	x = g.node("id", "Identity", []string{x}, nil)
	x = g.node("feats", "_FusedMatMul", []string{x, g.constant("feats/w", false, 5, 6), g.constant("feats/b", false, 6)}, dense(true))
	a := g.node("age/logits", "_FusedMatMul", []string{x, g.constant("age/w", false, 6, 3), g.constant("age/b", false, 3)}, dense(false))
	g.node("age", "Softmax", []string{a}, nil)
	m := g.node("male/logit", "_FusedMatMul", []string{x, g.constant("male/w", false, 6, 1), g.constant("male/b", false, 1)}, dense(false))
	g.node("male", "Sigmoid", []string{m}, nil)
	return g
}

// reference computes testGraph's outputs directly from the TensorFlow definitions, on NHWC.
func reference(m *Model, img []float32, h, w int) (feats, age, male []float32) {
	W := func(name string) []float32 { return m.Weights[name].Data }
	type act struct {
		v       []float32
		h, w, c int
	}
	at := func(a act, y, x, c int) float32 {
		if y < 0 || x < 0 || y >= a.h || x >= a.w {
			return 0
		}
		return a.v[(y*a.w+x)*a.c+c]
	}
	// conv computes Conv2D (mult 0) or a depthwise convolution with a multiplier.
	conv := func(a act, k []float32, kh, kw, cout, stride int, same bool, mult int) act {
		oh, ow, padT, padL := (a.h-kh)/stride+1, (a.w-kw)/stride+1, 0, 0
		if same {
			oh, ow = (a.h+stride-1)/stride, (a.w+stride-1)/stride
			padT, padL = max((oh-1)*stride+kh-a.h, 0)/2, max((ow-1)*stride+kw-a.w, 0)/2
		}
		if mult > 0 {
			cout = a.c * mult
		}
		out := act{make([]float32, oh*ow*cout), oh, ow, cout}
		for y := range oh {
			for x := range ow {
				for o := range cout {
					var s float64
					for dy := range kh {
						for dx := range kw {
							iy, ix := y*stride+dy-padT, x*stride+dx-padL
							if mult > 0 {
								ch, mm := o/mult, o%mult
								s += float64(at(a, iy, ix, ch)) * float64(k[((dy*kw+dx)*a.c+ch)*mult+mm])
								continue
							}
							for i := range a.c {
								s += float64(at(a, iy, ix, i)) * float64(k[((dy*kw+dx)*a.c+i)*cout+o])
							}
						}
					}
					out.v[(y*ow+x)*cout+o] = float32(s)
				}
			}
		}
		return out
	}
	a := conv(act{img, h, w, 3}, W("conv1/w"), 3, 3, 4, 2, true, 0)
	for i := range a.v {
		c := i % 4
		v := W("bn/shift")[c] + a.v[i]*W("bn/scale")[c]
		a.v[i] = float32(math.Max(0, math.Min(float64(W("six")[0]), math.Max(float64(W("zero")[0]), float64(v)))))
	}
	a = conv(a, W("dw/w"), 3, 3, 0, 1, true, 2)
	a = conv(a, W("pw/w"), 2, 2, 5, 1, false, 0)
	for i, v := range a.v {
		a.v[i] = max(v, W("floor/v")[0])
	}
	pool := make([]float64, a.c)
	for i, v := range a.v {
		pool[i%a.c] += float64(v) / float64(a.h*a.w)
	}
	for i := range pool {
		pool[i] = float64(float32(pool[i]) * W("pool/scale/v")[i])
	}
	matmul := func(x []float64, w, b []float32, out int) []float64 {
		y := make([]float64, out)
		for o := range out {
			y[o] = float64(b[o])
			for i, v := range x {
				y[o] += v * float64(w[i*out+o])
			}
		}
		return y
	}
	f := matmul(pool, W("feats/w"), W("feats/b"), 6)
	for i := range f {
		f[i] = math.Max(0, f[i])
		feats = append(feats, float32(f[i]))
	}
	logits := matmul(f, W("age/w"), W("age/b"), 3)
	sum := 0.0
	for _, l := range logits {
		sum += math.Exp(l)
	}
	for _, l := range logits {
		age = append(age, float32(math.Exp(l)/sum))
	}
	l := matmul(f, W("male/w"), W("male/b"), 1)[0]
	return feats, age, []float32{float32(1 / (1 + math.Exp(-l)))}
}

// TestConvert runs the converted test graph in ONNX Runtime, on NCHW input, against the same
// network computed from TensorFlow's definitions on NHWC input.
func TestConvert(t *testing.T) {
	if err := ort.Init(testenv.ONNXRuntime(t)); err != nil {
		t.Fatal(err)
	}
	g := testGraph()
	m, err := Parse(g.json(), map[string][]byte{"w.bin": g.bin})
	if err != nil {
		t.Fatal(err)
	}
	outputs := []string{"feats", "age", "male"}
	model, err := Convert(m, Options{Input: "input_1", Outputs: outputs, GraphName: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]int{}
	for _, n := range model.Graph.Nodes {
		ops[n.OpType]++
	}
	// conv1's batch normalisation is folded into it and its ReLU6 is one Clip; the Maximum without a
	// ReLU before it and the Mul after pooling stay
	want := map[string]int{"Conv": 3, "Clip": 1, "Max": 1, "Mul": 1, "ReduceMean": 1, "Gemm": 3, "Relu": 1, "Softmax": 1, "Sigmoid": 1}
	if !maps.Equal(ops, want) {
		t.Errorf("operators %v, want %v", ops, want)
	}
	s, err := onnxruntime.NewDynamicAdvancedSessionWithONNXData(model.Marshal(), []string{"input"}, outputs, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range [][2]int{{9, 9}, {8, 11}} { // odd sizes put SAME's extra pixel at the end
		h, w := size[0], size[1]
		nhwc, nchw := make([]float32, h*w*3), make([]float32, h*w*3)
		for y := range h {
			for x := range w {
				for c := range 3 {
					v := float32(rng.Float64() * 2)
					nhwc[(y*w+x)*3+c], nchw[(c*h+y)*w+x] = v, v
				}
			}
		}
		in, err := onnxruntime.NewTensor(onnxruntime.NewShape(1, 3, int64(h), int64(w)), nchw)
		if err != nil {
			t.Fatal(err)
		}
		outs := make([]onnxruntime.Value, 3)
		if err := s.Run([]onnxruntime.Value{in}, outs); err != nil {
			t.Fatal(err)
		}
		feats, age, male := reference(m, nhwc, h, w)
		for i, want := range [][]float32{feats, age, male} {
			got := outs[i].(*onnxruntime.Tensor[float32]).GetData()
			if len(got) != len(want) {
				t.Fatalf("%d×%d: %s has %d values, want %d", h, w, outputs[i], len(got), len(want))
			}
			for j := range got {
				if math.Abs(float64(got[j]-want[j])) > 1e-4*math.Max(1, math.Abs(float64(want[j]))) {
					t.Errorf("%d×%d: %s[%d] = %v, want %v", h, w, outputs[i], j, got[j], want[j])
				}
			}
			outs[i].Destroy()
		}
		in.Destroy()
	}
}

func TestHalfToFloat(t *testing.T) {
	for _, c := range []struct {
		h    uint16
		want float32
	}{{0x3c00, 1}, {0xc000, -2}, {0x3555, 0.33325195}, {0x0001, 5.9604645e-08}, {0x8000, 0}, {0x7bff, 65504}} {
		if got := halfToFloat(c.h); got != c.want {
			t.Errorf("halfToFloat(%#04x) = %v, want %v", c.h, got, c.want)
		}
	}
	if !math.IsInf(float64(halfToFloat(0x7c00)), 1) || !math.IsNaN(float64(halfToFloat(0x7e00))) {
		t.Error("infinity or NaN not kept")
	}
}

func TestParseErrors(t *testing.T) {
	g := testGraph()
	for _, c := range []struct {
		name  string
		json  []byte
		files map[string][]byte
		want  string
	}{
		{"not json", []byte("{"), nil, "unexpected end"},
		{"layers model", []byte(`{"format":"layers-model"}`), nil, "want graph-model"},
		{"missing weights", g.json(), nil, "weight file w.bin is missing"},
		{"short weights", g.json(), map[string][]byte{"w.bin": g.bin[:len(g.bin)-1]}, "are left"},
		{"extra weights", g.json(), map[string][]byte{"w.bin": append(g.bin, 0)}, "not described by the manifest"},
		{"bad dtype", []byte(`{"format":"graph-model","weightsManifest":[{"paths":["w.bin"],"weights":[{"name":"x","shape":[1],"dtype":"string"}]}]}`),
			map[string][]byte{"w.bin": {0, 0, 0, 0}}, `dtype "string"`},
		{"huge shape", []byte(`{"format":"graph-model","weightsManifest":[{"paths":["w.bin"],"weights":[{"name":"x","shape":[65536,65536,65536],"dtype":"float32"}]}]}`),
			map[string][]byte{"w.bin": {}}, "shape"},
	} {
		if _, err := Parse(c.json, c.files); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want one saying %q", c.name, err, c.want)
		}
	}
}

func TestConvertErrors(t *testing.T) {
	parse := func(edit func(g *graphBuilder)) *Model {
		g := testGraph()
		edit(g)
		m, err := Parse(g.json(), map[string][]byte{"w.bin": g.bin})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	opt := Options{Input: "input_1", Outputs: []string{"male"}}
	for _, c := range []struct {
		name string
		edit func(g *graphBuilder)
		opt  Options
		want string
	}{
		{"unknown op", func(g *graphBuilder) { g.nodes[len(g.nodes)-1]["op"] = "Tanh" }, opt, `node "male" (Tanh): unsupported operator`},
		{"NCHW conv", func(g *graphBuilder) {
			g.nodes[2]["attr"].(map[string]any)["data_format"] = map[string]any{"s": b64("NCHW")}
		}, opt, "only NHWC"},
		{"no input", func(*graphBuilder) {}, Options{Input: "conv1", Outputs: []string{"male"}}, "not a Placeholder"},
		{"unknown output", func(*graphBuilder) {}, Options{Input: "input_1", Outputs: []string{"nothing"}}, "not a computed node"},
	} {
		if _, err := Convert(parse(c.edit), c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want one saying %q", c.name, err, c.want)
		}
	}
}

// FuzzParseConvert: whatever the model JSON and weight file hold, reading and converting them
// ends in a model or an error, never a panic.
func FuzzParseConvert(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	g := testGraph()
	f.Add(g.json(), g.bin)
	f.Add([]byte(`{"format":"graph-model","modelTopology":{"node":[{"name":"x","op":"Placeholder"},{"name":"k","op":"Const"},{"name":"c","op":"Conv2D","input":["x","k"]}]},"weightsManifest":[{"paths":["w.bin"],"weights":[{"name":"k","shape":[0,1,1,1],"dtype":"float32"}]}]}`), []byte{})
	f.Fuzz(func(t *testing.T, js, bin []byte) {
		m, err := Parse(js, map[string][]byte{"w.bin": bin})
		if err != nil {
			return
		}
		Convert(m, Options{Input: "input_1", Outputs: []string{"male"}})
		Convert(m, Options{Input: "x", Outputs: []string{"c"}})
	})
}
