package mxnet

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	onnxruntime "github.com/yalue/onnxruntime_go"

	"github.com/hensachi/hensachi/cmd/assemble-models/internal/onnxpb"
	"github.com/hensachi/hensachi/face/ort"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

const side = 112

// TestConvertGenderAge converts the InsightFace gender-age checkpoint and runs it next to the
// independently converted reference model staged in shared/ (numpy + onnx.helper): both must
// compute the same fc1 on the same images.
func TestConvertGenderAge(t *testing.T) {
	src := testenv.Shared(t, "models/src/insightface-genderage-2018")
	reference := testenv.Shared(t, "models/genderage_insightface2018_112.onnx")
	if err := ort.Init(testenv.ONNXRuntime(t)); err != nil {
		t.Fatal(err)
	}
	symbolJSON, err := os.ReadFile(filepath.Join(src, "model-symbol.json"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(src, "model-0000.params"))
	if err != nil {
		t.Fatal(err)
	}
	params, err := ParseParams(raw)
	if err != nil {
		t.Fatal(err)
	}
	model, err := Convert(symbolJSON, params, Options{InputShape: []int64{3, side, side}})
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]int{}
	for _, n := range model.Graph.Nodes {
		ops[n.OpType]++
	}
	want := map[string]int{"Sub": 1, "Mul": 1, "Conv": 27, "BatchNormalization": 29, "Relu": 27, "PRelu": 1,
		"GlobalAveragePool": 1, "Flatten": 1, "Gemm": 1}
	for op, n := range want {
		if ops[op] != n {
			t.Errorf("%d %s nodes, want %d (all: %v)", ops[op], op, n, ops)
		}
	}
	onnx := model.Marshal()

	in, out, err := onnxruntime.GetInputOutputInfoWithONNXData(onnx)
	if err != nil {
		t.Fatal(err)
	}
	if len(in) != 1 || in[0].Name != "data" || in[0].Dimensions.String() != "[-1 3 112 112]" ||
		len(out) != 1 || out[0].Name != "fc1" || out[0].Dimensions.String() != "[-1 202]" {
		t.Fatalf("inputs %v, outputs %v; want data [-1 3 112 112] and fc1 [-1 202]", in, out)
	}

	images := testImages()
	ours := run(t, func() (*onnxruntime.DynamicAdvancedSession, error) {
		return onnxruntime.NewDynamicAdvancedSessionWithONNXData(onnx, []string{"data"}, []string{"fc1"}, nil)
	}, images)
	theirs := run(t, func() (*onnxruntime.DynamicAdvancedSession, error) {
		return onnxruntime.NewDynamicAdvancedSession(reference, []string{"data"}, []string{"fc1"}, nil)
	}, images)

	var maxDiff, maxAbs float64
	for i := range ours {
		maxDiff = max(maxDiff, math.Abs(float64(ours[i]-theirs[i])))
		maxAbs = max(maxAbs, math.Abs(float64(theirs[i])))
	}
	t.Logf("fc1 over %d images: max |ours − reference| = %.3g (largest |fc1| %.3g)", len(images), maxDiff, maxAbs)
	if maxDiff >= 1e-3 {
		t.Errorf("max abs difference %.3g, want < 1e-3", maxDiff)
	}
	// Noise and constant images still have to give a valid decoding: the difference check alone would
	// pass two models that both output zeros.
	if maxAbs < 1 {
		t.Errorf("largest |fc1| is %.3g: the model computes nothing", maxAbs)
	}
}

// testImages returns deterministic 112×112 RGB images in 0..255: uniform noise, smooth gradients and
// constant images (black, mid-grey, white).
func testImages() [][]float32 {
	rng := rand.New(rand.NewPCG(1, 2))
	var images [][]float32
	for range 4 {
		img := make([]float32, 3*side*side)
		for i := range img {
			img[i] = float32(rng.IntN(256))
		}
		images = append(images, img)
	}
	for k := range 2 {
		img := make([]float32, 3*side*side)
		for c := range 3 {
			for y := range side {
				for x := range side {
					img[(c*side+y)*side+x] = float32((x*(c+1+k) + y*(3-c)) % 256)
				}
			}
		}
		images = append(images, img)
	}
	for _, v := range []float32{0, 128, 255} {
		img := make([]float32, 3*side*side)
		for i := range img {
			img[i] = v
		}
		images = append(images, img)
	}
	return images
}

