package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/hensachi/hensachi/dataset"
	"github.com/hensachi/hensachi/internal/testrig/realdata"
)

func TestBuildVersion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		info *debug.BuildInfo
		want string
	}{
		{&debug.BuildInfo{GoVersion: "go1.26", Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3, go1.26"},
		{&debug.BuildInfo{GoVersion: "go1.26", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"}}},
			"0123456789ab 2026-01-02T03:04:05Z (modified), go1.26"},
		{&debug.BuildInfo{GoVersion: "go1.26", Main: debug.Module{Version: "(devel)"}}, "(devel), go1.26"},
		{nil, "(no build information)"},
	} {
		if got := buildVersion(tc.info); got != tc.want {
			t.Errorf("buildVersion: %q, want %q", got, tc.want)
		}
	}
}

// TestWriteVersion: the dataset's version as the server logs it, the models' files, and absent
// files said so rather than failing.
func TestWriteVersion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var out bytes.Buffer
	writeVersion(&out, &debug.BuildInfo{GoVersion: "go1.26", Main: debug.Module{Version: "v1.0.0"}}, filepath.Join(dir, "none.arrow"), dir)
	for _, want := range []string{"hensachi v1.0.0, go1.26\n", "none.arrow: absent\n", "detector", "yunet_n_dynamic.onnx", "attractiveness.json                  absent\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("with nothing on disk, the output lacks %q:\n%s", want, out.String())
		}
	}

	ds := realdata.Write(t, dir)
	os.WriteFile(filepath.Join(dir, "attributes.json"), []byte(`{"format_version":2,"name":"age-gender-test"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "yunet_n_dynamic.onnx"), []byte("not the model"), 0o644)
	out.Reset()
	writeVersion(&out, nil, ds, dir)
	d, err := dataset.Open(ds)
	if err != nil {
		t.Fatal(err)
	}
	version := d.Version
	d.Close()
	for _, want := range []string{": version " + version + ", ", "age-gender-test\n", "differs from the manifest"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q:\n%s", want, out.String())
		}
	}
}
