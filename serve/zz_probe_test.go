package serve_test

import (
	"os"
	"testing"
)

func TestZZProbe(t *testing.T) {
	ts := newTestServer(t)
	for i, p := range []string{"/town/v1/compare?codes=13101,28214&indicators=fiscal_strength", "/town/v1/indicators?group=%E8%B2%A1%E6%94%BF"} {
		r := ts.get(t, p)
		os.WriteFile("/tmp/cmpprobe/out"+string(rune('0'+i))+".json", r.body, 0o644)
	}
}
