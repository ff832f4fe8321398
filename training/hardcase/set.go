// Package hardcase builds the hard-case set — copies of faces from the training pools as photos
// taken in the wild show them: dark and noisy, blurred, turned, cut by the frame, partly covered,
// small in a large picture, beside other faces — and measures the pipeline on it: how many faces
// are found, how many false ones, and how well gender and age are read on the found ones, per
// kind. The set is drawn from a seed and rebuilt on each run; nothing of it is stored. Its figures
// and card are face/models/hardcases.json and HARDCASES.md, which cmd/train-models writes.
package hardcase

import (
	"context"
	"fmt"
	"image"
	"math/rand/v2"
	"os"
	"slices"

	"github.com/hensachi/hensachi/face"
	"github.com/hensachi/hensachi/training"
	"github.com/hensachi/hensachi/training/spoil"
)

// Kind is one way a face is hard to see.
type Kind string

// The kinds, in the cards' order. Clean is each face's own image as the pool has it; Plain is the
// control: the same faces pasted at an everyday size on the same backgrounds, so that what each
// kind costs is its difference from Plain (and what pasting costs, Plain's from Clean).
// The kinds that spoil a single face are spoil's.
const (
	Clean   Kind = "clean"
	Plain   Kind = "plain"
	Dark         = Kind(spoil.Dark)
	Motion       = Kind(spoil.Motion)
	Defocus      = Kind(spoil.Defocus)
	Rotated      = Kind(spoil.Rotated)
	Cut          = Kind(spoil.Cut)
	Covered      = Kind(spoil.Covered)
	Small   Kind = "small"
	Group   Kind = "group"
)

// Kinds lists every kind in order.
var Kinds = []Kind{Clean, Plain, Dark, Motion, Defocus, Rotated, Cut, Covered, Small, Group}

// The set's size and layout. Every kind copies the same faces, so kinds are compared face for face.
const (
	// Seed draws the faces and every copy's parameters.
	Seed = 26
	// UTKFaces and SCUTFaces are how many faces of each pool the set copies; UTKFace's have ages.
	UTKFaces, SCUTFaces = 75, 25
	// sceneW×sceneH holds one face 80–140 pixels wide; largeW×largeH the small and group scenes,
	// large enough for the detector's second, finer pass.
	sceneW, sceneH = 640, 480
	largeW, largeH = 1024, 768
	// smallPerScene faces of 24–48 pixels share a large scene, far apart; groupPerScene faces of
	// 32–100 pixels stand side by side in a row.
	smallPerScene, groupPerScene = 2, 5
	// SmallSide is the face width under which a group's face counts as small in the cards.
	SmallSide = 48
)

// Backgrounds are the photos without people (face/testdata/noface.txt, scripts/fetch-noface.sh)
// that the scenes are cut from: nature photos, on which the pipeline finds no face.
var Backgrounds = []string{"Aqua.jpg", "Dune.jpg", "Garden.jpg", "GreenMeadow.jpg", "Storm.jpg", "Wood.jpg"}

// Source is one face of the set: its labelled sample, its image and the face's box on it, which
// the detector found on the clean image.
type Source struct {
	Sample training.Sample
	Image  *face.RGB
	Box    face.Box
}

// Truth is a face placed in a scene: its box there and whose face it is.
type Truth struct {
	Box    face.Box
	Source int // index into the sources
}

// Scene is one picture of the set.
type Scene struct {
	Kind  Kind
	Image *face.RGB
	Faces []Truth
}

// Sources draws the set's faces from the fitted part of the two pools — never the held-out part,
// which stays for judging models fitted on hard copies — in an order the seed fixes, keeping those
// whose clean image has a face for detect to find (the largest-scoring one is the face's box). It
// returns the sources, UTKFace's first, and how many drawn images had no face.
func Sources(ctx context.Context, detect Detect, utk, scut []training.Sample) ([]Source, int, error) {
	var out []Source
	skipped := 0
	for i, pool := range [][]training.Sample{utk, scut} {
		want := []int{UTKFaces, SCUTFaces}[i]
		var fitted []training.Sample
		for _, s := range pool {
			if !s.HeldOut {
				fitted = append(fitted, s)
			}
		}
		rng := rand.New(rand.NewPCG(Seed, uint64(i)))
		rng.Shuffle(len(fitted), func(a, b int) { fitted[a], fitted[b] = fitted[b], fitted[a] })
		got := 0
		for _, s := range fitted {
			if got == want {
				break
			}
			src, ok, err := source(ctx, detect, s)
			if err != nil {
				return nil, 0, err
			}
			if !ok {
				skipped++
				continue
			}
			out = append(out, src)
			got++
		}
		if got < want {
			return nil, 0, fmt.Errorf("hard cases: only %d of %d faces found in the pool", got, want)
		}
	}
	return out, skipped, nil
}

