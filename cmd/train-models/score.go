package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/hensachi/hensachi/cmd/internal/cli"
	"github.com/hensachi/hensachi/face/score"
	"github.com/hensachi/hensachi/training"
	"github.com/hensachi/hensachi/training/attractiveness"
)

// runScore trains the attractiveness model on SCUT-FBP5500, evaluates it on the test split and
// writes the model file and its card; with -check it verifies that -out is reproduced instead.
func runScore(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("score", flag.ContinueOnError)
	dataset := fs.String("dataset", cli.EnvOr("SCUT_FBP5500", "../shared/datasets/scut-fbp5500"), "SCUT-FBP5500 directory (env SCUT_FBP5500)")
	out := fs.String("out", "face/models/attractiveness.json", "model file to write")
	card := fs.String("card", "face/models/ATTRACTIVENESS.md", "model card to write")
	check := fs.Bool("check", false, "verify that training reproduces -out instead of writing it")
	ff := cli.AddFaceFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	train, test, err := training.ReadSplit(*dataset)
	if err != nil {
		return fmt.Errorf("read the dataset: %w", err)
	}
	a, err := ff.Analyzer(false, false)
	if err != nil {
		return err
	}
	defer a.Close()
	workers := extractWorkers(ff)
	fmt.Fprintf(os.Stderr, "extracting features of %d training and %d test images…\n", len(train), len(test))
	train, missedTrain, err := training.Extract(ctx, a, train, workers)
	if err != nil {
		return err
	}
	test, missedTest, err := training.Extract(ctx, a, test, workers)
	if err != nil {
		return err
	}
	testSamples := attractiveness.Samples(test)
	m, err := attractiveness.Train(attractiveness.Samples(train), testSamples, missedTrain, missedTest)
	if err != nil {
		return err
	}
	o := m.Test.Overall
	fmt.Printf("λ %g · test split %d images: Pearson %.4f  MAE %.4f  RMSE %.4f\n", m.Training.Chosen, o.N, o.PC, o.MAE, o.RMSE)
	for _, g := range []string{"AF", "AM", "CF", "CM"} {
		x := m.Test.Groups[g]
		fmt.Printf("  %s %4d images: Pearson %.4f  MAE %.4f  RMSE %.4f\n", g, x.N, x.PC, x.MAE, x.RMSE)
	}
	if *check {
		committed, err := score.Load(*out)
		if err != nil {
			return err
		}
		how, err := attractiveness.Reproduced(committed, m, testSamples)
		if err != nil {
			return fmt.Errorf("%s: %w", *out, err)
		}
		fmt.Printf("%s reproduced: %s\n", *out, how)
		return nil
	}
	body, err := training.Encode(m)
	if err != nil {
		return err
	}
	if err := os.WriteFile(*out, body, 0o644); err != nil {
		return err
	}
	var c bytes.Buffer
	if err := attractiveness.WriteCard(&c, m); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s and %s\n", *out, *card)
	return os.WriteFile(*card, c.Bytes(), 0o644)
}
