package serve

import (
	"net/http"
	"testing"
)

// TestAddVary: Vary keeps what it names already, once each, in one line.
func TestAddVary(t *testing.T) {
	h := http.Header{}
	addVary(h, "Origin")
	addVary(h, "Accept-Encoding")
	addVary(h, "origin")
	if got := h.Values("Vary"); len(got) != 1 || got[0] != "Origin, Accept-Encoding" {
		t.Errorf("Vary %q", got)
	}
	h = http.Header{"Vary": {"Cookie", "Accept-Encoding"}}
	addVary(h, "Origin")
	if got := h.Values("Vary"); len(got) != 1 || got[0] != "Cookie, Accept-Encoding, Origin" {
		t.Errorf("Vary %q", got)
	}
	h = http.Header{"Vary": {"*"}}
	if addVary(h, "Origin"); h.Get("Vary") != "*" {
		t.Errorf("Vary %q after *", h.Values("Vary"))
	}
}
