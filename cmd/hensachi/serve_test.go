package main

import (
	"testing"

	"github.com/hensachi/hensachi/serve"
)

// TestExportRateFlag: -export-rate is MiB per second, 0 turns pacing off, and the default is the
// server's.
func TestExportRateFlag(t *testing.T) {
	t.Setenv("HENSACHI_EXPORT_RATE", "")
	for _, tc := range []struct {
		args []string
		want int64
	}{{nil, serve.DefaultExportRate}, {[]string{"-export-rate", "16"}, 16 << 20}, {[]string{"-export-rate", "0"}, -1}} {
		m := NewMain()
		if err := m.ParseFlags(tc.args); err != nil || m.ExportRate != tc.want {
			t.Errorf("%v: %d, %v; want %d", tc.args, m.ExportRate, err, tc.want)
		}
	}
	for _, bad := range []string{"-1", "fast", "1.5"} {
		if err := NewMain().ParseFlags([]string{"-export-rate", bad}); err == nil {
			t.Errorf("-export-rate %s: no error", bad)
		}
	}
}
