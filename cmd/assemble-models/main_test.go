package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hensachi/hensachi/face/models"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

// TestAssemble builds the bundle from the shared mirror and npm, which also proves that the
// converters still produce exactly the gender-age and FaceRes models the manifest names.
func TestAssemble(t *testing.T) {
	mirror := testenv.Shared(t, "models")
	out := t.TempDir()
	var log bytes.Buffer
	if err := assemble(out, mirror, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if !strings.Contains(log.String(), "genderage_insightface2018_112.onnx (1109130 bytes") ||
		!strings.Contains(log.String(), "from the mxnet converter") {
		t.Errorf("log does not show the gender-age model being converted:\n%s", log.String())
	}
	if !strings.Contains(log.String(), "faceres_hse_deep.onnx (13955563 bytes") || !strings.Contains(log.String(), "from the tfjs converter") {
		t.Errorf("log does not show FaceRes being converted:\n%s", log.String())
	}
	if _, err := models.Load(out); err != nil {
		t.Fatal(err)
	}

	log.Reset()
	if err := assemble(out, mirror, &log); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(log.String(), "is up to date"); n != 4 || strings.Contains(log.String(), "wrote") {
		t.Errorf("second run did work:\n%s", log.String())
	}

	stale := filepath.Join(out, "genderage_insightface2018_112.onnx")
	if err := os.WriteFile(stale, []byte("truncated"), 0o644); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	if err := assemble(out, mirror, &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "is stale") {
		t.Errorf("a damaged file was not replaced:\n%s", log.String())
	}
}

func TestObtain(t *testing.T) {
	mirror := t.TempDir()
	if err := os.WriteFile(filepath.Join(mirror, "m.onnx"), []byte("other content"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := newSources(mirror)
	defer src.close()
	a := &models.Artifact{
		File: "m.onnx", Size: 5, SHA256: "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824", // "hello"
		Source: models.Source{Mirror: "m.onnx"},
	}
	if _, _, err := src.obtain(a); err == nil || !strings.Contains(err.Error(), "m.onnx from "+filepath.Join(mirror, "m.onnx")+": got 13 bytes") {
		t.Errorf("wrong mirror content: err = %v", err)
	}
	if err := os.WriteFile(filepath.Join(mirror, "m.onnx"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _, err := src.obtain(a); err != nil || string(b) != "hello" {
		t.Errorf("obtain = %q, %v", b, err)
	}
	a.Source.Mirror = "absent.onnx"
	if _, _, err := src.obtain(a); err == nil || !strings.Contains(err.Error(), "no source could provide it") ||
		!strings.Contains(err.Error(), "absent.onnx") {
		t.Errorf("no source: err = %v", err)
	}
}

func TestExtract(t *testing.T) {
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	tw := tar.NewWriter(z)
	for name, body := range map[string]string{"package/README.md": "readme", "package/model/fr_feature.onnx": "weights"} {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	z.Close()
	b, err := extract(bytes.NewReader(buf.Bytes()), "package/model/fr_feature.onnx")
	if err != nil || string(b) != "weights" {
		t.Fatalf("extract = %q, %v", b, err)
	}
	if _, err := extract(bytes.NewReader(buf.Bytes()), "package/model/none.onnx"); err == nil || !strings.Contains(err.Error(), "not in the package") {
		t.Errorf("missing member: err = %v", err)
	}
}
