package hensachi

import (
	"slices"
	"strings"
	"testing"
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
