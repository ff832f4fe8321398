package ingest_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hensachi/hensachi/geo"
	"github.com/hensachi/hensachi/ingest"
	"github.com/hensachi/hensachi/internal/testrig/fixtures"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
	"github.com/hensachi/hensachi/topojson"
)

var boundaryCodes = []string{"01100", "01202", "13101", "13102", "13362", "47201"}

func TestReadBoundaries(t *testing.T) {
	dir := t.TempDir()
	if err := fixtures.WriteBoundaries(dir, boundaryCodes, "13362"); err != nil {
		t.Fatal(err)
	}
	b, err := ingest.ReadBoundaries(dir, boundaryCodes)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []geo.Layer{b.Coarse, b.Fine} {
		if len(l.Shapes) != len(boundaryCodes) {
			t.Fatalf("%d shapes for %d codes", len(l.Shapes), len(boundaryCodes))
		}
	}
	// 13102 (the fourth) is at column 3: x from 0.30° east of 128°, 0.08° wide, at both levels
	for _, l := range []geo.Layer{b.Coarse, b.Fine} {
		ring := l.Transform.Shape(l.Shapes[3])[0][0]
		if p := ring[0]; !near(p, geo.Point{128.3, 30}) || !near(ring[2], geo.Point{128.38, 30.08}) {
			t.Errorf("13102 at %v…%v", ring[0], ring[2])
		}
	}
	// 13362, lost from the coarse file, is drawn there from the fine one, on the coarse grid
	if got := b.Coarse.Transform.Shape(b.Coarse.Shapes[4]); len(got) != 2 || !near(got[0][0][2], geo.Point{128.48, 30.08}) {
		t.Errorf("13362 in the coarse layer: %v", got)
	}
	if !strings.Contains(b.Meta.Note, "13362") || b.Meta.Credit != ingest.BoundaryCredit || len(b.Meta.Files) != 2 {
		t.Errorf("meta %+v", b.Meta)
	}
	// the fixture files are not the editions checked in: both differ, and are read all the same
	if len(b.HashMismatches) != 2 {
		t.Errorf("%d hash mismatches, want 2", len(b.HashMismatches))
	}
}

func near(p, q geo.Point) bool { return abs(p[0]-q[0]) < 1e-9 && abs(p[1]-q[1]) < 1e-9 }

func abs(x float64) float64 { return max(x, -x) }

// TestReadBoundariesRefused: files that cannot give every municipality its boundary are refused
// with the reason, which the dataset keeps for the maps.
func TestReadBoundariesRefused(t *testing.T) {
	cases := []struct {
		name   string
		damage func(t *testing.T, dir string)
		codes  []string
		want   error
		text   string
	}{
		{"a file missing", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, fixtures.BoundaryFineFile)) },
			boundaryCodes, os.ErrNotExist, fixtures.BoundaryFineFile},
		{"a file cut short", func(t *testing.T, dir string) { truncate(t, filepath.Join(dir, fixtures.BoundaryCoarseFile)) },
			boundaryCodes, topojson.ErrTopology, fixtures.BoundaryCoarseFile},
		{"a municipality without a boundary", nil,
			append(slices.Clone(boundaryCodes), "47382"), ingest.ErrBoundaries, "1 municipalities have no geometry, the first 47382"},
		{"a boundary of a municipality the dataset lacks", nil,
			boundaryCodes[1:], ingest.ErrBoundaries, "code 01100, which is no municipality"},
		{"an invalid shape", func(t *testing.T, dir string) { bowTie(t, filepath.Join(dir, fixtures.BoundaryFineFile)) },
			boundaryCodes, ingest.ErrBoundaries, "municipality 01100 in " + fixtures.BoundaryFineFile + ": validating polygon"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := fixtures.WriteBoundaries(dir, boundaryCodes, "13362"); err != nil {
				t.Fatal(err)
			}
			if c.damage != nil {
				c.damage(t, dir)
			}
			_, err := ingest.ReadBoundaries(dir, c.codes)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.text) {
				t.Errorf("error %v, want %v with %q", err, c.want, c.text)
			}
		})
	}
}

// bowTie makes the first arc of a topology, 01100's square, a ring that crosses itself: a shape
// no cleaning repairs.
func bowTie(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var topo map[string]any
	if err := json.Unmarshal(b, &topo); err != nil {
		t.Fatal(err)
	}
	topo["arcs"].([]any)[0] = [][2]int{{0, 0}, {80, 0}, {-80, 80}, {80, 0}, {-80, -80}}
	if b, err = json.Marshal(topo); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func truncate(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRealBoundaries reads the real boundary files for the real code list: every municipality has
// its boundary, the seven islands the 0.1 % file lost among them, and the files are the editions
// checked in.
func TestRealBoundaries(t *testing.T) {
	dir := testenv.Shared(t, "data/boundaries")
	f, err := os.Open(testenv.Shared(t, "data/raw/codes/000925835.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cl, err := ingest.ParseCodeList("codes", f)
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, e := range cl.Entries {
		codes = append(codes, e.Code)
	}
	slices.Sort(codes)
	if len(codes) != 1741 {
		t.Fatalf("%d codes", len(codes))
	}
	b, err := ingest.ReadBoundaries(dir, codes)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.HashMismatches) > 0 {
		t.Errorf("hash mismatches: %v", b.HashMismatches)
	}
	// seven islands the 0.1 % file lost, three towns it left as lines
	islands := []string{"13362", "13402", "38356", "44322", "47354", "47355", "47356", "23424", "26208", "31384"}
	for _, code := range islands {
		if !strings.Contains(b.Meta.Note, code) {
			t.Errorf("note does not name %s: %s", code, b.Meta.Note)
		}
	}
	for i, code := range codes {
		if b.Coarse.Shapes[i].Empty() || b.Fine.Shapes[i].Empty() {
			t.Errorf("%s has no boundary", code)
		}
	}
	// 広島市's outer ring went out to 132.422874°E 34.36291°N and straight back, a spike that made
	// it invalid in every GIS; ReadBoundaries, which checks every shape, removed it
	hiroshima := b.Fine.Shapes[slices.Index(codes, "34100")]
	spike := b.Fine.Transform.Grid(geo.Point{132.422874, 34.36291})
	for _, p := range hiroshima {
		if slices.Contains(p[0], spike) {
			t.Errorf("広島市 still has the spike at %v", b.Fine.Transform.Point(spike))
		}
	}
	// 神戸市 (28100) lies around 135.1°E 34.7°N
	i := slices.Index(codes, "28100")
	p := b.Fine.Transform.Point(b.Fine.Shapes[i][0][0][0])
	if p[0] < 134.9 || p[0] > 135.4 || p[1] < 34.5 || p[1] > 35 {
		t.Errorf("神戸市 starts at %v", p)
	}
}
