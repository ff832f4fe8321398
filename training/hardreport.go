package training

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/face"
)

// hardIoU is the least overlap of a reported face with the face put in a hard copy for it to
// count as found: lenient, since a rotated face's box is the box around its turned corners and a
// cut face's the part left in the frame.
const hardIoU = 0.3

// HardReport is what the service does on the hard copies of a sample of faces, per kind.
type HardReport struct {
	Faces int                   // the sample's faces found in their original images
	Kinds map[string]HardResult // per kind (HardKinds), and "original" for the originals
}

// HardResult is the service's figures on one kind of copy.
type HardResult struct {
	N, Found       int
	GenderRight    int     // of the found faces
	AgeAbsErr      float64 // summed over the found faces with an age
	AgeN           int
	CrowdN, CrowdF int // HardCrowd: the other faces put beside it, and how many of them were found
}

// Recall is the share of faces found.
func (r HardResult) Recall() float64 { return ratio(r.Found, r.N) }

// GenderAccuracy is the share of found faces whose gender is right.
func (r HardResult) GenderAccuracy() float64 { return ratio(r.GenderRight, r.Found) }

// AgeMAE is the mean absolute age error of the found faces with an age.
func (r HardResult) AgeMAE() float64 {
	if r.AgeN == 0 {
		return math.NaN()
	}
	return r.AgeAbsErr / float64(r.AgeN)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// MeasureHard analyses each sample's image with a (configured as the server is) to find its face,
// then each kind of hard copy of it (HardCopy; the next four samples' faces are the crowd), and
// counts the faces found and their attributes. The samples must come from the training pools'
// fitted part: the copies are for a hard-case set that may be fitted on.
func MeasureHard(ctx context.Context, a *face.Analyzer, samples []Sample) (*HardReport, error) {
	type original struct {
		s   Sample
		img *face.RGB
		box face.Box
	}
	var originals []original
	r := &HardReport{Kinds: map[string]HardResult{}}
	orig := r.Kinds["original"]
	for _, s := range samples {
		if s.HeldOut {
			return nil, fmt.Errorf("%s is held out: hard copies are made of the fitted part only", s.Path)
		}
		img, err := readImage(&s)
		if err != nil {
			return nil, err
		}
		faces, err := a.Analyze(ctx, img)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Path, err)
		}
		orig.N++
		if len(faces) == 0 {
			continue
		}
		orig.add(&s, &faces[0])
		originals = append(originals, original{s, img, faces[0].Detection.Box})
	}
	r.Kinds["original"], r.Faces = orig, len(originals)
	for _, kind := range HardKinds {
		res := r.Kinds[kind]
		for i, o := range originals {
			var others []*face.RGB
			var boxes []face.Box
			if kind == HardCrowd {
				for k := 1; k <= 4; k++ {
					other := originals[(i+k)%len(originals)]
					others, boxes = append(others, other.img), append(boxes, other.box)
				}
			}
			img, at, err := HardCopy(o.img, o.box, kind, o.s.Path, others, boxes)
			if err != nil {
				return nil, err
			}
			faces, err := a.Analyze(ctx, img)
			if err != nil {
				return nil, fmt.Errorf("%s, %s: %w", o.s.Path, kind, err)
			}
			res.N++
			if f := reported(faces, at[0], img); f != nil {
				res.add(&o.s, f)
			}
			for _, b := range at[1:] {
				res.CrowdN++
				if reported(faces, b, img) != nil {
					res.CrowdF++
				}
			}
		}
		r.Kinds[kind] = res
	}
	return r, nil
}

// reported is the reported face that overlaps the face at box by hardIoU or more; nil if none.
func reported(faces []face.Face, box face.Box, img *face.RGB) *face.Face {
	x, y, w, h := face.ClipBox(box, img.W, img.H)
	want := face.Box{X: float64(x), Y: float64(y), W: float64(w), H: float64(h)}
	for i := range faces {
		f := &faces[i]
		if face.IoU(want, face.Box{X: float64(f.X), Y: float64(f.Y), W: float64(f.W), H: float64(f.H)}) >= hardIoU {
			return f
		}
	}
	return nil
}

func (r *HardResult) add(s *Sample, f *face.Face) {
	r.Found++
	if (f.Male >= 0.5) == s.Male {
		r.GenderRight++
	}
	if s.HasAge() {
		r.AgeN++
		r.AgeAbsErr += math.Abs(float64(f.Age - s.Age))
	}
}

// WriteHardCard writes the hard-case report in Markdown: the server without its second look
// (before) and with it (after).
func WriteHardCard(w io.Writer, before, after *HardReport, what string) error {
	var b strings.Builder
	b.WriteString("# Hard cases card\n\n")
	fmt.Fprintf(&b, "What the service does on hard copies of %s, analysed as the server analyses an upload\n", what)
	b.WriteString("(the quick detection pass included). Each face is first found in its own image; each kind of copy\n")
	b.WriteString("is then made of it alone (`training.HardCopy`, drawn per file name, so the copies are the same in\n")
	fmt.Fprintf(&b, "every run), and a reported face counts as found when its box overlaps the face's by IoU ≥ %.1f. The\n", hardIoU)
	b.WriteString("copies are made of the training pools' fitted part only, so a hard-case set may be fitted on; the\n")
	b.WriteString("attribute figures of the found faces are therefore on faces the model has seen sharp.\n\n")
	b.WriteString("Before: the server without its second look (`face.Config.SecondLook`: once more, with the contrast\n")
	b.WriteString("stretched, when nothing was found); after: the server as it is.\n\n")
	b.WriteString("Generated by `go run ./cmd/train-models hard`; do not edit by hand.\n\n")
	b.WriteString("| kind | faces | found, before | found | gender right (found), before | gender right (found) | age MAE (found), before | age MAE (found) |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|\n")
	percent := func(v float64) float64 { return 100 * hensachi.Round(v, 4) }
	for _, kind := range append([]string{"original"}, HardKinds...) {
		x, y := before.Kinds[kind], after.Kinds[kind]
		fmt.Fprintf(&b, "| %s | %d | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.2f | %.2f |\n", kind, y.N, percent(x.Recall()), percent(y.Recall()),
			percent(x.GenderAccuracy()), percent(y.GenderAccuracy()), x.AgeMAE(), y.AgeMAE())
	}
	if x, y := before.Kinds[HardCrowd], after.Kinds[HardCrowd]; y.CrowdN > 0 {
		fmt.Fprintf(&b, "\nIn the scenes beside other faces, %d of the %d other faces put there (70–130 px wide) were found\n(%.1f %%; before: %d).\n",
			y.CrowdF, y.CrowdN, 100*ratio(y.CrowdF, y.CrowdN), x.CrowdF)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
