// Command train-models trains the models of face/score and face/attr with the service's own
// pipeline, evaluates them on the held-out data and writes the model files and their cards. With
// -check it retrains and verifies that the committed file is reproduced instead, as the tests of
// training do.
//
//	train-models score  train the attractiveness model on SCUT-FBP5500
//	train-models attrs  train the age and gender model on UTKFace and SCUT-FBP5500
//	train-models calibrate  fit the age ranges of the age and gender model on held-out faces
package main

import (
	"runtime"

	"github.com/hensachi/hensachi/cmd/internal/cli"
)

func main() {
	cli.Main("train-models", []cli.Command{
		{Name: "score", Summary: "train the attractiveness model on SCUT-FBP5500 and write its card", Run: runScore},
		{Name: "attrs", Summary: "train the age and gender model on UTKFace and SCUT-FBP5500 and write its cards", Run: runAttrs},
		{Name: "calibrate", Summary: "fit the age ranges of the age and gender model on held-out UTKFace faces analysed as the server does, and write their card", Run: runCalibrate},
	})
}

// extractWorkers is how many images are analysed at once: -face-workers, else one per CPU.
func extractWorkers(f cli.FaceFlags) int {
	if *f.Workers > 0 {
		return *f.Workers
	}
	return runtime.NumCPU()
}
