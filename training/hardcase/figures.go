package hardcase

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/hensachi/hensachi/face"
	"github.com/hensachi/hensachi/training"
)

// Figures are the set's measurements, the file face/models/hardcases.json: the pipeline's first
// pass alone (Before) and with the second look (After).
type Figures struct {
	Seed        int      `json:"seed"`
	UTKFaces    int      `json:"utkface_faces"`
	SCUTFaces   int      `json:"scut_faces"`
	MatchIoU    float64  `json:"match_iou"`
	Backgrounds []string `json:"backgrounds"`
	// WithoutFace is how many images drawn from the pools had no face on the clean image and were
	// passed over.
	WithoutFace int              `json:"without_face"`
	Before      map[Kind]Metrics `json:"before"`
	After       map[Kind]Metrics `json:"after,omitempty"`
}

// Measure builds each kind's scenes and evaluates analyze on them, one kind at a time (the
// scenes of all kinds together would take a third of a gigabyte).
func Measure(ctx context.Context, analyze Analyze, sources []Source, backgrounds []*face.RGB, workers int) (map[Kind]Metrics, error) {
	out := map[Kind]Metrics{}
	for _, k := range Kinds {
		m, err := Evaluate(ctx, analyze, Build(k, sources, backgrounds), sources, workers)
		if err != nil {
			return nil, fmt.Errorf("hard cases, %s: %w", k, err)
		}
		for row, x := range m {
			out[row] = x
		}
	}
	return out, nil
}

// NewFigures describes the set around its measurements.
func NewFigures(withoutFace int, before, after map[Kind]Metrics) *Figures {
	return &Figures{Seed: Seed, UTKFaces: UTKFaces, SCUTFaces: SCUTFaces, MatchIoU: MatchIoU,
		Backgrounds: Backgrounds, WithoutFace: withoutFace, Before: before, After: after}
}

// Load reads a figures file.
func Load(path string) (*Figures, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f Figures
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &f, nil
}

// The tolerances of Reproduced: ONNX Runtime's kernels differ in the last bits between CPUs,
// which can tip a face whose score or embedding norm sits on a limit, or an age on a year's edge.
const (
	countTolerance  = 1
	ageMAETolerance = 0.3
)

// Reproduced compares fresh measurements with the committed ones, row by row.
func Reproduced(committed, fresh *Figures) error {
	var off []string
	if committed.Seed != fresh.Seed || committed.UTKFaces != fresh.UTKFaces || committed.SCUTFaces != fresh.SCUTFaces ||
		committed.MatchIoU != fresh.MatchIoU || strings.Join(committed.Backgrounds, ",") != strings.Join(fresh.Backgrounds, ",") {
		return fmt.Errorf("the set changed (seed, faces, IoU or backgrounds): measure again with cmd/train-models hardcases")
	}
	for pass, maps := range map[string][2]map[Kind]Metrics{"before": {committed.Before, fresh.Before}, "after": {committed.After, fresh.After}} {
		c, f := maps[0], maps[1]
		if len(c) != len(f) {
			off = append(off, fmt.Sprintf("%s: %d rows, the committed file %d", pass, len(f), len(c)))
			continue
		}
		for k, cm := range c {
			fm, ok := f[k]
			if !ok {
				off = append(off, fmt.Sprintf("%s: no row %q", pass, k))
				continue
			}
			if !near(cm, fm) {
				off = append(off, fmt.Sprintf("%s %s: %+v, committed %+v", pass, k, fm, cm))
			}
		}
	}
	if len(off) > 0 {
		return fmt.Errorf("hard-case figures not reproduced: %s", strings.Join(off, "; "))
	}
	return nil
}

func near(a, b Metrics) bool {
	counts := [][2]int{{a.Found, b.Found}, {a.FalseFaces, b.FalseFaces}, {a.GenderRight, b.GenderRight},
		{a.Aged, b.Aged}, {a.AgeInBand, b.AgeInBand}}
	for _, c := range counts {
		if abs(c[0]-c[1]) > countTolerance {
			return false
		}
	}
	return a.Faces == b.Faces && a.Images == b.Images && math.Abs(a.AgeMAE-b.AgeMAE) <= ageMAETolerance
}

func abs(x int) int { return max(x, -x) }

// Detect is the detector alone, which finds each source's face on its clean image.
type Detect func(context.Context, *face.RGB) ([]face.Detection, error)

// Run draws the set from the two pools, cuts the scenes' backgrounds from the photos without
// people in nofaceDir, and measures before and, unless it is nil, after.
func Run(ctx context.Context, detect Detect, before, after Analyze, utk, scut []training.Sample, nofaceDir string, workers int) (*Figures, error) {
	backgrounds, err := readBackgrounds(nofaceDir)
	if err != nil {
		return nil, err
	}
	sources, withoutFace, err := Sources(ctx, detect, utk, scut)
	if err != nil {
		return nil, err
	}
	b, err := Measure(ctx, before, sources, backgrounds, workers)
	if err != nil {
		return nil, err
	}
	var a map[Kind]Metrics
	if after != nil {
		if a, err = Measure(ctx, after, sources, backgrounds, workers); err != nil {
			return nil, err
		}
	}
	return NewFigures(withoutFace, b, a), nil
}

func readBackgrounds(dir string) ([]*face.RGB, error) {
	out := make([]*face.RGB, len(Backgrounds))
	for i, name := range Backgrounds {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("hard-case backgrounds (scripts/fetch-noface.sh): %w", err)
		}
		if out[i], err = face.Decode(data); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return out, nil
}
