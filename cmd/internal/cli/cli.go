// Package cli is what the project's commands (cmd/hensachi, cmd/train-models) share: running one
// of their subcommands, flag defaults from the environment, and the flags that start the face
// models.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
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
// cancel, and exits: 0 when it succeeds or only its help was asked for (-h, -help: the flag
// package prints it), 1 when it fails, 2 with the usage when none is named or the name is unknown.
// `program -h` (or -help, --help, help) prints the usage and exits 0.
func Main(program string, commands []Command) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, program, commands, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, program string, commands []Command, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr, program, commands)
		return 2
	}
	if IsHelp(args[0]) || args[0] == "help" {
		usage(stdout, program, commands)
		return 0
	}
	for _, c := range commands {
		if c.Name == args[0] {
			err := c.Run(ctx, args[1:])
			switch {
			case err == nil:
				return 0
			case errors.Is(err, flag.ErrHelp): // the help the command printed was asked for
				return 0
			}
			fmt.Fprintf(stderr, "%s %s: %v\n", program, c.Name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "%s: unknown command %q\n", program, args[0])
	usage(stderr, program, commands)
	return 2
}

// IsHelp reports whether a command-line argument asks for help, as the flag package reads it.
func IsHelp(arg string) bool {
	switch arg {
	case "-h", "-help", "--h", "--help":
		return true
	}
	return false
}

func usage(w io.Writer, program string, commands []Command) {
	width := 0
	for _, c := range commands {
		width = max(width, len(c.Name))
	}
	fmt.Fprintf(w, "usage: %s <command> [flags]\n\ncommands:\n", program)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.Name, c.Summary)
	}
	fmt.Fprintf(w, "\n'%s <command> -h' lists a command's flags.\n", program)
}

// EnvOr is the environment variable name, or def when it is empty or unset: a flag's default.
func EnvOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
