package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/hensachi/hensachi/compute"
	"github.com/hensachi/hensachi/dataset"
	"github.com/hensachi/hensachi/ingest"
)

func runIngest(_ context.Context, args []string) error {
	fs := flag.NewFlagSet("ingest", flag.ContinueOnError)
	raw := fs.String("raw", defaultRawDir(), "directory of the source files (env RAW_DIR)")
	out := fs.String("out", "data/dataset.arrow", "dataset file to write")
	boundaries := fs.String("boundaries", "", "directory of the boundary files (env BOUNDARIES_DIR; default: boundaries beside the raw directory); without them the maps are off")
	report := fs.String("report", "", "where to write the null-value report (default: "+reportName+" beside -out; \"-\": standard output only)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	reportPath, err := ingestOutputs(*out, *report)
	if err != nil {
		return err
	}
	start := time.Now()
	log := slog.Default()
	log.Info("ingest", "raw", *raw, "out", *out)
	res, err := ingest.Build(*raw, log)
	if err != nil {
		return err
	}
	res.AddBoundaries(boundaryDir(*boundaries, *raw), log)
	step := time.Now()
	compute.Apply(res.Municipalities, &res.Meta)
	compute.ApplyIndicators(&res.Indicators, res.IndicatorValues)
	log.Info("ranked axes and hometown tax, summarised indicators", "municipalities", len(res.Municipalities), "indicators", len(res.Indicators.Indicators),
		"took", time.Since(step).Round(time.Millisecond).String())
	step = time.Now()
	version, err := dataset.Write(*out, res.Municipalities, res.Meta, dataset.WithIndicators(res.Indicators, res.IndicatorValues),
		dataset.WithItemNames(res.ItemNames), dataset.WithBoundaries(res.Boundaries, res.Meta.Boundaries.Unavailable))
	if err != nil {
		return err
	}
	log.Info("wrote dataset", "file", *out, "version", version, "took", time.Since(step).Round(time.Millisecond).String())
	if _, err := res.Report.WriteTo(os.Stdout); err != nil {
		return err
	}
	if reportPath != "" {
		f, err := os.Create(reportPath)
		if err != nil {
			return err
		}
		if _, err := res.Report.WriteTo(f); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	for _, m := range res.HashMismatches {
		fmt.Fprintln(os.Stderr, "warning:", m)
	}
	log.Info("ingest done", "version", version, "took", time.Since(start).Round(time.Millisecond).String())
	return nil
}

// boundaryDir is where the boundary files are: flag, else $BOUNDARIES_DIR, else boundaries beside
// the raw directory (data/boundaries, or ../shared/data/boundaries beside ../shared/data/raw).
func boundaryDir(flag, raw string) string {
	return cmp.Or(flag, os.Getenv("BOUNDARIES_DIR"), filepath.Join(filepath.Dir(filepath.Clean(raw)), "boundaries"))
}

// reportName is the null-value report's name beside the dataset file.
const reportName = "ingest-report.txt"

// ingestOutputs creates the directories the dataset file and the report go in, before the build,
// and returns the report's path: report, else reportName beside out; empty for "-" (standard
// output only).
func ingestOutputs(out, report string) (string, error) {
	switch report {
	case "-":
		report = ""
	case "":
		report = filepath.Join(filepath.Dir(out), reportName)
	}
	for _, p := range []string{out, report} {
		if p == "" {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
	}
	return report, nil
}
