package training

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"image/jpeg"
	"math/rand/v2"
	"path/filepath"

	"github.com/hensachi/hensachi/face"
)

// The degradation of the held-out copies: shrunk by a factor drawn from this range, saved as a
// JPEG of a quality drawn from that one, and enlarged back. Chips and portraits are sharp and
// well lit; uploads are often small faces in larger photos, recompressed on the way, and the
// model is judged on those too.
const (
	MinShrink, MaxShrink   = 2.0, 4.0
	MinQuality, MaxQuality = 30, 80
)

// Degrade returns the low-resolution, recompressed copy of a sample's image. The draw depends
// only on the file's name, so the copies are the same on every machine and in every run.
func Degrade(img *face.RGB, path string) (*face.RGB, error) {
	h := fnv.New64a()
	h.Write([]byte(filepath.Base(path)))
	rng := rand.New(rand.NewPCG(h.Sum64(), 0))
	shrink := MinShrink + (MaxShrink-MinShrink)*rng.Float64()
	quality := MinQuality + rng.IntN(MaxQuality-MinQuality+1)
	small := face.Resize(img, max(1, int(float64(img.W)/shrink)), max(1, int(float64(img.H)/shrink)))
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, small.RGBA(), &jpeg.Options{Quality: quality}); err != nil {
		return nil, fmt.Errorf("degrade %s: %w", path, err)
	}
	small, err := face.Decode(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("degrade %s: %w", path, err)
	}
	return face.Resize(small, img.W, img.H), nil
}

// DegradedCopies returns a degraded copy of each sample. The copies of the fitted images are
// fitted on beside the originals (one copy each, so that an image of a held-out group never
// enters the fit); those of the held-out images are evaluated. Fitting on them gains little on
// sharp faces but keeps the old from being read ten years too young on small, recompressed ones.
func DegradedCopies(samples []Sample) []Sample {
	out := make([]Sample, len(samples))
	for i, s := range samples {
		s.Degraded = true
		out[i] = s
	}
	return out
}
