// Package facetest starts the real face models once per test binary, for the tests of packages
// that sit above face (serve, training).
package facetest

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/hensachi/hensachi/face"
	"github.com/hensachi/hensachi/face/attr"
	"github.com/hensachi/hensachi/face/models"
	"github.com/hensachi/hensachi/face/ort"
	"github.com/hensachi/hensachi/face/score"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

// started is an analyzer started once per test binary.
type started struct {
	once     sync.Once
	analyzer *face.Analyzer
	err      error
}

var extraction, serving, firstLook started

// Analyzer returns an analyzer on the bundle of `make models`, with the committed attractiveness
// and age-gender models, configured as the training extracts (no quick detection pass, a second
// look when nothing is found), which training's tests need; like testenv, it skips without the
// inputs, except under CI=true.
func Analyzer(t testing.TB) *face.Analyzer { return extraction.get(t, false) }

// ServingAnalyzer is Analyzer as the server configures it: the quick detection pass first and a
// second look when nothing is found (face.Config.QuickPass, SecondLook).
func ServingAnalyzer(t testing.TB) *face.Analyzer { return serving.get(t, true) }

// ServingWithoutSecondLook is ServingAnalyzer without the second look, for measuring what it adds.
func ServingWithoutSecondLook(t testing.TB) *face.Analyzer {
	return firstLook.get(t, true, func(c *face.Config) { c.SecondLook = false })
}

func (s *started) get(t testing.TB, serving bool, edits ...func(*face.Config)) *face.Analyzer {
	t.Helper()
	lib, dir := testenv.ONNXRuntime(t), testenv.Models(t)
	s.once.Do(func() { s.analyzer, s.err = start(lib, dir, serving, edits...) })
	if s.err != nil {
		t.Fatal(s.err)
	}
	return s.analyzer
}

func start(lib, dir string, serving bool, edits ...func(*face.Config)) (*face.Analyzer, error) {
	if err := ort.Init(lib); err != nil {
		return nil, err
	}
	b, err := models.Load(dir)
	if err != nil {
		return nil, err
	}
	m, err := score.Load(filepath.Join(dir, "attractiveness.json"))
	if err != nil {
		return nil, err
	}
	at, err := attr.Load(filepath.Join(dir, "attributes.json"))
	if err != nil {
		return nil, err
	}
	cfg := face.Config{DetectorPath: b.Path(b.Detector()), GenderAgePath: b.Path(b.GenderAge()), EmbeddingPath: b.Path(b.Embedding()),
		Scorer: m, Attributes: at, QuickPass: serving, SecondLook: true}
	if at.FaceRes {
		cfg.FaceResPath = b.Path(b.FaceRes())
	}
	for _, edit := range edits {
		edit(&cfg)
	}
	return face.NewAnalyzer(cfg)
}

// AgeRanges returns the committed age ranges from the bundle of `make models`, as the server loads
// them; like testenv, it skips without the bundle, except under CI=true.
func AgeRanges(t testing.TB) *attr.AgeRanges {
	t.Helper()
	r, err := attr.LoadAgeRanges(filepath.Join(testenv.Models(t), "age_range.json"))
	if err != nil {
		t.Fatal(err)
	}
	return r
}
