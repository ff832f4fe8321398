package main

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hensachi/hensachi/sqlite"
)

// TestAccountOrigins runs `hensachi account origins` as the operator does: it shows the list,
// sets it in the store in the form browsers send, refuses what is not an origin, and clears it.
func TestAccountOrigins(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "h.db")
	run := func(wantOK bool, args ...string) string {
		t.Helper()
		var out strings.Builder
		err := hensachiCmd(&out, append([]string{"account"}, args...)...).Run()
		if (err == nil) != wantOK {
			t.Fatalf("hensachi account %s: %v\n%s", strings.Join(args, " "), err, out.String())
		}
		return out.String()
	}
	run(true, "create", "-db", db, "-email", "a@example.com")
	stored := func() []string {
		t.Helper()
		s, err := sqlite.Open(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		a, err := s.AccountByEmail(context.Background(), "a@example.com")
		if err != nil {
			t.Fatal(err)
		}
		return a.Origins
	}
	for _, c := range []struct {
		args   []string
		ok     bool
		says   string
		stored []string
	}{
		{[]string{"-account", "1"}, true, "any origin may use its keys", nil},
		{[]string{"-account", "a@example.com", "-set", "https://App.example.com, http://localhost:5173"}, true,
			"  https://app.example.com\n  http://localhost:5173\n", []string{"https://app.example.com", "http://localhost:5173"}},
		{[]string{"-account", "1", "-set", "app.example.com"}, false, "not a web origin", []string{"https://app.example.com", "http://localhost:5173"}},
		{[]string{"-account", "1", "-set", "https://a.example", "-clear"}, false, "not both", []string{"https://app.example.com", "http://localhost:5173"}},
		{[]string{"-account", "1", "-clear"}, true, "any origin may use its keys", nil},
	} {
		out := run(c.ok, append([]string{"origins", "-db", db}, c.args...)...)
		if !strings.Contains(out, c.says) {
			t.Errorf("origins %s said:\n%s\nwant %q", strings.Join(c.args, " "), out, c.says)
		}
		if got := stored(); !slices.Equal(got, c.stored) {
			t.Errorf("after origins %s the store holds %q, want %q", strings.Join(c.args, " "), got, c.stored)
		}
	}
}
