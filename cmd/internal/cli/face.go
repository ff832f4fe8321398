package cli

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

// FaceFlags are the flags that say where the face models are and how much of the machine they use.
type FaceFlags struct {
	ORTLib, ModelsDir *string
	Workers, Threads  *int
}

// AddFaceFlags defines the face models' flags on fs.
func AddFaceFlags(fs *flag.FlagSet) FaceFlags {
	return FaceFlags{
		ORTLib:    fs.String("onnxruntime", EnvOr("ONNXRUNTIME_LIB", "build/onnxruntime/libonnxruntime.so.1"), "ONNX Runtime shared library, from 'make runtime' (env ONNXRUNTIME_LIB)"),
		ModelsDir: fs.String("models", EnvOr("HENSACHI_MODELS", "models"), "model bundle directory, from 'make models' (env HENSACHI_MODELS)"),
		Workers:   fs.Int("face-workers", 0, "images analysed at once (default: one per CPU)"),
		Threads:   fs.Int("face-threads", 0, "ONNX Runtime intra-op threads per run (default: CPUs / workers)"),
	}
}

// The trained models' names inside the bundle directory, which cmd/train-models writes.
const (
	AttractivenessFile = "attractiveness.json"
	AttributesFile     = "attributes.json"
	AgeRangesFile      = "age_range.json"
)

// AgeRanges loads the age ranges of the trained age and gender model from the bundle directory.
func (f FaceFlags) AgeRanges() (*attr.AgeRanges, error) {
	p := filepath.Join(*f.ModelsDir, AgeRangesFile)
	r, err := attr.LoadAgeRanges(p)
	if os.IsNotExist(err) {
		return nil, fmt.Errorf("age range file %s is missing; run 'make models'", p)
	}
	return r, err
}

// Analyzer initialises ONNX Runtime, checks the bundle and starts the analyzer, which takes a
// second look at a photo in which it finds no face, as the server does. With trained, it loads the
// trained models from the bundle directory, runs FaceRes when the age and gender model reads it
// and searches a photo with the quick pass first (the server); without (training, which makes
// those models), raw_score and score are left out, age and gender come from the gender-age model
// alone, and faceRes says whether FaceRes runs. edits change the configuration last (a measurement
// of the server without one of its settings).
func (f FaceFlags) Analyzer(trained, faceRes bool, edits ...func(*face.Config)) (*face.Analyzer, error) {
	if err := ort.Init(*f.ORTLib); err != nil {
		return nil, err
	}
	b, err := models.Load(*f.ModelsDir)
	if err != nil {
		return nil, err
	}
	cfg := face.Config{
		DetectorPath: b.Path(b.Detector()), GenderAgePath: b.Path(b.GenderAge()), EmbeddingPath: b.Path(b.Embedding()),
		Workers: *f.Workers, IntraOpThreads: *f.Threads, SecondLook: true,
	}
	if trained {
		p := filepath.Join(*f.ModelsDir, AttractivenessFile)
		m, err := score.Load(p)
		if err != nil {
			if os.IsNotExist(err) {
				return nil, fmt.Errorf("attractiveness model %s is missing; run 'make models'", p)
			}
			return nil, err
		}
		cfg.Scorer = m
		p = filepath.Join(*f.ModelsDir, AttributesFile)
		at, err := attr.Load(p)
		if err != nil {
			if os.IsNotExist(err) {
				return nil, fmt.Errorf("attribute model %s is missing; run 'make models'", p)
			}
			return nil, err
		}
		cfg.Attributes, faceRes = at, at.FaceRes
		cfg.QuickPass = true
	}
	if faceRes {
		x := b.FaceRes()
		if x == nil {
			return nil, fmt.Errorf("the attribute model reads FaceRes, which the bundle %s does not have", *f.ModelsDir)
		}
		cfg.FaceResPath = b.Path(x)
	}
	for _, edit := range edits {
		edit(&cfg)
	}
	return face.NewAnalyzer(cfg)
}
