// Command hensachi builds the municipality dataset and runs the service.
//
//	hensachi ingest   build the dataset file from the government source files
//	hensachi fetch    download the source files listed in the manifest
//	hensachi serve    run the HTTP server
//	hensachi account  manage accounts, keys, plans and usage
//
// The trained models it serves come from cmd/train-models.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

type command struct {
	name, summary string
	run           func(ctx context.Context, args []string) error
}

var commands = []command{
	{"ingest", "build the dataset file from the source files", runIngest},
	{"fetch", "download the source files into the raw directory and check their hashes", runFetch},
	{"serve", "run the HTTP server", runServe},
	{"account", "manage accounts, keys, plans and usage (operator)", runAccount},
}

func main() {
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, nil)))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	for _, c := range commands {
		if c.name == os.Args[1] {
			if err := c.run(ctx, os.Args[2:]); err != nil {
				fmt.Fprintf(os.Stderr, "hensachi %s: %v\n", c.name, err)
				os.Exit(1)
			}
			return
		}
	}
	usage()
	os.Exit(2)
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: hensachi <command> [flags]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(os.Stderr, "  %-8s %s\n", c.name, c.summary)
	}
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

// envOr is the environment variable name, or def when it is empty or unset: a flag's default.
func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
