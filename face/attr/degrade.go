package attr

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
	minShrink, maxShrink   = 2.0, 4.0
	minQuality, maxQuality = 30, 80
)

// Degrade returns the low-resolution, recompressed copy of a sample's image. The draw depends
// only on the file's name, so the copies are the same on every machine and in every run.
func Degrade(img *face.RGB, path string) (*face.RGB, error) {
	h := fnv.New64a()
	h.Write([]byte(filepath.Base(path)))
	rng := rand.New(rand.NewPCG(h.Sum64(), 0))
	shrink := minShrink + (maxShrink-minShrink)*rng.Float64()
	quality := minQuality + rng.IntN(maxQuality-minQuality+1)
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

// DegradedCopies returns a degraded copy of each held-out sample, to be evaluated beside the
// originals. Fitting on such copies as well was tried: it gained half a point of gender accuracy
// on degraded faces and lost as much on the originals, and one age calibration could not suit both.
func DegradedCopies(samples []Sample) []Sample {
	var out []Sample
	for _, s := range samples {
		if s.HeldOut {
			s.Degraded = true
			out = append(out, s)
		}
	}
	return out
}
