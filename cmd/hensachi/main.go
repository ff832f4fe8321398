// Command hensachi builds the municipality dataset and runs the service.
//
//	hensachi ingest   build the dataset file from the government source files
//	hensachi fetch    download the source files listed in the manifest
//	hensachi serve    run the HTTP server
//	hensachi account  manage accounts, keys, plans and usage
//	hensachi version  print the build, dataset and model versions
//
// The trained models it serves come from cmd/train-models.
package main

import (
	"log/slog"
	"os"

	"github.com/hensachi/hensachi/cmd/internal/cli"
	"github.com/hensachi/hensachi/internal/reqinfo"
)

func main() {
	// every record logged with a request's context carries its request id (and account)
	slog.SetDefault(slog.New(reqinfo.NewHandler(slog.NewTextHandler(os.Stderr, nil))))
	cli.Main("hensachi", []cli.Command{
		{Name: "ingest", Summary: "build the dataset file from the source files", Run: runIngest},
		{Name: "fetch", Summary: "download the source files into the raw directory and check their hashes", Run: runFetch},
		{Name: "serve", Summary: "run the HTTP server", Run: runServe},
		{Name: "account", Summary: "manage accounts, keys, plans and usage (operator)", Run: runAccount},
		{Name: "version", Summary: "print the build, dataset and model versions", Run: runVersion},
	})
}

// defaultRawDir is $RAW_DIR, else data/raw, else the shared inputs beside the checkout.
func defaultRawDir() string {
	if d := os.Getenv("RAW_DIR"); d != "" {
		return d
	}
	const local, shared = "data/raw", "../shared/data/raw"
	if _, err := os.Stat(local); err != nil {
		if _, err := os.Stat(shared); err == nil {
			return shared
		}
	}
	return local
}
