package hardcase

import (
	"bytes"
	"context"
	"math"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/hensachi/hensachi/face"
	"github.com/hensachi/hensachi/internal/testrig/facetest"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
	"github.com/hensachi/hensachi/training"
)

// committed is the figures file and its card, which cmd/train-models hardcases writes.
const (
	committedFigures = "../../face/models/hardcases.json"
	committedCard    = "../../face/models/HARDCASES.md"
)

// TestCardMatchesFigures: the committed card is what WriteCard makes of the committed figures,
// so neither is edited without the other.
func TestCardMatchesFigures(t *testing.T) {
	f, err := Load(committedFigures)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(committedCard)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := WriteCard(&got, f); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Error("HARDCASES.md differs from the card of hardcases.json; measure again with cmd/train-models hardcases")
	}
	for _, k := range rows {
		if f.Before[k].Faces == 0 {
			t.Errorf("no faces in row %q", k)
		}
	}
}

func TestMatch(t *testing.T) {
	truth := []Truth{{Box: face.Box{X: 0, Y: 0, W: 100, H: 100}}, {Box: face.Box{X: 200, Y: 0, W: 50, H: 50}}}
	at := func(x, y, w, h int) face.Face { return face.Face{X: x, Y: y, W: w, H: h} }
	for _, c := range []struct {
		name   string
		faces  []face.Face
		found  []bool
		falses int
	}{
		{"none", nil, []bool{false, false}, 0},
		{"both", []face.Face{at(5, 5, 100, 100), at(200, 0, 50, 50)}, []bool{true, true}, 0},
		{"too little overlap", []face.Face{at(50, 50, 100, 100)}, []bool{false, false}, 1}, // IoU 0.14
		{"at the limit", []face.Face{at(0, 0, 100, 40)}, []bool{true, false}, 0},           // IoU 0.4
		{"one face for two truths counts once", []face.Face{at(0, 0, 100, 100)}, []bool{true, false}, 0},
		{"two faces on one truth: the better matches", []face.Face{at(10, 0, 100, 100), at(0, 0, 100, 100), at(400, 0, 20, 20)}, []bool{true, false}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := match(Scene{Faces: truth}, c.faces)
			for i, o := range r.faces {
				if o.found != c.found[i] {
					t.Errorf("truth %d found %v, want %v", i, o.found, c.found[i])
				}
			}
			if r.falseFaces != c.falses {
				t.Errorf("%d false faces, want %d", r.falseFaces, c.falses)
			}
		})
	}
}

// testSources are two synthetic faces: a pattern and its box, enough to check the geometry.
func testSources() []Source {
	var out []Source
	for i := range 2 {
		img := &face.RGB{W: 200, H: 200, Pix: make([]uint8, 3*200*200)}
		for j := range img.Pix {
			img.Pix[j] = uint8(j*(i+3)) ^ uint8(j/600)
		}
		out = append(out, Source{Sample: training.Sample{Source: training.SourceUTKFace, Age: 30 + i}, Image: img,
			Box: face.Box{X: 50, Y: 40, W: 100, H: 120}})
	}
	return out
}

func testBackgrounds() []*face.RGB {
	bg := &face.RGB{W: 1200, H: 900, Pix: make([]uint8, 3*1200*900)}
	for j := range bg.Pix {
		bg.Pix[j] = uint8(j / 3 % 251)
	}
	return []*face.RGB{bg}
}

// TestBuild checks each kind's geometry: the truth boxes are where the kind says, inside the
// picture, of the sizes it says, and the pictures are the same on every build.
func TestBuild(t *testing.T) {
	src, bgs := testSources(), testBackgrounds()
	for _, k := range Kinds {
		scenes := Build(k, src, bgs)
		again := Build(k, src, bgs)
		faces := 0
		for i, sc := range scenes {
			if !bytes.Equal(sc.Image.Pix, again[i].Image.Pix) {
				t.Errorf("%s scene %d differs between two builds", k, i)
			}
			for _, tr := range sc.Faces {
				faces++
				b := tr.Box
				switch k {
				case Cut:
					if b.X != 0 && b.Y != 0 && b.X+b.W != sceneW && b.Y+b.H != sceneH {
						t.Errorf("cut face %+v does not touch the frame", b)
					}
					// the sources' faces are 1.2 times as high as wide: halved across, 2.4; halved down, 0.6
					if r := b.H / b.W; math.Abs(r-2.4) > 0.05 && math.Abs(r-0.6) > 0.05 {
						t.Errorf("cut face %+v is not halved", b)
					}
				case Small:
					if b.W < 24 || b.W > 48 {
						t.Errorf("small face %g px wide", b.W)
					}
				case Group:
					if b.W < 32 || b.W > 100 {
						t.Errorf("group face %g px wide", b.W)
					}
				case Clean:
					if b != src[tr.Source].Box {
						t.Errorf("clean face box %+v, want the source's", b)
					}
				default:
					if b.W < 80 || b.W > 140 {
						t.Errorf("%s face %g px wide", k, b.W)
					}
				}
				if b.X < 0 || b.Y < 0 || b.X+b.W > float64(sc.Image.W) || b.Y+b.H > float64(sc.Image.H) {
					t.Errorf("%s face %+v outside the %d×%d picture", k, b, sc.Image.W, sc.Image.H)
				}
			}
		}
		if faces != len(src) {
			t.Errorf("%s: %d faces, want one copy of each of %d", k, faces, len(src))
		}
	}
}

// TestHardCases measures the service on the hard-case set again, without its second look and with
// it, and compares with the committed figures (within the tolerances of
// Reproduced), as cmd/train-models hardcases -check does.
func TestHardCases(t *testing.T) {
	testenv.Evaluation(t)
	service, first := facetest.ServingAnalyzer(t), facetest.ServingWithoutSecondLook(t)
	utk, err := training.ReadUTKFace(testenv.Shared(t, "datasets/utkface-train"))
	if err != nil {
		t.Fatal(err)
	}
	scut, err := training.ReadSCUT(testenv.Shared(t, "datasets/scut-fbp5500"))
	if err != nil {
		t.Fatal(err)
	}
	sources, _, err := Sources(context.Background(), first.Detect, utk, scut)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sources {
		if s.Sample.HeldOut {
			t.Errorf("%s is held out", s.Sample.Path)
		}
	}
	start, cpu := time.Now(), cpuTime()
	f, err := Run(context.Background(), first.Detect, first.Analyze, service.Analyze, utk, scut, testenv.NoFacePhotos(t), runtime.NumCPU())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("measured in %s, %s of CPU", time.Since(start).Round(time.Second), (cpuTime() - cpu).Round(time.Second))
	committed, err := Load(committedFigures)
	if err != nil {
		t.Fatal(err)
	}
	if err := Reproduced(committed, f); err != nil {
		t.Error(err)
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
