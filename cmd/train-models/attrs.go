package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hensachi/hensachi/cmd/internal/cli"
	"github.com/hensachi/hensachi/face/attr"
	"github.com/hensachi/hensachi/training"
	"github.com/hensachi/hensachi/training/attributes"
)

// runAttrs trains the age and gender model on UTKFace and SCUT-FBP5500, evaluates it on the held-out
// parts and writes the model file and its cards; with -check it verifies that -out is reproduced
// instead.
func runAttrs(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("attrs", flag.ContinueOnError)
	utkface := utkfaceFlag(fs)
	scut := scutFlag(fs)
	out := fs.String("out", "face/models/attributes.json", "model file to write")
	cardDir := fs.String("cards", "face/models", "directory of the model cards GENDER.md and AGE.md")
	check := fs.Bool("check", false, "verify that training reproduces -out instead of writing it")
	ff := cli.AddFaceFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	utk, err := training.ReadUTKFace(*utkface)
	if err != nil {
		return fmt.Errorf("read UTKFace: %w", err)
	}
	sc, err := training.ReadSCUT(*scut)
	if err != nil {
		return fmt.Errorf("read SCUT-FBP5500: %w", err)
	}
	a, err := ff.Analyzer(false, true)
	if err != nil {
		return err
	}
	defer a.Close()
	fmt.Fprintf(os.Stderr, "extracting features of %d UTKFace and %d SCUT-FBP5500 images and of a degraded and a hard copy of each…\n", len(utk), len(sc))
	samples, missed, err := attributes.Extract(ctx, a, [][]training.Sample{utk, sc}, extractWorkers(ff))
	if err != nil {
		return err
	}
	m, err := attributes.Train(samples, attr.Recipe{FaceRes: true})
	if err != nil {
		return err
	}
	m.Training.WithoutFace = missed
	if err := attributes.CompareWithoutHard(m, samples); err != nil {
		return err
	}
	for _, src := range []string{training.SourceUTKFace, training.SourceSCUT} {
		for kind, r := range map[string]*attr.Report{"": m.Test[src], ", degraded": m.TestDegraded[src], ", hard copies": m.TestHard[src][attributes.AllHard]} {
			fmt.Printf("%s held out%s: %d faces, gender %.4f (adults %.4f), adult age MAE %.2f, ECE %.4f\n",
				src, kind, r.Overall.N, r.Overall.GenderAccuracy, r.Adults.GenderAccuracy, r.Adults.AgeMAE, r.GenderECE)
		}
	}
	if *check {
		committed, err := attr.Load(*out)
		if err != nil {
			return err
		}
		how, err := attributes.Reproduced(committed, m, samples)
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
	for name, write := range map[string]func(io.Writer, *attr.Model) error{
		"GENDER.md": attributes.WriteGenderCard,
		"AGE.md":    attributes.WriteAgeCard,
	} {
		var b bytes.Buffer
		if err := write(&b, m); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(*cardDir, name), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "wrote %s and the cards in %s\n", *out, *cardDir)
	return nil
}
