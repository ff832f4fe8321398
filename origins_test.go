package hensachi

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

func TestParseOrigins(t *testing.T) {
	for _, c := range []struct {
		list string
		want []string // nil with bad: an error
		bad  bool
	}{
		{"", nil, false},
		{"  \n ", nil, false},
		{"https://App.Example.com", []string{"https://app.example.com"}, false},
		{"https://a.example:443, http://b.example:80/", []string{"https://a.example", "http://b.example"}, false},
		{"http://localhost:5173\nhttp://127.0.0.1:8080 http://localhost:5173", []string{"http://localhost:5173", "http://127.0.0.1:8080"}, false},
		{"http://[::1]:3000", []string{"http://[::1]:3000"}, false},
		{"app.example.com", nil, true},
		{"ftp://example.com", nil, true},
		{"https://example.com/path", nil, true},
		{"https://user@example.com", nil, true},
		{"https://example.com?q", nil, true},
		{"https://", nil, true},
		{"null", nil, true},
		{"HTTP://:", nil, true},
		{"https://a.example:99999", nil, true},
		{"https://a.example:0", nil, true},
		{"https://ü.example", nil, true},
		{"https://xn--tda.example", []string{"https://xn--tda.example"}, false},
		{"https://" + strings.Repeat("a", 300) + ".com", nil, true},
		{strings.Repeat("https://x.example ", 1) + func() string {
			var b strings.Builder
			for i := range MaxOrigins {
				b.WriteString(" https://" + string(rune('a'+i)) + ".example")
			}
			return b.String()
		}(), nil, true},
	} {
		got, err := ParseOrigins(c.list)
		if c.bad {
			if ErrorCode(err) != EInvalidParameter || err.(*Error).Param != "origins" {
				t.Errorf("ParseOrigins(%.40q) = %q, %v; want an invalid_parameter error on origins", c.list, got, err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ParseOrigins(%q) = %q, %v; want %q", c.list, got, err, c.want)
		}
	}
}

func TestAllowsOrigin(t *testing.T) {
	open := Account{}
	listed := Account{Origins: []string{"https://app.example.com"}}
	for _, c := range []struct {
		a      Account
		origin string
		want   bool
	}{
		{open, "https://anything.example", true},
		{listed, "https://app.example.com", true},
		{listed, "https://evil.example", false},
		{listed, "http://app.example.com", false},
		{listed, "null", false},
	} {
		if got := c.a.AllowsOrigin(c.origin); got != c.want {
			t.Errorf("%q allows %q: %v, want %v", c.a.Origins, c.origin, got, c.want)
		}
	}
}

// FuzzParseOrigins feeds arbitrary text to ParseOrigins: it never panics, refuses with an
// invalid_parameter error on "origins", and what it accepts is at most MaxOrigins distinct
// origins, each of which parses again to itself, as browsers' Origin headers are compared.
func FuzzParseOrigins(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	for _, s := range []string{"", "https://a.example", "HTTP://B.example:80/, https://c.example:8443", "http://[::1]:3000",
		"https://x.example/path", "a, b\nc", "https://ü.example", "http://%41.example", "https://a.example:99999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, list string) {
		got, err := ParseOrigins(list)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Code != EInvalidParameter || e.Param != "origins" {
				t.Fatalf("ParseOrigins(%q): %v, not an invalid_parameter error on origins", list, err)
			}
			return
		}
		if len(got) > MaxOrigins {
			t.Fatalf("ParseOrigins(%q) accepted %d origins", list, len(got))
		}
		seen := map[string]bool{}
		for _, o := range got {
			again, err := ParseOrigins(o)
			if err != nil || len(again) != 1 || again[0] != o || seen[o] {
				t.Fatalf("ParseOrigins(%q) gave %q, which parses to %q, %v (or is repeated)", list, o, again, err)
			}
			seen[o] = true
		}
	})
}
