package attr

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Network is a network of one hidden layer (ReLU) on standardised features with two outputs: the
// logit of P(male) and the age in decades. The outputs share the hidden layer, so the gender
// labels of SCUT-FBP5500, which has no ages, shape the features the age output reads too.
type Network struct {
	Standardizer
	Hidden int     `json:"hidden"`
	W1     Weights `json:"w1"` // features × hidden, row by row
	B1     Weights `json:"b1"`
	W2     Weights `json:"w2"` // hidden × outputs, row by row
	B2     Weights `json:"b2"`
}

// The network's outputs.
const (
	outMaleLogit = iota
	outAgeDecades
	outputs
)

// Weights are stored as little-endian float32 in base64: a hidden layer has about 100,000
// weights, which as JSON numbers would make the file several times larger.
type Weights []float32

// MarshalJSON implements json.Marshaler.
func (w Weights) MarshalJSON() ([]byte, error) {
	b := make([]byte, 4*len(w))
	for i, v := range w {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return json.Marshal(base64.StdEncoding.EncodeToString(b))
}

// UnmarshalJSON implements json.Unmarshaler.
func (w *Weights) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return err
	}
	if len(b)%4 != 0 {
		return fmt.Errorf("weights: %d bytes is not a whole number of float32", len(b))
	}
	*w = make(Weights, len(b)/4)
	for i := range *w {
		(*w)[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return nil
}

// check reports whether the layers fit together for d features.
func (n *Network) check(d int) error {
	if d == 0 || n.Hidden <= 0 || len(n.Mean) != d || len(n.Scale) != d || len(n.W1) != d*n.Hidden ||
		len(n.B1) != n.Hidden || len(n.W2) != n.Hidden*outputs || len(n.B2) != outputs {
		return fmt.Errorf("network: layers do not fit %d features and %d hidden units", d, n.Hidden)
	}
	return nil
}

// Outputs returns the logit of P(male) and the age in years (before calibration) for one
// feature vector.
func (n *Network) Outputs(x []float64) (maleLogit, age float64) {
	hidden := make([]float64, n.Hidden)
	for j, b := range n.B1 {
		hidden[j] = float64(b)
	}
	for i, v := range n.Apply(x) {
		for j, w := range n.W1[i*n.Hidden : (i+1)*n.Hidden] {
			hidden[j] += v * float64(w)
		}
	}
	var out [outputs]float64
	for k, b := range n.B2 {
		out[k] = float64(b)
	}
	for j, h := range hidden {
		if h <= 0 {
			continue
		}
		for k := range outputs {
			out[k] += h * float64(n.W2[j*outputs+k])
		}
	}
	return out[outMaleLogit], 10 * out[outAgeDecades]
}

// NetworkConfig is how a network is trained. Training is deterministic: the initial weights,
// the order of the faces and the dropout masks come from one seeded generator.
type NetworkConfig struct {
	Hidden       int     `json:"hidden"`
	Epochs       int     `json:"epochs"`
	Batch        int     `json:"batch"`
	LearningRate float64 `json:"learning_rate"` // Adam's step at the start, lowered to 0 along a cosine
	WeightDecay  float64 `json:"weight_decay"`  // decoupled (AdamW), per step relative to the learning rate
	Dropout      float64 `json:"dropout"`       // share of the input features zeroed per face and step
	Seed         uint64  `json:"seed"`
}

// DefaultNetwork is the configuration train-attrs starts from; cross-validation picks Dropout.
var DefaultNetwork = NetworkConfig{Hidden: 128, Epochs: 20, Batch: 128, LearningRate: 1e-3, WeightDecay: 1e-3, Seed: 1}

// Target is what a network is trained to output for one face: gender always, age where known.
type Target struct {
	Male   bool
	Age    float64
	HasAge bool
}

// FitNetwork trains a network on feature vectors: the mean of the gender log loss and of a Huber
// loss on the age in decades (squared within ten years, linear beyond, so that a few mislabelled
// ages do not dominate), with Adam.
func FitNetwork(x [][]float64, y []Target, cfg NetworkConfig) (*Network, error) {
	if len(x) == 0 || len(x) != len(y) {
		return nil, fmt.Errorf("network: %d rows and %d targets", len(x), len(y))
	}
	n, d, h := len(x), len(x[0]), cfg.Hidden
	net := &Network{Standardizer: NewStandardizer(x), Hidden: h}
	z := make([][]float64, n)
	for i := range x {
		z[i] = net.Apply(x[i])
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(n)))
	w1, w2 := mat.NewDense(d, h, nil), mat.NewDense(h, outputs, nil)
	b1, b2 := make([]float64, h), initialOutputs(y)
	he := math.Sqrt(2 / float64(d))
	for i := range d {
		for j := range h {
			w1.Set(i, j, rng.NormFloat64()*he)
		}
	}
	for j := range h {
		for k := range outputs {
			w2.Set(j, k, rng.NormFloat64()*math.Sqrt(1/float64(h)))
		}
	}
	var opt [4]adam
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	batch := mat.NewDense(cfg.Batch, d, nil)
	for epoch := range cfg.Epochs {
		rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
		rate := cfg.LearningRate * 0.5 * (1 + math.Cos(math.Pi*float64(epoch)/float64(cfg.Epochs)))
		for start := 0; start < n; start += cfg.Batch {
			rows := order[start:min(start+cfg.Batch, n)]
			xb := batch.Slice(0, len(rows), 0, d).(*mat.Dense)
			for r, i := range rows {
				dropInto(xb.RawRowView(r), z[i], cfg.Dropout, rng)
			}
			hidden, out := forward(xb, w1, b1, w2, b2)
			grad := lossGradient(out, rows, y)
			var gw2, gh, gw1 mat.Dense
			gw2.Mul(hidden.T(), grad)
			gb2 := columnSums(grad)
			gh.Mul(grad, w2.T())
			hr, gr := hidden.RawMatrix(), gh.RawMatrix()
			for r := range len(rows) {
				for j := range h {
					if hr.Data[r*hr.Stride+j] <= 0 {
						gr.Data[r*gr.Stride+j] = 0
					}
				}
			}
			gb1 := columnSums(&gh)
			gw1.Mul(xb.T(), &gh)
			opt[0].step(w1.RawMatrix().Data, gw1.RawMatrix().Data, rate, cfg.WeightDecay)
			opt[1].step(b1, gb1, rate, 0)
			opt[2].step(w2.RawMatrix().Data, gw2.RawMatrix().Data, rate, cfg.WeightDecay)
			opt[3].step(b2, gb2, rate, 0)
		}
	}
	net.W1, net.B1 = toWeights(w1.RawMatrix().Data), toWeights(b1)
	net.W2, net.B2 = toWeights(w2.RawMatrix().Data), toWeights(b2)
	return net, nil
}