// run feeds all images as one batch, which also exercises the dynamic batch dimension.
func run(t *testing.T, open func() (*onnxruntime.DynamicAdvancedSession, error), images [][]float32) []float32 {
	t.Helper()
	s, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	batch := make([]float32, 0, len(images)*3*side*side)
	for _, img := range images {
		batch = append(batch, img...)
	}
	input, err := onnxruntime.NewTensor(onnxruntime.NewShape(int64(len(images)), 3, side, side), batch)
	if err != nil {
		t.Fatal(err)
	}
	defer input.Destroy()
	outputs := []onnxruntime.Value{nil}
	if err := s.Run([]onnxruntime.Value{input}, outputs); err != nil {
		t.Fatal(err)
	}
	defer outputs[0].Destroy()
	fc1 := outputs[0].(*onnxruntime.Tensor[float32])
	if got := fc1.GetShape().String(); got != onnxruntime.NewShape(int64(len(images)), 202).String() {
		t.Fatalf("fc1 shape %s", got)
	}
	return append([]float32(nil), fc1.GetData()...)
}

func TestConvertRejectsUnsupported(t *testing.T) {
	params := Params{"arg:w": {Shape: []int64{2, 3, 1, 1}, Data: make([]float32, 6)}}
	for _, tc := range []struct{ name, symbol, want string }{
		{"operator", `{"nodes":[{"op":"null","name":"data","inputs":[]},{"op":"SoftmaxOutput","name":"s","inputs":[[0,0,0]]}],"heads":[[1,0,0]]}`,
			"operator SoftmaxOutput is not supported"},
		{"activation", `{"nodes":[{"op":"null","name":"data","inputs":[]},{"op":"Activation","name":"a","attrs":{"act_type":"tanh"},"inputs":[[0,0,0]]}],"heads":[[1,0,0]]}`,
			`act_type "tanh"`},
		{"pooling", `{"nodes":[{"op":"null","name":"data","inputs":[]},{"op":"Pooling","name":"p","attrs":{"pool_type":"max","kernel":"(2, 2)"},"inputs":[[0,0,0]]}],"heads":[[1,0,0]]}`,
			"only global average pooling"},
		{"weight shape", `{"nodes":[{"op":"null","name":"data","inputs":[]},{"op":"null","name":"w","inputs":[]},{"op":"Convolution","name":"c","attrs":{"kernel":"(1, 1)","num_filter":"4","no_bias":"True"},"inputs":[[0,0,0],[1,0,0]]}],"heads":[[2,0,0]]}`,
			"parameter w has shape [2 3 1 1], the layer needs [4 3 1 1]"},
		{"second input", `{"nodes":[{"op":"null","name":"data","inputs":[]},{"op":"null","name":"v","inputs":[]},{"op":"Convolution","name":"c","attrs":{"kernel":"(1, 1)","num_filter":"2","no_bias":"True"},"inputs":[[0,0,0],[1,0,0]]}],"heads":[[2,0,0]]}`,
			"only one input is supported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Convert([]byte(tc.symbol), params, Options{InputShape: []int64{3, 8, 8}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestConvertSmall checks the graph built for a tiny network with one layer of each supported kind.
func TestConvertSmall(t *testing.T) {
	ones := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = 1
		}
		return v
	}
	params := Params{
		"arg:c_weight":      {Shape: []int64{4, 1, 3, 3}, Data: ones(36)},
		"arg:b_gamma":       {Shape: []int64{4}, Data: []float32{9, 9, 9, 9}},
		"arg:b_beta":        {Shape: []int64{4}, Data: ones(4)},
		"aux:b_moving_mean": {Shape: []int64{4}, Data: ones(4)},
		"aux:b_moving_var":  {Shape: []int64{4}, Data: ones(4)},
		"arg:p_gamma":       {Shape: []int64{4}, Data: ones(4)},
		"arg:f_weight":      {Shape: []int64{5, 4}, Data: ones(20)},
		"arg:f_bias":        {Shape: []int64{5}, Data: ones(5)},
	}
	symbol := `{"nodes":[
		{"op":"null","name":"data","inputs":[]},
		{"op":"_minus_scalar","name":"m","attrs":{"scalar":"127.5"},"inputs":[[0,0,0]]},
		{"op":"null","name":"c_weight","inputs":[]},
		{"op":"Convolution","name":"c","attrs":{"kernel":"(3, 3)","stride":"(2, 2)","pad":"(1, 1)","num_filter":"4","num_group":"2","no_bias":"True"},"inputs":[[1,0,0],[2,0,0]]},
		{"op":"null","name":"b_gamma","inputs":[]},
		{"op":"null","name":"b_beta","inputs":[]},
		{"op":"null","name":"b_moving_mean","inputs":[]},
		{"op":"null","name":"b_moving_var","inputs":[]},
		{"op":"BatchNorm","name":"b","inputs":[[3,0,0],[4,0,0],[5,0,0],[6,0,1],[7,0,1]]},
		{"op":"null","name":"p_gamma","inputs":[]},
		{"op":"LeakyReLU","name":"p","attrs":{"act_type":"prelu"},"inputs":[[8,0,0],[9,0,0]]},
		{"op":"Pooling","name":"g","attrs":{"global_pool":"True","pool_type":"avg","kernel":"(7, 7)"},"inputs":[[10,0,0]]},
		{"op":"Flatten","name":"fl","inputs":[[11,0,0]]},
		{"op":"null","name":"f_weight","inputs":[]},
		{"op":"null","name":"f_bias","inputs":[]},
		{"op":"FullyConnected","name":"f","attrs":{"num_hidden":"5"},"inputs":[[12,0,0],[13,0,0],[14,0,0]]}
	],"heads":[[15,0,0]]}`
	m, err := Convert([]byte(symbol), params, Options{InputShape: []int64{2, 9, 9}, GraphName: "small"})
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, n := range m.Graph.Nodes {
		ops = append(ops, n.OpType)
	}
	if got := strings.Join(ops, " "); got != "Sub Conv BatchNormalization PRelu GlobalAveragePool Flatten Gemm" {
		t.Errorf("ops %s", got)
	}
	conv := m.Graph.Nodes[1]
	if len(conv.Attrs) != 5 || conv.Attrs[2].Name != "pads" || len(conv.Attrs[2].Ints) != 4 || conv.Attrs[4].I != 2 {
		t.Errorf("conv attributes %+v", conv.Attrs)
	}
	bn := m.Graph.Nodes[2]
	if bn.Inputs[1] != "b_gamma_fixed" || bn.Attrs[0].F != 1e-3 {
		t.Errorf("batch norm %+v: want the fixed gamma and MXNet's default eps 1e-3", bn)
	}
	inits := map[string]onnxpb.Tensor{}
	for _, in := range m.Graph.Initializers {
		inits[in.Name] = in
	}
	if _, ok := inits["b_gamma"]; ok {
		t.Error("the unused stored gamma is in the graph")
	}
	if d := inits["p_gamma"].Dims; len(d) != 3 || d[0] != 4 || d[1] != 1 || d[2] != 1 {
		t.Errorf("prelu slope dims %v, want [4 1 1]", d)
	}
	if d := inits["m_scalar"].Dims; len(d) != 0 {
		t.Errorf("scalar dims %v, want a rank-0 tensor", d)
	}
	out := m.Graph.Outputs[0]
	if out.Name != "f" || len(out.Shape) != 2 || out.Shape[0].Param != "N" || out.Shape[1].Value != 5 {
		t.Errorf("output %+v", out)
	}
}
