// Package attr is the age and gender model: a network on the per-face features the bundle's models
// compute (the gender-age model's outputs, the face embedding and FaceRes's outputs), with the
// calibrations of its outputs. training/attributes fits it on UTKFace and SCUT-FBP5500.
package attr

import (
	"encoding/json"
	"fmt"
	"math"
	"os"

	"github.com/hensachi/hensachi/face"
)

// FormatVersion is the layout of the model file: 2 since the heads became one network.
const FormatVersion = 2

// MaxAge bounds the reported age.
const MaxAge = 100

// Model is the age and gender model file of the bundle (attributes.json).
type Model struct {
	FormatVersion int    `json:"format_version"`
	Name          string `json:"name"`
	// Features is the recipe of the feature vector (see Vector).
	Features string `json:"features"`
	Recipe
	Network Network `json:"network"`
	// GenderCalibration turns the network's logit into P(male); AgeCalibration its age into an
	// unbiased one, of which AgeCalibrationShare is applied (see PartlyCalibrated).
	GenderCalibration   Logistic `json:"gender_calibration"`
	AgeCalibration      Curve    `json:"age_calibration"`
	AgeCalibrationShare float64  `json:"age_calibration_share"`
	Training            Training `json:"training"`
	// Test is the evaluation on the held-out data, per source; TestDegraded on its degraded
	// copies (training.Degrade).
	Test         map[string]*Report `json:"test"`
	TestDegraded map[string]*Report `json:"test_degraded"`
	// TestHard is the evaluation on the hard copies of the held-out images (training.HardCopies),
	// per source and kind of copy, "all" for every kind together. TestHardBefore is the same
	// training's without the hard copies in the fit (the model as it was before they were): on
	// the hard copies and, as "original", on the held-out images themselves.
	TestHard       map[string]map[string]*Report `json:"test_hard,omitempty"`
	TestHardBefore map[string]map[string]*Report `json:"test_hard_before,omitempty"`
}

// Training records how the model was fitted.
type Training struct {
	Datasets []string       `json:"datasets"`
	Licence  string         `json:"licence"`
	Split    string         `json:"split"`
	Images   map[string]int `json:"images"` // fitted on, per source
	Folds    int            `json:"folds"`
	// Network is the chosen configuration; Dropouts the grid and each rate's mean
	// cross-validated gender log loss and age error.
	Network         NetworkConfig  `json:"network"`
	Dropouts        []float64      `json:"dropouts"`
	CVGenderLogLoss []float64      `json:"cv_gender_log_loss"`
	CVAgeMAE        []float64      `json:"cv_age_mae"`
	WithoutFace     map[string]int `json:"images_without_face"`
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
	if m.FormatVersion != FormatVersion {
		return nil, fmt.Errorf("attribute model %s: format %d, want %d (retrain with 'go run ./cmd/train-models attrs')", path, m.FormatVersion, FormatVersion)
	}
	if err := m.Network.check(len(m.Network.Mean)); err != nil {
		return nil, fmt.Errorf("attribute model %s: %w", path, err)
	}
	if c := m.GenderCalibration; len(c.Weights) != 1 || len(c.Mean) != 1 || len(c.Scale) != 1 ||
		len(m.AgeCalibration.X) == 0 || len(m.AgeCalibration.X) != len(m.AgeCalibration.Y) ||
		m.AgeCalibrationShare < 0 || m.AgeCalibrationShare > 1 {
		return nil, fmt.Errorf("attribute model %s: the gender or age calibration is missing", path)
	}
	return &m, nil
}

// Mirrored implements face.AttributeModel.
func (m *Model) Mirrored() bool { return m.Mirror }

// Attributes implements face.AttributeModel.
func (m *Model) Attributes(f *face.Features) (age, male float64, err error) {
	x, err := Vector(f, m.Recipe)
	if err != nil {
		return 0, 0, err
	}
	if len(x) != len(m.Network.Mean) {
		return 0, 0, fmt.Errorf("attribute model: %d features, the model has %d", len(x), len(m.Network.Mean))
	}
	logit, raw := m.Network.Outputs(x)
	return PartlyCalibrated(m.AgeCalibration, m.AgeCalibrationShare, ClampAge(raw)), m.GenderCalibration.Prob([]float64{logit}), nil
}

// PartlyCalibrated moves the network's age the given share of the way to its calibrated value.
func PartlyCalibrated(c Curve, share, raw float64) float64 {
	return ClampAge(raw + share*(c.Apply(raw)-raw))
}

// ClampAge bounds an age to 0–MaxAge.
func ClampAge(age float64) float64 { return math.Min(MaxAge, math.Max(0, age)) }

// Report is the evaluation of one source's held-out faces (training/attributes.Evaluate).
type Report struct {
	Overall     Metrics            `json:"overall"`
	Adults      Metrics            `json:"adults"` // aged 15 and over (training/attributes.AdultAge)
	Bands       map[string]Metrics `json:"bands"`  // age bands 0–9 … 70+
	Genders     map[string]Metrics `json:"genders"`
	Ethnicities map[string]Metrics `json:"ethnicities"`
	// GenderECE is the expected calibration error of P(male) over ten equal-width bins.
	GenderECE float64 `json:"gender_ece"`
	// WithoutFace counts the held-out images where no face was found (not in the figures).
	WithoutFace int `json:"without_face"`
}

// Metrics are the figures of one set of faces. Age figures are over the faces with a known age.
type Metrics struct {
	N              int     `json:"n"`
	GenderAccuracy float64 `json:"gender_accuracy"`
	AgeN           int     `json:"age_n,omitempty"`
	AgeMAE         float64 `json:"age_mae,omitempty"`
	AgeBias        float64 `json:"age_bias,omitempty"` // mean of predicted − true
	// AgeInBand is the share of faces whose age is read in their ten-year band (0–9, …, 70+).
	AgeInBand float64 `json:"age_in_band,omitempty"`
}
