// Package score is the attractiveness model: a ridge regression from face features to the 1–5
// SCUT-FBP5500 rating, with the reference distribution that turns a rating into a deviation score.
// training/attractiveness fits it.
package score

// Ridge is a fitted linear model on standardised features.
type Ridge struct {
	Mean    []float64 `json:"mean"`    // per feature, from the training set
	Scale   []float64 `json:"scale"`   // per feature standard deviation (1 where constant)
	Weights []float64 `json:"weights"` // on standardised features
	Bias    float64   `json:"bias"`
	Lambda  float64   `json:"lambda"`
}

// Predict returns the model's value for one feature vector.
func (r *Ridge) Predict(x []float64) float64 {
	s := r.Bias
	for j, v := range x {
		s += r.Weights[j] * (v - r.Mean[j]) / r.Scale[j]
	}
	return s
}
