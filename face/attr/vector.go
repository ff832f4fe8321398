package attr

import (
	"errors"
	"fmt"
	"math"

	"github.com/hensachi/hensachi/face"
)

// GenderAgeOutputs is the size of the gender-age model's fc1: two gender logits, then one pair of
// logits per year of age 0–99 whose second value wins when the face is older than that year.
const GenderAgeOutputs = 202

// Recipe says which of the optional features a model reads.
type Recipe struct {
	// Mirror: the gender-age outputs are the mean of the face's and its mirror image's.
	Mirror bool `json:"mirrored"`
	// FaceRes: FaceRes's outputs follow the embedding.
	FaceRes bool `json:"faceres"`
}

// Vector lays a face's features out for the heads: the gender-age model's outputs, each year's
// probability σ(pair difference), their sum (the model's own soft age) and its log, the
// embedding, and with FaceRes that model's dense features, P(male), age probabilities and their
// mean age.
func Vector(f *face.Features, r Recipe) ([]float64, error) {
	ga, emb := f.GenderAge, f.Embedding
	if len(ga) != GenderAgeOutputs || len(emb) == 0 {
		return nil, fmt.Errorf("features: %d gender-age outputs and a %d-d embedding, want %d and an embedding", len(ga), len(emb), GenderAgeOutputs)
	}
	if r.Mirror && len(f.MirroredGenderAge) != len(ga) {
		return nil, errors.New("features: the gender-age outputs of the mirrored face are missing")
	}
	if r.FaceRes && len(f.FaceRes) != face.FaceResFeatures {
		return nil, fmt.Errorf("features: %d FaceRes outputs, want %d (is the FaceRes model in the bundle?)", len(f.FaceRes), face.FaceResFeatures)
	}
	x := make([]float64, 0, GenderAgeOutputs+100+2+len(emb)+face.FaceResFeatures+1)
	for i, v := range ga {
		if r.Mirror {
			x = append(x, (float64(v)+float64(f.MirroredGenderAge[i]))/2)
		} else {
			x = append(x, float64(v))
		}
	}
	soft := 0.0
	for k := range 100 {
		p := Sigmoid(x[2+2*k+1] - x[2+2*k])
		soft += p
		x = append(x, p)
	}
	x = append(x, soft, math.Log1p(soft))
	for _, v := range emb {
		x = append(x, float64(v))
	}
	if r.FaceRes {
		mean := 0.0
		for age, p := range f.FaceRes[face.FaceResFeatures-100:] {
			mean += float64(age) * float64(p)
		}
		for _, v := range f.FaceRes {
			x = append(x, float64(v))
		}
		x = append(x, mean)
	}
	return x, nil
}
