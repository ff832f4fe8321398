package attr

import (
	"encoding/json"
	"fmt"
	"math"
	"os"

	"github.com/hensachi/hensachi/face"
)

// FormatVersion is the layout of the model file.
const FormatVersion = 1

// MaxAge bounds the reported age.
const MaxAge = 100

// Model is the age and gender model file of the bundle (attributes.json).
type Model struct {
	FormatVersion int    `json:"format_version"`
	Name          string `json:"name"`
	// Features is the recipe of the feature vector (see Vector).
	Features string `json:"features"`
	// Mirror says the features are the mean of the face's and its mirror image's.
	Mirror   bool     `json:"mirrored"`
	Gender   Logistic `json:"gender"` // P(male)
	Age      AgeHead  `json:"age"`
	Training Training `json:"training"`
	// Test is the evaluation on the held-out data, per source.
	Test map[string]*Report `json:"test"`
}

// AgeHead is a ridge regression on the age in years followed by a monotone calibration.
type AgeHead struct {
	Ridge       Linear `json:"ridge"`
	Calibration Curve  `json:"calibration"`
}

// Predict returns the age in years for a feature vector.
func (h *AgeHead) Predict(x []float64) float64 {
	return math.Min(MaxAge, math.Max(0, h.Calibration.Apply(h.raw(x))))
}

// raw is the ridge's age before calibration.
func (h *AgeHead) raw(x []float64) float64 { return math.Min(MaxAge, math.Max(0, h.Ridge.Predict(x))) }

// Training records how the model was fitted.
type Training struct {
	Datasets []string       `json:"datasets"`
	Licence  string         `json:"licence"`
	Split    string         `json:"split"`
	Images   map[string]int `json:"images"` // fitted on, per source
	Folds    int            `json:"folds"`
	// The regularisation grids and each value's mean cross-validation figure.
	GenderLambdas []float64      `json:"gender_lambdas"`
	GenderCVLoss  []float64      `json:"gender_cv_log_loss"`
	AgeLambdas    []float64      `json:"age_lambdas"`
	AgeCVMAE      []float64      `json:"age_cv_mae"`
	WithoutFace   map[string]int `json:"images_without_face"`
}

// Load reads a model file and checks that its parts fit together.
func Load(path string) (*Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m Model
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("attribute model %s: %w", path, err)
	}
	d := len(m.Gender.Weights)
	if m.FormatVersion != FormatVersion || d == 0 || len(m.Gender.Mean) != d || len(m.Gender.Scale) != d ||
		len(m.Age.Ridge.Weights) != d || len(m.Age.Ridge.Mean) != d || len(m.Age.Ridge.Scale) != d ||
		len(m.Age.Calibration.X) == 0 || len(m.Age.Calibration.X) != len(m.Age.Calibration.Y) {
		return nil, fmt.Errorf("attribute model %s: not a model of format %d with gender and age heads of one size", path, FormatVersion)
	}
	return &m, nil
}

// Mirrored implements face.AttributeModel.
func (m *Model) Mirrored() bool { return m.Mirror }

// Attributes implements face.AttributeModel.
func (m *Model) Attributes(f *face.Features) (age, male float64, err error) {
	x, err := Vector(f, m.Mirror)
	if err != nil {
		return 0, 0, err
	}
	if len(x) != len(m.Gender.Weights) {
		return 0, 0, fmt.Errorf("attribute model: %d features, the model has %d", len(x), len(m.Gender.Weights))
	}
	return m.Age.Predict(x), m.Gender.Prob(x), nil
}
