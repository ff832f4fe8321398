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
