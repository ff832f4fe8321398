package score

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/hensachi/hensachi/face"
)

// The official 60/40 split of SCUT-FBP5500 v2, relative to the dataset directory.
const (
	scutImages = "SCUT-FBP5500_v2/Images"
	scutSplit  = "SCUT-FBP5500_v2/train_test_files/split_of_60%training and 40%testing"
)

// ReadSplit reads the official training and test lists ("AF1.jpg 2.71" per line).
func ReadSplit(dataset string) (train, test []Sample, err error) {
	if train, err = readList(filepath.Join(dataset, scutSplit, "train.txt")); err != nil {
		return nil, nil, err
	}
	if test, err = readList(filepath.Join(dataset, scutSplit, "test.txt")); err != nil {
		return nil, nil, err
	}
	return train, test, nil
}

// ImagePath is the file of an image named in the split lists.
func ImagePath(dataset, name string) string { return filepath.Join(dataset, scutImages, name) }

func readList(path string) ([]Sample, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Sample
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 2 || len(fields[0]) < 3 {
			return nil, fmt.Errorf("%s line %d: want 'NAME.jpg rating'", path, line)
		}
		r, err := strconv.ParseFloat(fields[1], 64)
		if err != nil || r < 1 || r > 5 {
			return nil, fmt.Errorf("%s line %d: rating %q is not in 1–5", path, line, fields[1])
		}
		out = append(out, Sample{Name: fields[0], Group: fields[0][:2], Rating: r})
	}
	return out, sc.Err()
}

// Extract runs the service's own pipeline (decode, detect, align, embed) on each image and keeps
// the largest face's features. Images where no face is found are dropped and counted.
func Extract(ctx context.Context, a *face.Analyzer, dataset string, samples []Sample, workers int) ([]Sample, int, error) {
	out := make([]Sample, len(samples))
	found := make([]bool, len(samples))
	errs := make(chan error, len(samples))
	sem := make(chan struct{}, workers) // as many in flight as the analyzer has workers: never overloaded
	var wg sync.WaitGroup
	for i, s := range samples {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			data, err := os.ReadFile(ImagePath(dataset, s.Name))
			if err != nil {
				errs <- err
				return
			}
			img, err := face.Decode(data)
			if err != nil {
				errs <- fmt.Errorf("%s: %w", s.Name, err)
				return
			}
			faces, err := a.Analyze(ctx, img)
			if err != nil {
				errs <- fmt.Errorf("%s: %w", s.Name, err)
				return
			}
			if len(faces) == 0 || faces[0].Embedding == nil {
				return
			}
			s.Features = make([]float64, len(faces[0].Embedding))
			for j, v := range faces[0].Embedding {
				s.Features[j] = float64(v)
			}
			out[i], found[i] = s, true
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, 0, err
	}
	kept := out[:0]
	for i, ok := range found {
		if ok {
			kept = append(kept, out[i])
		}
	}
	return kept, len(samples) - len(kept), nil
}
