package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hensachi/hensachi/face"
	"github.com/hensachi/hensachi/face/attr"
	"github.com/hensachi/hensachi/face/models"
	"github.com/hensachi/hensachi/face/ort"
	"github.com/hensachi/hensachi/face/score"
)

// faceFlags are the flags of every command that runs the face models.
type faceFlags struct {
	ortLib, modelsDir *string
	workers, threads  *int
}

func addFaceFlags(fs *flag.FlagSet) faceFlags {
	return faceFlags{
		ortLib:    fs.String("onnxruntime", envOr("ONNXRUNTIME_LIB", "build/onnxruntime/libonnxruntime.so.1"), "ONNX Runtime shared library, from 'make runtime' (env ONNXRUNTIME_LIB)"),
		modelsDir: fs.String("models", envOr("HENSACHI_MODELS", "models"), "model bundle directory, from 'make models' (env HENSACHI_MODELS)"),
		workers:   fs.Int("face-workers", 0, "images analysed at once (default: one per CPU)"),
		threads:   fs.Int("face-threads", 0, "ONNX Runtime intra-op threads per run (default: CPUs / workers)"),
	}
}

// The trained models' names inside the bundle directory.
const (
	attractivenessFile = "attractiveness.json"
	attributesFile     = "attributes.json"
)

// analyzer initialises ONNX Runtime, checks the bundle and starts the analyzer. Without the
// trained models (withScore false) raw_score and score are left out and age and gender come from
// the gender-age model alone.
func (f faceFlags) analyzer(withScore bool) (*face.Analyzer, error) {
	if err := ort.Init(*f.ortLib); err != nil {
		return nil, err
	}
	b, err := models.Load(*f.modelsDir)
	if err != nil {
		return nil, err
	}
	cfg := face.Config{
		DetectorPath: b.Path(b.Detector()), GenderAgePath: b.Path(b.GenderAge()), EmbeddingPath: b.Path(b.Embedding()),
		Workers: *f.workers, IntraOpThreads: *f.threads,
	}
	readsFaceRes := false
	if withScore {
		p := filepath.Join(*f.modelsDir, attractivenessFile)
		m, err := score.Load(p)
		if err != nil {
			if os.IsNotExist(err) {
				return nil, fmt.Errorf("attractiveness model %s is missing; run 'make models'", p)
			}
			return nil, err
		}
		cfg.Scorer = m
		p = filepath.Join(*f.modelsDir, attributesFile)
		at, err := attr.Load(p)
		if err != nil {
			if os.IsNotExist(err) {
				return nil, fmt.Errorf("attribute model %s is missing; run 'make models'", p)
			}
			return nil, err
		}
		cfg.Attributes, readsFaceRes = at, at.FaceRes
	}
	if readsFaceRes {
		x := b.FaceRes()
		if x == nil {
			return nil, fmt.Errorf("the attribute model reads FaceRes, which the bundle %s does not have", *f.modelsDir)
		}
		cfg.FaceResPath = b.Path(x)
	}
	return face.NewAnalyzer(cfg)
}
