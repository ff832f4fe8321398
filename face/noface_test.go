package face

import (
	"bufio"
	"context"
	"math"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

// maxFalseShare is the goal for photos without people: at most one in twenty gets a face.
const maxFalseShare = 1.0 / 20

// TestNoFacePhotos runs the service's pipeline on everyday photos and pictures without people (animals,
// flowers, a motorcycle, textures, illustrated wallpapers; face/testdata/noface.txt).
func TestNoFacePhotos(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the models on 48 large pictures")
	}
	a := newTestAnalyzer(t, func(c *Config) { c.QuickPass, c.SecondLook = true, true }) // as the server analyses
	dir := testenv.NoFacePhotos(t)
	f, err := os.Open("testdata/noface.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var photos, withFace int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, path.Base(fields[1])))
		if err != nil {
			t.Fatal(err)
		}
		photo, err := DecodePhoto(data) // as the service decodes
		if err != nil {
			t.Fatalf("%s: %v", fields[1], err)
		}
		faces, err := a.AnalyzePhoto(context.Background(), photo)
		if err != nil {
			t.Fatal(err)
		}
		photos++
		if len(faces) > 0 {
			withFace++
			t.Logf("%s: %d faces, the first %d×%d, detector score %.3f", path.Base(fields[1]), len(faces), faces[0].W, faces[0].H, faces[0].Detection.Score)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d of %d photos without people get a face", withFace, photos)
	if photos < 40 || float64(withFace) > math.Floor(maxFalseShare*float64(photos)) {
		t.Errorf("%d of %d photos without people get a face; at most 1 in 20 allowed", withFace, photos)
	}
}

func TestIsFace(t *testing.T) {
	unit := func(norm float64) []float32 {
		v := make([]float32, 512)
		for i := range v {
			v[i] = float32(norm / math.Sqrt(512))
		}
		return v
	}
	for _, c := range []struct {
		name string
		f    Features
		want bool
	}{
		{"face", Features{Embedding: unit(3.2)}, true},
		{"at the limit", Features{Embedding: unit(minEmbeddingNorm + 1e-6)}, true},
		{"not a face", Features{Embedding: unit(1.4)}, false},
		{"no embedding model", Features{}, true},
	} {
		if got := isFace(&c.f); got != c.want {
			t.Errorf("%s: isFace = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestMirror(t *testing.T) {
	face := make([]uint8, 3*AlignSize*AlignSize)
	for i := range face {
		face[i] = uint8(i * 7)
	}
	m := Mirror(face)
	// the pixel at (x, y) moves to (AlignSize−1−x, y) with its channels in order
	x, y := 10, 20
	src, dst := 3*(y*AlignSize+x), 3*(y*AlignSize+AlignSize-1-x)
	if m[dst] != face[src] || m[dst+1] != face[src+1] || m[dst+2] != face[src+2] {
		t.Errorf("pixel (%d,%d) not mirrored", x, y)
	}
	back := Mirror(m)
	for i := range face {
		if back[i] != face[i] {
			t.Fatalf("mirroring twice changes byte %d", i)
		}
	}
}
