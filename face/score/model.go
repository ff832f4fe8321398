package score

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"

	"github.com/hensachi/hensachi/compute"
)

// FormatVersion is the layout of the model file.
const FormatVersion = 1

// Raw scores are on the SCUT-FBP5500 scale; deviation scores are clamped to a documented range.
const (
	MinRaw, MaxRaw           = 1.0, 5.0
	MinHensachi, MaxHensachi = 20.0, 80.0
)

// Model is the attractiveness model file of the bundle.
type Model struct {
	FormatVersion int    `json:"format_version"`
	Name          string `json:"name"`
	// Features is the recipe: which model and preprocessing produce the feature vector.
	Features string `json:"features"`
	Ridge    Ridge  `json:"ridge"`
	// Reference is the sorted out-of-fold predictions on the training images: a deviation score
	// ranks a new face among them, so 50 is the median face of the reference set.
	Reference []float64 `json:"reference"`
	Training  Training  `json:"training"`
	Test      Report    `json:"test"`
}

// Training records how the model was fitted.
type Training struct {
	Dataset    string             `json:"dataset"`
	Licence    string             `json:"licence"`
	Split      string             `json:"split"`
	Images     int                `json:"images"`
	Folds      int                `json:"folds"`
	Lambdas    []float64          `json:"lambdas"`
	CVPearson  []float64          `json:"cv_pearson"` // per λ, mean over folds
	Chosen     float64            `json:"lambda"`
	RatingMean float64            `json:"rating_mean"`
	RatingSD   float64            `json:"rating_sd"`
	Groups     map[string]int     `json:"groups"`
	Extra      map[string]float64 `json:"extra,omitempty"`
}

// Report holds the evaluation on the held-out test split.
type Report struct {
	Overall Metrics            `json:"overall"`
	Groups  map[string]Metrics `json:"groups"`
}

// Metrics are the usual SCUT-FBP5500 figures.
type Metrics struct {
	N    int     `json:"n"`
	PC   float64 `json:"pearson"`
	MAE  float64 `json:"mae"`
	RMSE float64 `json:"rmse"`
}

// Load reads a model file.
func Load(path string) (*Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m Model
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("attractiveness model %s: %w", path, err)
	}
	if m.FormatVersion != FormatVersion || len(m.Ridge.Weights) == 0 || len(m.Ridge.Weights) != len(m.Ridge.Mean) ||
		len(m.Ridge.Mean) != len(m.Ridge.Scale) || len(m.Reference) == 0 || !slices.IsSorted(m.Reference) {
		return nil, fmt.Errorf("attractiveness model %s: not a model of format %d with weights and a sorted reference", path, FormatVersion)
	}
	return &m, nil
}

// Score returns the 1–5 rating and the deviation score of a face's features.
func (m *Model) Score(features []float32) (raw, hensachi float64) {
	x := make([]float64, len(features))
	for i, v := range features {
		x[i] = float64(v)
	}
	raw = math.Min(MaxRaw, math.Max(MinRaw, m.Ridge.Predict(x)))
	return raw, m.Hensachi(raw)
}

// Hensachi ranks a rating among the reference set with the statistics service's method: the face
// joins the n reference faces, takes its mid-rank (highest first) and p = (n' − r̄ + 0.5)/n'.
func (m *Model) Hensachi(raw float64) float64 {
	ref := m.Reference
	below := sort.SearchFloat64s(ref, raw)                                  // reference values < raw
	upto := sort.Search(len(ref), func(i int) bool { return ref[i] > raw }) // ≤ raw
	greater, equal := len(ref)-upto, upto-below
	n := len(ref) + 1
	midRank := float64(greater) + float64(equal+2)/2 // the tied group includes the new face
	h := compute.Hensachi(midRank, n)
	return math.Min(MaxHensachi, math.Max(MinHensachi, h))
}
