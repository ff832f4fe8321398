package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hensachi/hensachi/cmd/internal/cli"
	"github.com/hensachi/hensachi/face/attr"
	"github.com/hensachi/hensachi/training"
	"github.com/hensachi/hensachi/training/attributes"
)

// runCalibrate fits the age ranges of the committed age and gender model on held-out UTKFace
// faces analysed as the server analyses an upload, measures them by cross-fitting on two halves of
// those faces and writes the range file and its card; with -check it verifies that -out is
// reproduced instead.
func runCalibrate(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	utkface := utkfaceFlag(fs)
	model := fs.String("model", "face/models/attributes.json", "the age and gender model whose ages are calibrated")
	out := fs.String("out", "face/models/"+cli.AgeRangesFile, "age range file to write")
	card := fs.String("card", "face/models/AGE_RANGE.md", "the age ranges' card")
	check := fs.Bool("check", false, "verify that calibrating reproduces -out instead of writing it")
	ff := cli.AddFaceFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	m, err := attr.Load(*model)
	if err != nil {
		return err
	}
	held, err := readUTKFace(*utkface, true)
	if err != nil {
		return err
	}
	// the server's analyzer, quick pass included: the ranges are of the ages it reports
	a, err := ff.Analyzer(true, false)
	if err != nil {
		return err
	}
	defer a.Close()
	fmt.Fprintln(os.Stderr, "analysing the held-out UTKFace images as the server does…")
	r, missed, err := attributes.CalibrateServed(ctx, a, m, held, extractWorkers(ff))
	if err != nil {
		return err
	}
	served := r.Calibration.Served
	fmt.Printf("%d held-out faces (%d without a face): ranges held %.4f of the %d measured, mean width %.1f years; served gender %.4f, age MAE %.2f (the model card: %.4f, %.2f)\n",
		served.Overall.N, missed, r.Calibration.Overall.Coverage, r.Calibration.Evaluated, r.Calibration.Overall.Width,
		served.Overall.GenderAccuracy, served.Overall.AgeMAE, m.Test[training.SourceUTKFace].Overall.GenderAccuracy, m.Test[training.SourceUTKFace].Overall.AgeMAE)
	body, err := training.Encode(r)
	if err != nil {
		return err
	}
	if *check {
		committed, err := os.ReadFile(*out)
		if err != nil {
			return err
		}
		if !bytes.Equal(committed, body) {
			return fmt.Errorf("%s is not reproduced: calibrating again gives other ranges or figures", *out)
		}
		fmt.Printf("%s reproduced byte for byte\n", *out)
		return nil
	}
	if err := os.WriteFile(*out, body, 0o644); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := attributes.WriteAgeRangeCard(&b, r, m); err != nil {
		return err
	}
	if err := os.WriteFile(*card, b.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s and %s\n", *out, filepath.Base(*card))
	return nil
}
