// Command train-models trains the models of face/score and face/attr with the service's own
// pipeline, evaluates them on the held-out data and writes the model files and their cards. With
// -check it retrains and verifies that the committed file is reproduced instead, as the tests of
// training do.
//
//	train-models score  train the attractiveness model on SCUT-FBP5500
//	train-models attrs  train the age and gender model on UTKFace and SCUT-FBP5500
//	train-models calibrate  fit the age ranges of the age and gender model on held-out faces
//	train-models hardcases  measure the service on hard-case pictures (training/hardcase): faces
//	                        pasted onto photos without people, false faces and group photos included
package main

import (
	"flag"
	"fmt"
	"runtime"

	"github.com/hensachi/hensachi/cmd/internal/cli"
	"github.com/hensachi/hensachi/training"
)

func main() {
	cli.Main("train-models", []cli.Command{
		{Name: "score", Summary: "train the attractiveness model on SCUT-FBP5500 and write its card", Run: runScore},
		{Name: "attrs", Summary: "train the age and gender model on UTKFace and SCUT-FBP5500 and write its cards", Run: runAttrs},
		{Name: "hardcases", Summary: "measure the service, without and with its second look, on hard-case pictures (faces on photos without people) and write their figures and card", Run: runHardCases},
		{Name: "calibrate", Summary: "fit the age ranges of the age and gender model on held-out UTKFace faces analysed as the server does, and write their card", Run: runCalibrate},
	})
}

// utkfaceFlag defines the flag of the UTKFace training pool's directory on fs.
func utkfaceFlag(fs *flag.FlagSet) *string {
	return fs.String("utkface", cli.EnvOr("UTKFACE", "../shared/datasets/utkface-train"), "UTKFace training pool directory (env UTKFACE)")
}

// scutFlag defines the flag of the SCUT-FBP5500 directory on fs.
func scutFlag(fs *flag.FlagSet) *string {
	return fs.String("scut", cli.EnvOr("SCUT_FBP5500", "../shared/datasets/scut-fbp5500"), "SCUT-FBP5500 directory (env SCUT_FBP5500)")
}

// readUTKFace reads the UTKFace training pool, with held-out (its held-out part) or without it.
func readUTKFace(dir string, heldOut bool) ([]training.Sample, error) {
	utk, err := training.ReadUTKFace(dir)
	if err != nil {
		return nil, fmt.Errorf("read UTKFace: %w", err)
	}
	var part []training.Sample
	for _, s := range utk {
		if s.HeldOut == heldOut {
			part = append(part, s)
		}
	}
	return part, nil
}

// extractWorkers is how many images are analysed at once: -face-workers, else one per CPU.
func extractWorkers(f cli.FaceFlags) int {
	if *f.Workers > 0 {
		return *f.Workers
	}
	return runtime.NumCPU()
}
