package training_test

import (
	"bytes"
	"math"
	"testing"

	"github.com/hensachi/hensachi/face"
	"github.com/hensachi/hensachi/training"
)

// TestHardCopy makes every kind of hard copy of a synthetic 200×200 image whose "face" is a
// 100×120 box: the copy is the same every time, the face's box stays in the image, keeps its size
// where the kind does not shrink or cut it, and the crowd gets faces beside it that overlap none.
func TestHardCopy(t *testing.T) {
	img := &face.RGB{W: 200, H: 200, Pix: make([]uint8, 3*200*200)}
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7 % 251)
	}
	box := face.Box{X: 50, Y: 40, W: 100, H: 120}
	others := []*face.RGB{img, img, img, img}
	boxes := []face.Box{box, box, box, box}
	for _, kind := range training.HardKinds {
		t.Run(kind, func(t *testing.T) {
			out, at, err := training.HardCopy(img, box, kind, "dir/1_0_0_20170101000000000.jpg.chip.jpg", others, boxes)
			if err != nil {
				t.Fatal(err)
			}
			again, _, err := training.HardCopy(img, box, kind, "other/1_0_0_20170101000000000.jpg.chip.jpg", others, boxes)
			if err != nil || !bytes.Equal(out.Pix, again.Pix) {
				t.Errorf("two copies of the same file differ (%v)", err)
			}
			if len(out.Pix) != 3*out.W*out.H || len(at) == 0 {
				t.Fatalf("copy %d×%d with %d pixels bytes, boxes %v", out.W, out.H, len(out.Pix), at)
			}
			b := at[0]
			if b.X < -1 || b.Y < -1 || b.X+b.W > float64(out.W)+1 || b.Y+b.H > float64(out.H)+1 || b.W <= 0 || b.H <= 0 {
				t.Errorf("face at %+v, outside the %d×%d copy", b, out.W, out.H)
			}
			switch kind {
			case training.HardDark, training.HardMotion, training.HardDefocus, training.HardCovered:
				if b != box || out.W != img.W || bytes.Equal(out.Pix, img.Pix) {
					t.Errorf("face at %+v in a %d×%d copy, want it where it was, the pixels changed", b, out.W, out.H)
				}
			case training.HardCut:
				if area, full := b.W*b.H, box.W*box.H; math.Abs(area/full-0.5) > 0.05 {
					t.Errorf("%.2f of the face is left in the frame, want half", area/full)
				}
			case training.HardSmall:
				if b.W < 24 || b.W > 48 || out.W != 640 {
					t.Errorf("face %.0f px wide in a %d px scene, want 24–48 in 640", b.W, out.W)
				}
			case training.HardCrowd:
				if len(at) < 3 {
					t.Errorf("%d faces in the crowd, want the face and most of the four others", len(at))
				}
				for i := range at {
					for j := range i {
						if face.IoU(at[i], at[j]) > 0 {
							t.Errorf("faces %d and %d overlap: %+v, %+v", i, j, at[i], at[j])
						}
					}
				}
			}
		})
	}
	if _, _, err := training.HardCopy(img, box, "upside down", "x.jpg", nil, nil); err == nil {
		t.Error("an unknown kind made a copy")
	}
}
