package main

import (
	"context"
	"flag"

	"github.com/hensachi/hensachi/ingest"
)

func runFetch(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("fetch", flag.ContinueOnError)
	raw := fs.String("raw", "data/raw", "directory to download the source files into")
	if err := fs.Parse(args); err != nil {
		return err
	}
	return ingest.Fetch(ctx, *raw, nil)
}
