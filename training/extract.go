package training

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/hensachi/hensachi/face"
)

// Extract runs the service's pipeline (decode, detect, align, per-face models) on each sample's
// image, or on its degraded or hard copy, and keeps the largest face's features. It returns the samples
// where a face was found, in their order, and how many had none.
func Extract(ctx context.Context, a *face.Analyzer, samples []Sample, workers int) ([]Sample, int, error) {
	found := make([]bool, len(samples))
	out := make([]Sample, len(samples))
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	sem := make(chan struct{}, workers) // as many in flight as the analyzer has workers: never overloaded
	for i, s := range samples {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			f, err := largestFace(ctx, a, &s)
			if err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
				return
			}
			if f != nil {
				s.Features = f
				out[i], found[i] = s, true
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return nil, 0, firstErr
	}
	kept := out[:0]
	for i, ok := range found {
		if ok {
			kept = append(kept, out[i])
		}
	}
	return kept, len(samples) - len(kept), nil
}

// readImage decodes a sample's image as the training does: image/jpeg at full resolution (Decode).
func readImage(s *Sample) (*face.RGB, error) {
	data, err := os.ReadFile(s.Path)
	if err != nil {
		return nil, err
	}
	img, err := face.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path, err)
	}
	return img, nil
}

func largestFace(ctx context.Context, a *face.Analyzer, s *Sample) (*face.Features, error) {
	img, err := readImage(s)
	if err != nil {
		return nil, err
	}
	switch {
	case s.Degraded:
		if img, err = Degrade(img, s.Path); err != nil {
			return nil, err
		}
	case s.Hard != "":
		if img, err = hardCopy(ctx, a, img, s); err != nil {
			return nil, fmt.Errorf("%s: %w", s.Path, err)
		}
		if img == nil { // no face on the image itself: none to spoil
			return nil, nil
		}
	}
	faces, err := a.Analyze(ctx, img)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path, err)
	}
	// the attractiveness model reads the embedding: a face without one is no face to either model
	if len(faces) == 0 || faces[0].Features.Embedding == nil {
		return nil, nil
	}
	return &faces[0].Features, nil
}
