package attr

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
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

// The network's outputs, in the order of B2 and of W2's columns.
const (
	OutMaleLogit = iota
	OutAgeDecades
	NumOutputs
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
		len(n.B1) != n.Hidden || len(n.W2) != n.Hidden*NumOutputs || len(n.B2) != NumOutputs {
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
	var out [NumOutputs]float64
	for k, b := range n.B2 {
		out[k] = float64(b)
	}
	for j, h := range hidden {
		if h <= 0 {
			continue
		}
		for k := range NumOutputs {
			out[k] += h * float64(n.W2[j*NumOutputs+k])
		}
	}
	return out[OutMaleLogit], 10 * out[OutAgeDecades]
}

// NetworkConfig is how a network is trained (training/attributes.FitNetwork). Training is
// deterministic: the initial weights, the order of the faces and the dropout masks come from one
// seeded generator.
type NetworkConfig struct {
	Hidden       int     `json:"hidden"`
	Epochs       int     `json:"epochs"`
	Batch        int     `json:"batch"`
	LearningRate float64 `json:"learning_rate"` // Adam's step at the start, lowered to 0 along a cosine
	WeightDecay  float64 `json:"weight_decay"`  // decoupled (AdamW), per step relative to the learning rate
	Dropout      float64 `json:"dropout"`       // share of the input features zeroed per face and step
	Seed         uint64  `json:"seed"`
}
