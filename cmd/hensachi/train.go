package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"

	"github.com/hensachi/hensachi/face/score"
)

// runTrainScore trains the attractiveness model on SCUT-FBP5500 with the service's own pipeline,
// evaluates it on the test split and writes the model file and its card; with -check it retrains
// and verifies that the committed file is reproduced instead.
func runTrainScore(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("train-score", flag.ContinueOnError)
	dataset := fs.String("dataset", envOr("SCUT_FBP5500", "../shared/datasets/scut-fbp5500"), "SCUT-FBP5500 directory (env SCUT_FBP5500)")
	out := fs.String("out", "face/models/attractiveness.json", "model file to write")
	card := fs.String("card", "face/models/ATTRACTIVENESS.md", "model card to write")
	check := fs.Bool("check", false, "verify that training reproduces -out instead of writing it")
	ff := addFaceFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	train, test, err := score.ReadSplit(*dataset)
	if err != nil {
		return fmt.Errorf("read the dataset: %w", err)
	}
	a, err := ff.analyzer(false)
	if err != nil {
		return err
	}
	defer a.Close()
	workers := ff.extractWorkers()
	fmt.Fprintf(os.Stderr, "extracting features of %d training and %d test images…\n", len(train), len(test))
	train, missedTrain, err := score.Extract(ctx, a, *dataset, train, workers)
	if err != nil {
		return err
	}
	test, missedTest, err := score.Extract(ctx, a, *dataset, test, workers)
	if err != nil {
		return err
	}
	m, err := score.Fit(train)
	if err != nil {
		return err
	}
	m.Name = "hensachi-attractiveness-ridge-v1"
	m.Features = "the 512-d output of face_embedding_512_faceplugin.onnx on the largest face, YuNet-detected and aligned to the ArcFace 112×112 template, RGB (p − 127)/128"
	m.Training.Dataset = "SCUT-FBP5500 v2 (HCIILAB)"
	m.Training.Licence = "non-commercial research only (SCUT-FBP5500 README); a model trained on it very probably inherits that restriction"
	m.Training.Split = "official 60/40 split, training part"
	m.Training.Extra = map[string]float64{"train_images_without_face": float64(missedTrain), "test_images_without_face": float64(missedTest)}
	m.Test = m.Evaluate(test)
	o := m.Test.Overall
	fmt.Printf("λ %g · test split %d images: Pearson %.4f  MAE %.4f  RMSE %.4f\n", m.Training.Chosen, o.N, o.PC, o.MAE, o.RMSE)
	for _, g := range []string{"AF", "AM", "CF", "CM"} {
		x := m.Test.Groups[g]
		fmt.Printf("  %s %4d images: Pearson %.4f  MAE %.4f  RMSE %.4f\n", g, x.N, x.PC, x.MAE, x.RMSE)
	}
	body, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	body = append(body, '\n')
	if *check {
		return checkReproduced(*out, m, test)
	}
	if err := os.WriteFile(*out, body, 0o644); err != nil {
		return err
	}
	var c bytes.Buffer
	if err := m.WriteCard(&c); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s and %s\n", *out, *card)
	return os.WriteFile(*card, c.Bytes(), 0o644)
}

// checkReproduced compares a fresh model with the committed one by what matters: the same λ, and
// the same predictions on the test images to within float noise (ONNX Runtime kernels may differ in
// the last bits between CPUs, so the files need not be byte-identical).
func checkReproduced(path string, fresh *score.Model, test []score.Sample) error {
	committed, err := score.Load(path)
	if err != nil {
		return err
	}
	if committed.Training.Chosen != fresh.Training.Chosen {
		return fmt.Errorf("%s: retraining chose λ %g, the committed model %g", path, fresh.Training.Chosen, committed.Training.Chosen)
	}
	worst := 0.0
	for _, s := range test {
		worst = math.Max(worst, math.Abs(committed.Ridge.Predict(s.Features)-fresh.Ridge.Predict(s.Features)))
	}
	const tolerance = 1e-3
	if worst > tolerance {
		return fmt.Errorf("%s is not reproduced: predictions differ by up to %.2g (tolerance %g)", path, worst, tolerance)
	}
	fmt.Printf("%s reproduced: predictions on the test split agree within %.2g\n", path, worst)
	return nil
}