func source(ctx context.Context, detect Detect, s training.Sample) (Source, bool, error) {
	data, err := os.ReadFile(s.Path)
	if err != nil {
		return Source{}, false, err
	}
	img, err := face.Decode(data)
	if err != nil {
		return Source{}, false, fmt.Errorf("%s: %w", s.Path, err)
	}
	dets, err := detect(ctx, img)
	if err != nil {
		return Source{}, false, fmt.Errorf("%s: %w", s.Path, err)
	}
	if len(dets) == 0 {
		return Source{}, false, nil
	}
	best := slices.MaxFunc(dets, func(a, b face.Detection) int { return cmpFloat(a.Score, b.Score) })
	return Source{Sample: s, Image: img, Box: best.Box}, true, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Build makes the scenes of one kind, each face of sources once, on windows of the background
// photos. The same sources, backgrounds and kind give the same pixels on every machine.
func Build(kind Kind, sources []Source, backgrounds []*face.RGB) []Scene {
	rng := rand.New(rand.NewPCG(Seed, uint64(slices.Index(Kinds, kind))+100))
	var scenes []Scene
	switch kind {
	case Clean:
		for i, s := range sources {
			scenes = append(scenes, Scene{Kind: Clean, Image: s.Image, Faces: []Truth{{Box: s.Box, Source: i}}})
		}
	case Small:
		for i := 0; i < len(sources); i += smallPerScene {
			scenes = append(scenes, smallScene(sources, i, min(i+smallPerScene, len(sources)), backgrounds, rng))
		}
	case Group:
		for i := 0; i < len(sources); i += groupPerScene {
			scenes = append(scenes, groupScene(sources, i, min(i+groupPerScene, len(sources)), backgrounds, rng))
		}
	default:
		for i := range sources {
			scenes = append(scenes, singleScene(kind, sources, i, backgrounds, rng))
		}
	}
	return scenes
}

// placed is a face's paste: scale, rotation and where the face's centre lands.
type placed struct{ scale, angle, cx, cy float64 }

// put pastes source i and returns its true box: the face's box scaled and centred where it
// landed (turned, it keeps its size: the detector's box of a turned face is upright, about as
// large as the face).
func put(canvas *image.RGBA, s Source, p placed) face.Box {
	b := s.Box
	spoil.Paste(canvas, feathered(s.Image), p.scale, p.angle, b.X+b.W/2, b.Y+b.H/2, p.cx, p.cy)
	w, h := b.W*p.scale, b.H*p.scale
	return face.Box{X: p.cx - w/2, Y: p.cy - h/2, W: w, H: h}
}

func singleScene(kind Kind, sources []Source, i int, backgrounds []*face.RGB, rng *rand.Rand) Scene {
	s := sources[i]
	canvas := background(backgrounds[rng.IntN(len(backgrounds))], sceneW, sceneH, rng)
	width := spoil.Between(rng, 80, 140)
	p := placed{scale: width / s.Box.W}
	w, h := width, s.Box.H*p.scale
	p.cx, p.cy = spoil.Between(rng, w, sceneW-w), spoil.Between(rng, h, sceneH-h)
	switch kind {
	case Rotated:
		p.angle = spoil.Angle(rng)
	case Cut: // the frame's edge through the face's middle: half of it visible
		switch rng.IntN(4) {
		case 0:
			p.cx = 0
		case 1:
			p.cx = sceneW
		case 2:
			p.cy = 0
		default:
			p.cy = sceneH
		}
	}
	box := put(canvas, s, p)
	canvas = spoil.Apply(spoil.Kind(kind), canvas, box, rng)
	if kind == Cut {
		x, y, bw, bh := face.ClipBox(box, sceneW, sceneH)
		box = face.Box{X: float64(x), Y: float64(y), W: float64(bw), H: float64(bh)}
	}
	return Scene{Kind: kind, Image: spoil.ToRGB(canvas), Faces: []Truth{{Box: box, Source: i}}}
}

func smallScene(sources []Source, from, to int, backgrounds []*face.RGB, rng *rand.Rand) Scene {
	canvas := background(backgrounds[rng.IntN(len(backgrounds))], largeW, largeH, rng)
	sc := Scene{Kind: Small}
	for i := from; i < to; i++ {
		s := sources[i]
		width := spoil.Between(rng, 24, 48)
		p := placed{scale: width / s.Box.W}
		// each face in its own part of the picture, left or right, well inside the frame
		slot := float64(largeW) / float64(to-from)
		p.cx = slot*float64(i-from) + spoil.Between(rng, 2*width, slot-2*width)
		p.cy = spoil.Between(rng, 2*width, largeH-2*width)
		sc.Faces = append(sc.Faces, Truth{Box: put(canvas, s, p), Source: i})
	}
	sc.Image = spoil.ToRGB(canvas)
	return sc
}

// groupScene stands the faces side by side in a row across the picture, as in a group photo:
// of different sizes (near and far), shoulders touching, rows a little uneven.
func groupScene(sources []Source, from, to int, backgrounds []*face.RGB, rng *rand.Rand) Scene {
	canvas := background(backgrounds[rng.IntN(len(backgrounds))], largeW, largeH, rng)
	sc := Scene{Kind: Group}
	base := spoil.Between(rng, 0.35, 0.65) * largeH
	x := spoil.Between(rng, 40, 120)
	for i := from; i < to; i++ {
		s := sources[i]
		width := spoil.Between(rng, 32, 100)
		p := placed{scale: width / s.Box.W}
		p.cx = x + width/2
		p.cy = base + spoil.Between(rng, -0.4, 0.4)*width
		x += width * spoil.Between(rng, 1.25, 1.6)
		sc.Faces = append(sc.Faces, Truth{Box: put(canvas, s, p), Source: i})
	}
	sc.Image = spoil.ToRGB(canvas)
	return sc
}
