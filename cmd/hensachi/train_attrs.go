package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"

	"github.com/hensachi/hensachi/face/attr"
)

// runTrainAttrs trains the age and gender model on UTKFace and SCUT-FBP5500 with the service's own
// pipeline, evaluates it on the held-out parts and writes the model file and its cards; with
// -check it retrains and verifies that the committed file is reproduced instead.
func runTrainAttrs(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("train-attrs", flag.ContinueOnError)
	utkface := fs.String("utkface", envOr("UTKFACE", "../shared/datasets/utkface-train"), "UTKFace training pool directory (env UTKFACE)")
	scut := fs.String("scut", envOr("SCUT_FBP5500", "../shared/datasets/scut-fbp5500"), "SCUT-FBP5500 directory (env SCUT_FBP5500)")
	out := fs.String("out", "face/models/attributes.json", "model file to write")
	cardDir := fs.String("cards", "face/models", "directory of the model cards GENDER.md and AGE.md")
	check := fs.Bool("check", false, "verify that training reproduces -out instead of writing it")
	ff := addFaceFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	utk, err := attr.ReadUTKFace(*utkface)
	if err != nil {
		return fmt.Errorf("read UTKFace: %w", err)
	}
	sc, err := attr.ReadSCUT(*scut)
	if err != nil {
		return fmt.Errorf("read SCUT-FBP5500: %w", err)
	}
	a, err := ff.analyzerWith(false, true)
	if err != nil {
		return err
	}
	defer a.Close()
	workers := ff.extractWorkers()
	fmt.Fprintf(os.Stderr, "extracting features of %d UTKFace and %d SCUT-FBP5500 images and of a degraded copy of each…\n", len(utk), len(sc))
	missed := map[string]int{}
	var samples []attr.Sample
	for _, set := range [][]attr.Sample{utk, attr.DegradedCopies(utk), sc, attr.DegradedCopies(sc)} {
		got, n, err := attr.Extract(ctx, a, set, workers)
		if err != nil {
			return err
		}
		name := set[0].Source
		if set[0].Degraded {
			name += " (degraded copies)"
		}
		samples, missed[name] = append(samples, got...), n
	}
	m, err := attr.Train(samples, attr.Recipe{FaceRes: true})
	if err != nil {
		return err
	}
	m.Training.WithoutFace = missed
	for _, src := range []string{attr.SourceUTKFace, attr.SourceSCUT} {
		for kind, r := range map[string]*attr.Report{"": m.Test[src], ", degraded": m.TestDegraded[src]} {
			fmt.Printf("%s held out%s: %d faces, gender %.4f (adults %.4f), adult age MAE %.2f, ECE %.4f\n",
				src, kind, r.Overall.N, r.Overall.GenderAccuracy, r.Adults.GenderAccuracy, r.Adults.AgeMAE, r.GenderECE)
		}
	}
	if *check {
		return checkAttrsReproduced(*out, m, samples)
	}
	body, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(*out, append(body, '\n'), 0o644); err != nil {
		return err
	}
	for name, write := range map[string]func(*bytes.Buffer) error{
		"GENDER.md": func(b *bytes.Buffer) error { return m.WriteGenderCard(b) },
		"AGE.md":    func(b *bytes.Buffer) error { return m.WriteAgeCard(b) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			return err
		}
		if err := os.WriteFile(*cardDir+"/"+name, b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "wrote %s and the cards in %s\n", *out, *cardDir)
	return nil
}

// checkAttrsReproduced compares a fresh model with the committed one by what matters: the same
// network configuration, and the same outputs on the held-out faces to within float noise (ONNX
// Runtime kernels may differ in the last bits between CPUs, so the files need not be
// byte-identical).
func checkAttrsReproduced(path string, fresh *attr.Model, samples []attr.Sample) error {
	committed, err := attr.Load(path)
	if err != nil {
		return err
	}
	if committed.Training.Network != fresh.Training.Network {
		return fmt.Errorf("%s: retraining chose the network %+v, the committed model has %+v", path,
			fresh.Training.Network, committed.Training.Network)
	}
	var worstAge, worstMale float64
	for i := range samples {
		if !samples[i].HeldOut {
			continue
		}
		ca, cm, err := committed.Attributes(samples[i].Features)
		if err != nil {
			return err
		}
		fa, fm, err := fresh.Attributes(samples[i].Features)
		if err != nil {
			return err
		}
		worstAge, worstMale = math.Max(worstAge, math.Abs(ca-fa)), math.Max(worstMale, math.Abs(cm-fm))
	}
	const ageTolerance, probTolerance = 0.5, 0.01
	if worstAge > ageTolerance || worstMale > probTolerance {
		return fmt.Errorf("%s is not reproduced: ages differ by up to %.2g years (tolerance %g), P(male) by %.2g (tolerance %g)",
			path, worstAge, ageTolerance, worstMale, probTolerance)
	}
	fmt.Printf("%s reproduced: held-out ages agree within %.2g years, P(male) within %.2g\n", path, worstAge, worstMale)
	return nil
}