// initialOutputs starts the output biases at the training set's log-odds of male and mean age:
// Adam moves a parameter by about the learning rate per step, too slowly to travel decades.
func initialOutputs(y []Target) []float64 {
	var males, ages, sum float64
	for _, t := range y {
		if t.Male {
			males++
		}
		if t.HasAge {
			ages, sum = ages+1, sum+t.Age
		}
	}
	share := (males + 1) / (float64(len(y)) + 2)
	b := make([]float64, outputs)
	b[outMaleLogit] = math.Log(share / (1 - share))
	if ages > 0 {
		b[outAgeDecades] = sum / ages / 10
	}
	return b
}

// dropInto copies z into dst with each feature zeroed with probability p and the others scaled
// by 1/(1 − p) (inverted dropout: nothing changes at prediction time).
func dropInto(dst, z []float64, p float64, rng *rand.Rand) {
	if p == 0 {
		copy(dst, z)
		return
	}
	keep := 1 / (1 - p)
	for j, v := range z {
		if rng.Float64() < p {
			dst[j] = 0
		} else {
			dst[j] = v * keep
		}
	}
}

// forward returns the hidden activations and the outputs of a batch.
func forward(x, w1 *mat.Dense, b1 []float64, w2 *mat.Dense, b2 []float64) (hidden, out *mat.Dense) {
	hidden, out = &mat.Dense{}, &mat.Dense{}
	hidden.Mul(x, w1)
	addBias(hidden, b1, true)
	out.Mul(hidden, w2)
	addBias(out, b2, false)
	return hidden, out
}

func addBias(m *mat.Dense, b []float64, relu bool) {
	raw := m.RawMatrix()
	for r := range raw.Rows {
		row := raw.Data[r*raw.Stride : r*raw.Stride+raw.Cols]
		for j := range row {
			row[j] += b[j]
			if relu && row[j] < 0 {
				row[j] = 0
			}
		}
	}
}

// lossGradient is the gradient of the batch's mean loss with respect to the outputs.
func lossGradient(out *mat.Dense, rows []int, y []Target) *mat.Dense {
	g := mat.NewDense(len(rows), outputs, nil)
	scale := 1 / float64(len(rows))
	for r, i := range rows {
		t := 0.0
		if y[i].Male {
			t = 1
		}
		g.Set(r, outMaleLogit, (sigmoid(out.At(r, outMaleLogit))-t)*scale)
		if y[i].HasAge {
			e := out.At(r, outAgeDecades) - y[i].Age/10
			g.Set(r, outAgeDecades, math.Max(-1, math.Min(1, e))*scale)
		}
	}
	return g
}

func columnSums(m *mat.Dense) []float64 {
	raw := m.RawMatrix()
	s := make([]float64, raw.Cols)
	for r := range raw.Rows {
		for j, v := range raw.Data[r*raw.Stride : r*raw.Stride+raw.Cols] {
			s[j] += v
		}
	}
	return s
}

func toWeights(v []float64) Weights {
	w := make(Weights, len(v))
	for i, x := range v {
		w[i] = float32(x)
	}
	return w
}

// adam is the Adam optimiser's state for one parameter block, with decoupled weight decay.
type adam struct {
	m, v []float64
	t    int
}

func (a *adam) step(p, g []float64, rate, decay float64) {
	const beta1, beta2, eps = 0.9, 0.999, 1e-8
	if a.m == nil {
		a.m, a.v = make([]float64, len(p)), make([]float64, len(p))
	}
	a.t++
	c1, c2 := 1-math.Pow(beta1, float64(a.t)), 1-math.Pow(beta2, float64(a.t))
	for i := range p {
		a.m[i] = beta1*a.m[i] + (1-beta1)*g[i]
		a.v[i] = beta2*a.v[i] + (1-beta2)*g[i]*g[i]
		p[i] -= rate * (a.m[i]/c1/(math.Sqrt(a.v[i]/c2)+eps) + decay*p[i])
	}
}
