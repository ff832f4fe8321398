// Command train-models trains the models of face/score and face/attr with the service's own
// pipeline, evaluates them on the held-out data and writes the model files and their cards. With
// -check it retrains and verifies that the committed file is reproduced instead, as the tests of
// training do.
//
//	train-models score  train the attractiveness model on SCUT-FBP5500
//	train-models attrs  train the age and gender model on UTKFace and SCUT-FBP5500
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/hensachi/hensachi/face"
	"github.com/hensachi/hensachi/face/models"
	"github.com/hensachi/hensachi/face/ort"
)

var commands = []struct {
	name, summary string
	run           func(ctx context.Context, args []string) error
}{
	{"score", "train the attractiveness model on SCUT-FBP5500 and write its card", runScore},
	{"attrs", "train the age and gender model on UTKFace and SCUT-FBP5500 and write its cards", runAttrs},
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if len(os.Args) >= 2 {
		for _, c := range commands {
			if c.name == os.Args[1] {
				if err := c.run(ctx, os.Args[2:]); err != nil {
					fmt.Fprintf(os.Stderr, "train-models %s: %v\n", c.name, err)
					os.Exit(1)
				}
				return
			}
		}
	}
	fmt.Fprintln(os.Stderr, "usage: train-models <command> [flags]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(os.Stderr, "  %-6s %s\n", c.name, c.summary)
	}
	os.Exit(2)
}

// envOr is the environment variable name, or def when it is empty or unset: a flag's default.
func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// faceFlags are the flags that say where the face models are and how much of the machine they use.
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

// extractWorkers is how many images are analysed at once: -face-workers, else one per CPU.
func (f faceFlags) extractWorkers() int {
	if *f.workers > 0 {
		return *f.workers
	}
	return runtime.NumCPU()
}

// analyzer initialises ONNX Runtime, checks the bundle and starts an analyzer without the trained
// models (they are what is being trained); faceRes runs FaceRes too, whose outputs the age and
// gender model reads.
func (f faceFlags) analyzer(faceRes bool) (*face.Analyzer, error) {
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
	if faceRes {
		x := b.FaceRes()
		if x == nil {
			return nil, fmt.Errorf("the attribute model reads FaceRes, which the bundle %s does not have", *f.modelsDir)
		}
		cfg.FaceResPath = b.Path(x)
	}
	return face.NewAnalyzer(cfg)
}
