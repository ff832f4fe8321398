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

var (
	once     sync.Once
	analyzer *face.Analyzer
	err      error
)

// Analyzer returns an analyzer on the bundle of `make models`, with the committed attractiveness
// and age-gender models; like testenv, it skips without the inputs, except under CI=true.
func Analyzer(t testing.TB) *face.Analyzer {
	t.Helper()
	lib, dir := testenv.ONNXRuntime(t), testenv.Models(t)
	once.Do(func() {
		if err = ort.Init(lib); err != nil {
			return
		}
		var b *models.Bundle
		if b, err = models.Load(dir); err != nil {
			return
		}
		var m *score.Model
		if m, err = score.Load(filepath.Join(dir, "attractiveness.json")); err != nil {
			return
		}
		var at *attr.Model
		if at, err = attr.Load(filepath.Join(dir, "attributes.json")); err != nil {
			return
		}
		cfg := face.Config{DetectorPath: b.Path(b.Detector()),
			GenderAgePath: b.Path(b.GenderAge()), EmbeddingPath: b.Path(b.Embedding()), Scorer: m, Attributes: at}
		if at.FaceRes {
			cfg.FaceResPath = b.Path(b.FaceRes())
		}
		analyzer, err = face.NewAnalyzer(cfg)
	})
	if err != nil {
		t.Fatal(err)
	}
	return analyzer
}
