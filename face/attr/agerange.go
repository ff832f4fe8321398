package attr

import (
	"encoding/json"
	"fmt"
	"os"
)

// AgeRangesFormat is the layout of the age interval file.
const AgeRangesFormat = 1

// AgeRanges is the bundle's age interval file (age_range.json): for each band of the age the
// service reports, how far below and above it the true age lies for the nominal share of faces.
// training/attributes.CalibrateAgeRanges makes it by split conformal prediction on held-out faces
// analysed as the server analyses them, so it belongs to one attribute model (Model).
type AgeRanges struct {
	FormatVersion int    `json:"format_version"`
	Name          string `json:"name"`
	// Model is the name of the attribute model whose ages were calibrated.
	Model string `json:"model"`
	// Coverage is the nominal share of faces whose true age is inside their range.
	Coverage float64        `json:"coverage"`
	Bands    []AgeRangeBand `json:"bands"`
	// Calibration says on which faces the ranges were fitted, and what they held on the others.
	Calibration AgeRangeCalibration `json:"calibration"`
}

// AgeRangeBand is the range of the reported ages From to To−1: from age−Below to age+Above.
type AgeRangeBand struct {
	From  int `json:"from"`
	To    int `json:"to"`
	Below int `json:"below"`
	Above int `json:"above"`
}

// AgeRangeCalibration records the fit and its evaluation on held-out faces, each measured with
// ranges fitted without it.
type AgeRangeCalibration struct {
	Dataset string `json:"dataset"`
	Split   string `json:"split"`
	// Neighbours is how many faces, the nearest in reported age, each age's range was read from.
	Neighbours int `json:"neighbours"`
	// Faces are the held-out faces the ranges were fitted on; Evaluated those they were measured
	// on, each band's coverage by the reported age and by the true age.
	Faces      int                      `json:"faces"`
	Evaluated  int                      `json:"evaluated"`
	ByReported map[string]RangeCoverage `json:"by_reported_age"`
	ByTrue     map[string]RangeCoverage `json:"by_true_age"`
	Overall    RangeCoverage            `json:"overall"`
	// Served is the attribute model's evaluation on all these faces, analysed as the server
	// analyses an upload, beside its own (Model.Test), which extracts as the training does.
	Served *Report `json:"served"`
	// Hard is what the ranges held on hard copies of these faces (training/spoil), analysed as the
	// server analyses an upload, per kind of copy and "all" together; each measured with the ranges
	// fitted on the other parts of the cross-fitting, none fitted on.
	Hard map[string]RangeCoverage `json:"hard_copies,omitempty"`
}

// RangeCoverage is how the ranges did on a set of faces.
type RangeCoverage struct {
	N        int     `json:"n"`
	Coverage float64 `json:"coverage"`   // share of faces whose true age is inside their range
	Width    float64 `json:"mean_width"` // mean of high − low, in years
}

// LoadAgeRanges reads an age interval file and checks that its bands cover every age in order.
func LoadAgeRanges(path string) (*AgeRanges, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r AgeRanges
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("age ranges %s: %w", path, err)
	}
	if r.FormatVersion != AgeRangesFormat {
		return nil, fmt.Errorf("age ranges %s: format %d, want %d (calibrate again with 'go run ./cmd/train-models calibrate')", path, r.FormatVersion, AgeRangesFormat)
	}
	next := 0
	for _, band := range r.Bands {
		if band.From != next || band.To <= band.From || band.Below+band.Above < 0 {
			return nil, fmt.Errorf("age ranges %s: band %d–%d does not follow on from %d or is empty", path, band.From, band.To, next)
		}
		next = band.To
	}
	if next <= MaxAge {
		return nil, fmt.Errorf("age ranges %s: the bands end at %d, below the oldest age %d", path, next, MaxAge)
	}
	return &r, nil
}

// Range is the range of a reported age: whole years within 0–MaxAge.
func (r *AgeRanges) Range(age int) (low, high int) {
	for _, band := range r.Bands {
		if age < band.To {
			return max(0, age-band.Below), min(MaxAge, age+band.Above)
		}
	}
	return age, age // not reached: LoadAgeRanges checks that the bands reach past MaxAge
}
