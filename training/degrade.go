package training

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"image/jpeg"
	"math/rand/v2"
	"path/filepath"
	"slices"

	"github.com/hensachi/hensachi/face"
	"github.com/hensachi/hensachi/training/spoil"
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

// HardCopies returns a hard copy of each sample: its face spoilt in one of spoil's ways, drawn
// by the file's name so that every kind gets about a sixth of each set. As with the degraded
// copies, those of fitted images are fitted on and those of held-out images evaluated, so the
// heads learn to read faces as photos taken in the wild show them and are judged on faces they
// never saw.
func HardCopies(samples []Sample) []Sample {
	out := make([]Sample, len(samples))
	for i, s := range samples {
		s.Hard = spoil.Kinds[Bucket("hard:", filepath.Base(s.Path), len(spoil.Kinds))]
		out[i] = s
	}
	return out
}

// hardCopy spoils a sample's image as its Hard says (spoil.Copy), around the face the detector
// finds on the image itself; it returns nil when there is none. The draws depend only on the
// file's name, as Degrade's do.
func hardCopy(ctx context.Context, a *face.Analyzer, img *face.RGB, s *Sample) (*face.RGB, error) {
	dets, err := a.Detect(ctx, img)
	if err != nil || len(dets) == 0 {
		return nil, err
	}
	best := slices.MaxFunc(dets, func(x, y face.Detection) int { return cmp.Compare(x.Score, y.Score) })
	h := fnv.New64a()
	h.Write([]byte(filepath.Base(s.Path)))
	rng := rand.New(rand.NewPCG(h.Sum64(), uint64(slices.Index(spoil.Kinds, s.Hard))+1))
	return spoil.Copy(s.Hard, img, best.Box, rng), nil
}
