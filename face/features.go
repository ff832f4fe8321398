package face

import (
	"context"
	"fmt"
)

// Features are the per-face model outputs that the attribute heads read.
type Features struct {
	GenderAge []float32 // fc1 of the gender-age model: 202 values
	Embedding []float32 // the 512-d embedding; nil without the embedding model
	// MirroredGenderAge is fc1 on the horizontally mirrored face; nil unless the attribute model
	// reads it (AttributeModel.Mirrored). Only the gender-age model runs twice: it is several times
	// cheaper than the embedding (BenchmarkModels), and the mirrored face's embedding added next to
	// nothing to the heads.
	MirroredGenderAge []float32
	// FaceRes is FaceRes's outputs on the looser crop (see Analyzer.faceResOutputs); nil without
	// that model.
	FaceRes []float32
}

// AttributeModel turns a face's features into its age and the probability that it is male.
type AttributeModel interface {
	// Mirrored reports whether the model reads the gender-age model's outputs on the mirrored
	// face too (a second pass of that model).
	Mirrored() bool
	Attributes(f *Features) (age, male float64, err error)
}

// Mirror flips an aligned face left to right. The alignment template is symmetric about the
// crop's vertical axis, so the mirrored crop is an aligned face too.
func Mirror(aligned []uint8) []uint8 {
	out := make([]uint8, len(aligned))
	for y := range AlignSize {
		row := aligned[3*y*AlignSize : 3*(y+1)*AlignSize]
		dst := out[3*y*AlignSize : 3*(y+1)*AlignSize]
		for x := range AlignSize {
			copy(dst[3*(AlignSize-1-x):3*(AlignSize-x)], row[3*x:3*x+3])
		}
	}
	return out
}

// genderAgeOutputs runs the gender-age model on an aligned face, and on its mirror image too when
// mirrored (else mirror is nil).
func (a *Analyzer) genderAgeOutputs(ctx context.Context, aligned []uint8, mirrored bool) (fc1, mirror []float32, err error) {
	if fc1, err = runOne(ctx, a.genderAge, rawPlanes(aligned)); err != nil {
		return nil, nil, fmt.Errorf("gender-age: %w", err)
	}
	if !mirrored {
		return fc1, nil, nil
	}
	if mirror, err = runOne(ctx, a.genderAge, rawPlanes(Mirror(aligned))); err != nil {
		return nil, nil, fmt.Errorf("gender-age, mirrored: %w", err)
	}
	return fc1, mirror, nil
}
