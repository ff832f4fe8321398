package negotiate

import (
	"net/http"
	"testing"
)

func TestAcceptsGzip(t *testing.T) {
	cases := []struct {
		lines []string
		want  bool
	}{
		{nil, false},
		{[]string{"gzip"}, true},
		{[]string{"GZIP"}, true},
		{[]string{"deflate, gzip;q=0.5"}, true},
		{[]string{"gzip; q=0"}, false},
		{[]string{"gzip;q=0.0"}, false},
		{[]string{"br"}, false},
		{[]string{"*"}, true},
		{[]string{"*;q=0"}, false},
		{[]string{"*, gzip;q=0"}, false}, // gzip named outweighs the wildcard
		{[]string{"gzip;q=0, *"}, false},
		{[]string{"br", "gzip"}, true}, // several header lines are one list
		{[]string{"identity"}, false},
	}
	for _, c := range cases {
		h := http.Header{"Accept-Encoding": c.lines}
		if got := AcceptsGzip(h); got != c.want {
			t.Errorf("Accept-Encoding %q: %v, want %v", c.lines, got, c.want)
		}
	}
}

// TestNoneMatch: If-None-Match's list under the weak comparison, "*", several lines, and a
// malformed field, which matches nothing.
func TestNoneMatch(t *testing.T) {
	cases := []struct {
		lines []string
		etag  string
		want  bool
	}{
		{nil, `"v1"`, false},
		{[]string{`"v1"`}, `"v1"`, true},
		{[]string{`"v1"`}, `W/"v1"`, true}, // weak comparison, either side weak
		{[]string{`W/"v1"`}, `"v1"`, true},
		{[]string{`"v2"`}, `"v1"`, false},
		{[]string{`"v0", "v1"`}, `"v1"`, true},
		{[]string{`"v0" ,W/"v1"`}, `"v1"`, true},
		{[]string{` , "v1",,`}, `"v1"`, true},    // empty elements are allowed
		{[]string{`"v0"`, `"v1"`}, `"v1"`, true}, // several lines are one list
		{[]string{`"a,b"`}, `"a,b"`, true},       // a comma inside a tag is the tag's
		{[]string{`"a,b"`}, `"a"`, false},
		{[]string{`*`}, `"v1"`, true},
		{[]string{` * `}, `"v1"`, true},
		{[]string{`"v1"garbage`}, `"v1"`, false}, // text after a tag
		{[]string{`"v1" "v2"`}, `"v1"`, false},   // no comma between tags
		{[]string{`v1`}, `"v1"`, false},          // no quotes
		{[]string{`"v1`}, `"v1"`, false},         // unterminated
		{[]string{`w/"v1"`}, `"v1"`, false},      // W/ is case-sensitive
		{[]string{`"v1", *`}, `"v1"`, false},     // "*" is the whole field or nothing
		{[]string{`"v1"`, `*`}, `"v1"`, false},
		{[]string{`"v 1"`}, `"v 1"`, false},     // a space is no etagc
		{[]string{`"v1", "x"y`}, `"v1"`, false}, // malformed anywhere: nothing matches
		{[]string{""}, `"v1"`, false},
	}
	for _, c := range cases {
		h := http.Header{"If-None-Match": c.lines}
		if got := NoneMatch(h, c.etag); got != c.want {
			t.Errorf("If-None-Match %q against %s: %v, want %v", c.lines, c.etag, got, c.want)
		}
	}
}

func TestWantsPage(t *testing.T) {
	tests := []struct {
		method, accept string
		want           bool
	}{
		{"GET", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", true}, // Chromium
		{"HEAD", "text/html", true},
		{"GET", "TEXT/HTML; q=0.5", true},
		{"GET", "*/*", false}, // curl
		{"GET", "application/json", false},
		{"GET", "", false},
		{"GET", "text/html;q=0", false},
		{"POST", "text/html", false},
	}
	for _, tt := range tests {
		r, _ := http.NewRequest(tt.method, "/x", nil)
		if tt.accept != "" {
			r.Header.Set("Accept", tt.accept)
		}
		if got := WantsPage(r); got != tt.want {
			t.Errorf("%s Accept %q: %v, want %v", tt.method, tt.accept, got, tt.want)
		}
	}
}
