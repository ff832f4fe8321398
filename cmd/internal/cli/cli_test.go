package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	var got []string
	commands := []Command{
		{Name: "ok", Run: func(_ context.Context, args []string) error { got = args; return nil }},
		{Name: "fails", Run: func(context.Context, []string) error { return errors.New("broken") }},
	}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"ok", "-x", "1"}, 0},
		{[]string{"fails"}, 1},
		{[]string{"unknown"}, 2},
		{nil, 2},
	} {
		got = nil
		if code := run(context.Background(), "prog", commands, tc.args, new(bytes.Buffer), new(bytes.Buffer)); code != tc.code {
			t.Errorf("run %q: exit %d, want %d", tc.args, code, tc.code)
		}
	}
	if run(context.Background(), "prog", commands, []string{"ok", "a"}, new(bytes.Buffer), new(bytes.Buffer)); len(got) != 1 || got[0] != "a" {
		t.Errorf("the command got %q, want its arguments after the name", got)
	}
}

// TestHelp: -h, of the program or of a command that parses its flags, prints the usage and exits
// 0, without "flag: help requested".
func TestHelp(t *testing.T) {
	commands := []Command{{Name: "cmd", Summary: "does a thing", Run: func(_ context.Context, args []string) error {
		fs := flag.NewFlagSet("cmd", flag.ContinueOnError)
		var out bytes.Buffer
		fs.SetOutput(&out)
		fs.String("out", "", "where to write")
		if err := fs.Parse(args); err != nil {
			return fmt.Errorf("parse: %w", err) // wrapped: cli still sees the help
		}
		return nil
	}}}
	for _, args := range [][]string{{"-h"}, {"-help"}, {"--help"}, {"help"}, {"cmd", "-h"}, {"cmd", "-help"}} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), "prog", commands, args, &stdout, &stderr)
		if code != 0 || strings.Contains(stderr.String(), "help requested") {
			t.Errorf("run %q: exit %d, stderr %q; want 0 and no error", args, code, stderr.String())
		}
		if args[0] != "cmd" && !strings.Contains(stdout.String(), "does a thing") {
			t.Errorf("run %q printed %q, want the usage", args, stdout.String())
		}
	}
}

// TestUnknownCommand: the unknown name is said before the usage, exit 2.
func TestUnknownCommand(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), "prog", []Command{{Name: "ok", Summary: "fine"}}, []string{"x"}, &stdout, &stderr)
	if want := "prog: unknown command \"x\"\nusage: prog"; code != 2 || !strings.HasPrefix(stderr.String(), want) || !strings.Contains(stderr.String(), "fine") {
		t.Errorf("exit %d, stderr %q; want 2 and %q then the usage", code, stderr.String(), want)
	}
}
