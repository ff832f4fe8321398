package attributes

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/hensachi/hensachi/face/attr"
	"gonum.org/v1/gonum/mat"
)

// DefaultNetwork is the configuration training starts from; cross-validation picks Dropout.
var DefaultNetwork = attr.NetworkConfig{Hidden: 128, Epochs: 20, Batch: 128, LearningRate: 1e-3, WeightDecay: 1e-3, Seed: 1}

// Target is what a network is trained to output for one face: gender always, age where known.
type Target struct {
	Male   bool
	Age    float64
	HasAge bool
}

// FitNetwork trains a network on feature vectors: the mean of the gender log loss and of a Huber
// loss on the age in decades (squared within ten years, linear beyond, so that a few mislabelled
// ages do not dominate), with Adam.
func FitNetwork(x [][]float64, y []Target, cfg attr.NetworkConfig) (*attr.Network, error) {
	if len(x) == 0 || len(x) != len(y) {
		return nil, fmt.Errorf("network: %d rows and %d targets", len(x), len(y))
	}
	n, d, h := len(x), len(x[0]), cfg.Hidden
	net := &attr.Network{Standardizer: newStandardizer(x), Hidden: h}
	z := make([][]float64, n)
	for i := range x {
		z[i] = net.Apply(x[i])
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(n)))
	w1, w2 := mat.NewDense(d, h, nil), mat.NewDense(h, attr.NumOutputs, nil)
	b1, b2 := make([]float64, h), initialOutputs(y)
	he := math.Sqrt(2 / float64(d))
	for i := range d {
		for j := range h {
			w1.Set(i, j, rng.NormFloat64()*he)
		}
	}
	for j := range h {
		for k := range attr.NumOutputs {
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
	b := make([]float64, attr.NumOutputs)
	b[attr.OutMaleLogit] = math.Log(share / (1 - share))
	if ages > 0 {
		b[attr.OutAgeDecades] = sum / ages / 10
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
	g := mat.NewDense(len(rows), attr.NumOutputs, nil)
	scale := 1 / float64(len(rows))
	for r, i := range rows {
		t := 0.0
		if y[i].Male {
			t = 1
		}
		g.Set(r, attr.OutMaleLogit, (attr.Sigmoid(out.At(r, attr.OutMaleLogit))-t)*scale)
		if y[i].HasAge {
			e := out.At(r, attr.OutAgeDecades) - y[i].Age/10
			g.Set(r, attr.OutAgeDecades, math.Max(-1, math.Min(1, e))*scale)
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

func toWeights(v []float64) attr.Weights {
	w := make(attr.Weights, len(v))
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
