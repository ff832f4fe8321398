package models

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestManifest(t *testing.T) {
	m, err := ParseManifest()
	if err != nil {
		t.Fatal(err)
	}
	b := &Bundle{Dir: "dir", Manifest: m}
	det, ga, emb := b.Detector(), b.GenderAge(), b.Embedding()
	if det == nil || ga == nil || emb == nil {
		t.Fatalf("detector %v, genderage %v, embedding %v", det, ga, emb)
	}
	if det.Input.Name != "input" || det.Input.Colour != "BGR" || det.Input.SizeMultiple != 32 || len(det.Outputs) != 12 ||
		len(det.Strides) != 3 || det.Align != nil {
		t.Errorf("detector %+v", det)
	}
	if ga.Input.Name != "data" || ga.Input.Colour != "RGB" || ga.Input.Scale != [3]float64{1, 1, 1} || ga.Outputs[0] != "fc1" ||
		ga.Source.Convert == nil || ga.Source.Mirror != "" {
		t.Errorf("genderage %+v: want the converted model, fed raw RGB", ga)
	}
	if emb.Input.Mean != [3]float64{127, 127, 127} || emb.Input.Scale[0] != 1.0/128 || emb.Source.NPM == nil {
		t.Errorf("embedding %+v", emb)
	}
	for _, x := range []*Model{ga, emb} {
		if x.Align == nil || x.Align.Size != [2]int{112, 112} || x.Align.Points[0] != [2]float64{38.2946, 51.6963} {
			t.Errorf("%s aligned to %+v, want the ArcFace 112×112 template", x.Role, x.Align)
		}
	}
	if got := b.Path(det); got != filepath.Join("dir", "yunet_n_dynamic.onnx") {
		t.Errorf("path %s", got)
	}
	if b.Model("attractiveness") != nil {
		t.Error("a model for an unknown role")
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Manifest)
		want string
	}{
		{"missing role", func(m *Manifest) { m.Models = m.Models[1:] }, "no detector model"},
		{"duplicate", func(m *Manifest) { m.Models = append(m.Models, m.Models[0]) }, "appears twice"},
		{"template", func(m *Manifest) { m.Models[1].AlignName = "nope" }, `no template "nope"`},
		{"digest", func(m *Manifest) { m.Models[0].SHA256 = strings.ToUpper(m.Models[0].SHA256) }, "64 lower-case hex"},
		{"source", func(m *Manifest) { m.Models[0].Source = Source{} }, "no source"},
		{"path", func(m *Manifest) { m.Models[0].File = "../x.onnx" }, "bare name"},
		{"colour", func(m *Manifest) { m.Models[0].Input.Colour = "rgb" }, "RGB or BGR"},
		{"conversion", func(m *Manifest) { m.Models[1].Source.Convert.Params.Size = 0 }, "conversion params"},
		{"points", func(m *Manifest) { m.Templates["arcface112"].Points = nil }, "0 points for 5 landmarks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ParseManifest()
			if err != nil {
				t.Fatal(err)
			}
			tc.edit(m)
			if err := m.validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestLoadNamesEachBadFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "genderage_insightface2018_112.onnx"), []byte("not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(dir)
	if err == nil {
		t.Fatal("Load of an incomplete bundle succeeded")
	}
	msg := err.Error()
	for _, want := range []string{
		"yunet_n_dynamic.onnx is missing",
		"face_embedding_512_faceplugin.onnx is missing",
		"genderage_insightface2018_112.onnx differs from the manifest: got 11 bytes",
		"run `make models`",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
}
