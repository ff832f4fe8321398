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
)

// runHard makes the hard copies of a sample of UTKFace's fitted faces (training.HardCopy) and
// writes what the service, configured as the server is, finds and reads on each kind.
func runHard(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("hard", flag.ContinueOnError)
	utkface := utkfaceFlag(fs)
	n := fs.Int("n", 300, "faces in the sample, spread evenly over the fitted part's order (by age)")
	card := fs.String("card", "face/models/HARD_CASES.md", "the hard cases' card")
	ff := cli.AddFaceFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	fitted, err := readUTKFace(*utkface, false)
	if err != nil {
		return err
	}
	var sample []training.Sample
	for i := range min(*n, len(fitted)) {
		sample = append(sample, fitted[i*len(fitted)/min(*n, len(fitted))])
	}
	// the server as it is, and without its second look (the state before issue 26's recall work)
	var reports [2]*training.HardReport
	for i, secondLook := range []bool{false, true} {
		a, err := ff.Analyzer(true, false, func(c *face.Config) { c.SecondLook = secondLook })
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "analysing %d UTKFace faces and %d hard copies of each as the server does (second look: %v)…\n", len(sample), len(training.HardKinds), secondLook)
		reports[i], err = training.MeasureHard(ctx, a, sample)
		a.Close()
		if err != nil {
			return err
		}
	}
	var b bytes.Buffer
	if err := training.WriteHardCard(&b, reports[0], reports[1], fmt.Sprintf("%d UTKFace chips of the fitted part, spread over the ages", len(sample))); err != nil {
		return err
	}
	os.Stdout.Write(b.Bytes())
	return os.WriteFile(*card, b.Bytes(), 0o644)
}
