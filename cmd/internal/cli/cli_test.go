package cli

import (
	"context"
	"errors"
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
		if code := run(context.Background(), "prog", commands, tc.args); code != tc.code {
			t.Errorf("run %q: exit %d, want %d", tc.args, code, tc.code)
		}
	}
	if run(context.Background(), "prog", commands, []string{"ok", "a"}); len(got) != 1 || got[0] != "a" {
		t.Errorf("the command got %q, want its arguments after the name", got)
	}
}
