package score_test

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hensachi/hensachi/face/score"
	"github.com/hensachi/hensachi/internal/testrig/facetest"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

// pearsonFloor is the measured test-split Pearson correlation (0.889) minus a margin for
// numerical differences between machines.
const pearsonFloor = 0.87

// TestCommittedModelOnTestSplit evaluates the committed model on the official test split with the
// service's own pipeline.
func TestCommittedModelOnTestSplit(t *testing.T) {
	testenv.Evaluation(t)
	a := facetest.Analyzer(t)
	dataset := testenv.Shared(t, "datasets/scut-fbp5500")
	_, test, err := score.ReadSplit(dataset)
	if err != nil {
		t.Fatal(err)
	}
	m, err := score.Load(filepath.Join(testenv.Models(t), "attractiveness.json"))
	if err != nil {
		t.Fatal(err)
	}
	test, missed, err := score.Extract(context.Background(), a, dataset, test, runtime.NumCPU())
	if err != nil {
		t.Fatal(err)
	}
	rep := m.Evaluate(test)
	t.Logf("test split: %+v (%d images without a face)", rep.Overall, missed)
	if rep.Overall.PC < pearsonFloor || missed > 10 {
		t.Errorf("Pearson %.4f (floor %.2f), %d images without a face", rep.Overall.PC, pearsonFloor, missed)
	}
	if d := rep.Overall.PC - m.Test.Overall.PC; d > 0.005 || d < -0.005 {
		t.Errorf("Pearson %.4f differs from the model card's %.4f", rep.Overall.PC, m.Test.Overall.PC)
	}
}
