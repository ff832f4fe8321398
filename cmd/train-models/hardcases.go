package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/hensachi/hensachi/cmd/internal/cli"
	"github.com/hensachi/hensachi/face"
	"github.com/hensachi/hensachi/training"
	"github.com/hensachi/hensachi/training/hardcase"
)

// runHardCases measures the pipeline on the hard-case set, drawn from the fitted part of UTKFace
// and SCUT-FBP5500 and pasted on photos without people, configured as the server is, without its
// second look and with it, and writes the figures and their card;
// with -check it verifies that -out is reproduced instead.
func runHardCases(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("hardcases", flag.ContinueOnError)
	utkface := utkfaceFlag(fs)
	scutDir := scutFlag(fs)
	noface := fs.String("noface", cli.EnvOr("NOFACE_DIR", "build/noface"), "photos without people, from scripts/fetch-noface.sh (env NOFACE_DIR)")
	out := fs.String("out", "face/models/hardcases.json", "figures file to write")
	card := fs.String("card", "face/models/HARDCASES.md", "card to write")
	check := fs.Bool("check", false, "verify that measuring again reproduces -out instead of writing it")
	ff := cli.AddFaceFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	utk, err := readUTKFace(*utkface, false)
	if err != nil {
		return err
	}
	scut, err := training.ReadSCUT(*scutDir)
	if err != nil {
		return fmt.Errorf("read SCUT-FBP5500: %w", err)
	}
	// the server as it is, and without its second look (face.Config.SecondLook)
	service, err := ff.Analyzer(true, false)
	if err != nil {
		return err
	}
	defer service.Close()
	first, err := ff.Analyzer(true, false, func(c *face.Config) { c.SecondLook = false })
	if err != nil {
		return err
	}
	defer first.Close()
	f, err := hardcase.Run(ctx, first.Detect, first.Analyze, service.Analyze, utk, scut, *noface, extractWorkers(ff))
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := hardcase.WriteCard(&b, f); err != nil {
		return err
	}
	if *check {
		committed, err := hardcase.Load(*out)
		if err != nil {
			return err
		}
		if err := hardcase.Reproduced(committed, f); err != nil {
			return fmt.Errorf("%s: %w", *out, err)
		}
		fmt.Printf("%s reproduced\n", *out)
		return nil
	}
	body, err := training.Encode(f)
	if err != nil {
		return err
	}
	if err := os.WriteFile(*out, body, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(*card, b.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s and %s\n", *out, *card)
	return nil
}
