// Package cli is what the project's commands (cmd/hensachi, cmd/train-models) share: running one
// of their subcommands, flag defaults from the environment, and the flags that start the face
// models.
package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// Command is a subcommand: its name, a line for the usage, and what it runs with its arguments.
type Command struct {
	Name, Summary string
	Run           func(ctx context.Context, args []string) error
}

// Main runs the subcommand named by the first argument with a context that SIGINT and SIGTERM
// cancel, and exits: 1 when it fails, 2 with the usage when none is named or the name is unknown.
func Main(program string, commands []Command) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, program, commands, os.Args[1:])
	stop()
	os.Exit(code)
}

func run(ctx context.Context, program string, commands []Command, args []string) int {
	if len(args) > 0 {
		for _, c := range commands {
			if c.Name == args[0] {
				if err := c.Run(ctx, args[1:]); err != nil {
					fmt.Fprintf(os.Stderr, "%s %s: %v\n", program, c.Name, err)
					return 1
				}
				return 0
			}
		}
	}
	width := 0
	for _, c := range commands {
		width = max(width, len(c.Name))
	}
	fmt.Fprintf(os.Stderr, "usage: %s <command> [flags]\n\ncommands:\n", program)
	for _, c := range commands {
		fmt.Fprintf(os.Stderr, "  %-*s  %s\n", width, c.Name, c.Summary)
	}
	return 2
}

// EnvOr is the environment variable name, or def when it is empty or unset: a flag's default.
func EnvOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
