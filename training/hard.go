package training

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"path/filepath"

	"github.com/hensachi/hensachi/face"
)

// The kinds of hard copies (issue 26): what makes faces in photos taken in the wild hard to find
// and to read, each applied alone to a face image.
const (
	HardDark    = "dark and noisy"     // 15–35 % of the light, sensor noise of σ 4–10
	HardMotion  = "motion-blurred"     // a streak of 7–15 px at any angle
	HardDefocus = "defocused"          // a disc of 3–6 px radius
	HardRotated = "rotated"            // 20–45° either way, the corners filled grey
	HardCut     = "cut by the frame"   // the frame's edge through the middle of the face
	HardCovered = "partly covered"     // the lower or one side's 45 % of the face under a flat patch
	HardSmall   = "small in a scene"   // 24–48 px wide in a 640×480 scene
	HardCrowd   = "beside other faces" // 70–130 px wide among four other faces in a 640×480 scene
)

// HardKinds are the kinds, in the order the reports list them.
var HardKinds = []string{HardDark, HardMotion, HardDefocus, HardRotated, HardCut, HardCovered, HardSmall, HardCrowd}

// HardCopy makes the hard copy of one kind of a face image whose face is at box: the new image
// and where the face is in it, then where the others are. others are face images to put beside it
// (HardCrowd), with their faces' boxes; the draws depend only on the kind and the file's name, so a copy is the same on
// every machine and in every run. The copies are made from the training pools' fitted part, never
// from their held-out part.
func HardCopy(img *face.RGB, box face.Box, kind, path string, others []*face.RGB, otherBoxes []face.Box) (*face.RGB, []face.Box, error) {
	h := fnv.New64a()
	h.Write([]byte(kind + "/" + filepath.Base(path)))
	rng := rand.New(rand.NewPCG(h.Sum64(), 1))
	between := func(lo, hi float64) float64 { return lo + (hi-lo)*rng.Float64() }
	switch kind {
	case HardDark:
		gain, sigma := between(0.15, 0.35), between(4, 10)
		out := clone(img)
		for i, v := range out.Pix {
			out.Pix[i] = clampByte(float64(v)*gain + sigma*rng.NormFloat64())
		}
		return out, []face.Box{box}, nil
	case HardMotion:
		length, angle := 7+rng.IntN(9), between(0, math.Pi)
		var taps []offset
		for k := range length {
			d := float64(k) - float64(length-1)/2
			taps = append(taps, offset{math.Round(d * math.Cos(angle)), math.Round(d * math.Sin(angle))})
		}
		return average(img, taps), []face.Box{box}, nil
	case HardDefocus:
		r := between(3, 6)
		var taps []offset
		for dy := -math.Ceil(r); dy <= math.Ceil(r); dy++ {
			for dx := -math.Ceil(r); dx <= math.Ceil(r); dx++ {
				if dx*dx+dy*dy <= r*r {
					taps = append(taps, offset{dx, dy})
				}
			}
		}
		return average(img, taps), []face.Box{box}, nil
	case HardRotated:
		angle := between(20, 45) * math.Pi / 180
		if rng.IntN(2) == 0 {
			angle = -angle
		}
		out, turned := rotate(img, box, angle)
		return out, []face.Box{turned}, nil
	case HardCut:
		// keep the part of the image on one side of the face's middle line
		cx, cy := int(box.X+box.W/2), int(box.Y+box.H/2)
		x0, y0, x1, y1 := 0, 0, img.W, img.H
		switch rng.IntN(3) {
		case 0:
			x0 = cx
		case 1:
			x1 = cx
		default:
			y0 = cy // the lower half: the upper half, with the eyes, is the easy one
		}
		visible := face.Box{X: math.Max(box.X, float64(x0)), Y: math.Max(box.Y, float64(y0))}
		visible.W = math.Min(box.X+box.W, float64(x1)) - visible.X
		visible.H = math.Min(box.Y+box.H, float64(y1)) - visible.Y
		visible.X, visible.Y = visible.X-float64(x0), visible.Y-float64(y0)
		return crop(img, x0, y0, x1, y1), []face.Box{visible}, nil
	case HardCovered:
		out := clone(img)
		grey := uint8(60 + rng.IntN(140))
		x0, y0, x1, y1 := box.X, box.Y+0.55*box.H, box.X+box.W, box.Y+box.H // a mask over mouth and chin
		switch rng.IntN(3) {
		case 1:
			x0, y0, x1 = box.X, box.Y, box.X+0.45*box.W
		case 2:
			x0, y0, x1 = box.X+0.55*box.W, box.Y, box.X+box.W
		}
		fill(out, int(x0), int(y0), int(math.Ceil(x1)), int(math.Ceil(y1)), grey)
		return out, []face.Box{box}, nil
	case HardSmall:
		scene, at := inScene(rng, img, box, between(24, 48))
		return scene, []face.Box{at}, nil
	case HardCrowd:
		scene, target := inScene(rng, img, box, between(70, 130))
		at, taken := []face.Box{target}, []face.Box{grown(target)}
		for i, o := range others {
			side := between(70, 130)
			f := side / otherBoxes[i].W
			small := face.Resize(o, max(1, int(float64(o.W)*f)), max(1, int(float64(o.H)*f)))
			if small.W > scene.W || small.H > scene.H {
				continue
			}
			for range 20 { // a place that covers no face already there
				x, y := rng.IntN(max(1, scene.W-small.W)), rng.IntN(max(1, scene.H-small.H))
				b := face.Box{X: float64(x) + otherBoxes[i].X*f, Y: float64(y) + otherBoxes[i].Y*f, W: otherBoxes[i].W * f, H: otherBoxes[i].H * f}
				if !overlapsAny(grown(b), taken) {
					paste(scene, small, x, y)
					at, taken = append(at, b), append(taken, grown(b))
					break
				}
			}
		}
		return scene, at, nil
	}
	return nil, nil, fmt.Errorf("no hard copy of kind %q", kind)
}

type offset struct{ dx, dy float64 }

// average is the image blurred by the mean of the taps, edges repeated.
func average(img *face.RGB, taps []offset) *face.RGB {
	out := clone(img)
	for y := range img.H {
		for x := range img.W {
			var sum [3]float64
			for _, t := range taps {
				sx := min(img.W-1, max(0, x+int(t.dx)))
				sy := min(img.H-1, max(0, y+int(t.dy)))
				p := img.Pix[3*(sy*img.W+sx):]
				sum[0], sum[1], sum[2] = sum[0]+float64(p[0]), sum[1]+float64(p[1]), sum[2]+float64(p[2])
			}
			for c := range 3 {
				out.Pix[3*(y*img.W+x)+c] = clampByte(sum[c] / float64(len(taps)))
			}
		}
	}
	return out
}

// rotate turns the image by angle about the face's centre, on a canvas grown to hold it, the
// corners grey; the face's box becomes the box around its turned corners.
func rotate(img *face.RGB, box face.Box, angle float64) (*face.RGB, face.Box) {
	c, s := math.Cos(angle), math.Sin(angle)
	w := int(math.Ceil(math.Abs(float64(img.W)*c) + math.Abs(float64(img.H)*s)))
	h := int(math.Ceil(math.Abs(float64(img.W)*s) + math.Abs(float64(img.H)*c)))
	out := canvas(w, h, 128)
	icx, icy, ocx, ocy := float64(img.W)/2, float64(img.H)/2, float64(w)/2, float64(h)/2
	for y := range h {
		for x := range w {
			// where the output pixel comes from: turned back by −angle
			dx, dy := float64(x)+0.5-ocx, float64(y)+0.5-ocy
			sx, sy := c*dx+s*dy+icx-0.5, -s*dx+c*dy+icy-0.5
			x0, y0 := int(math.Floor(sx)), int(math.Floor(sy))
			if x0 < 0 || y0 < 0 || x0+1 >= img.W || y0+1 >= img.H {
				continue
			}
			fx, fy := sx-float64(x0), sy-float64(y0)
			for ch := range 3 {
				at := func(xx, yy int) float64 { return float64(img.Pix[3*(yy*img.W+xx)+ch]) }
				v := (1-fy)*((1-fx)*at(x0, y0)+fx*at(x0+1, y0)) + fy*((1-fx)*at(x0, y0+1)+fx*at(x0+1, y0+1))
				out.Pix[3*(y*w+x)+ch] = clampByte(v)
			}
		}
	}
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range [][2]float64{{box.X, box.Y}, {box.X + box.W, box.Y}, {box.X, box.Y + box.H}, {box.X + box.W, box.Y + box.H}} {
		dx, dy := p[0]-icx, p[1]-icy
		x, y := c*dx-s*dy+ocx, s*dx+c*dy+ocy
		minX, minY, maxX, maxY = math.Min(minX, x), math.Min(minY, y), math.Max(maxX, x), math.Max(maxY, y)
	}
	return out, face.Box{X: minX, Y: minY, W: maxX - minX, H: maxY - minY}
}

// inScene shrinks the image so that its face is side pixels wide (the image at most the scene's
// size) and puts it somewhere in a 640×480 scene of smooth colours and grain.
func inScene(rng *rand.Rand, img *face.RGB, box face.Box, side float64) (*face.RGB, face.Box) {
	const w, h = 640, 480
	f := math.Min(side/box.W, math.Min(w/float64(img.W), h/float64(img.H)))
	small := face.Resize(img, max(1, int(float64(img.W)*f)), max(1, int(float64(img.H)*f)))
	scene := canvas(w, h, 0)
	var from, to [3]float64
	for c := range 3 {
		from[c], to[c] = 40+170*rng.Float64(), 40+170*rng.Float64()
	}
	for y := range h {
		for x := range w {
			t := (float64(x)/w + float64(y)/h) / 2
			for c := range 3 {
				scene.Pix[3*(y*w+x)+c] = clampByte(from[c] + (to[c]-from[c])*t + 6*rng.NormFloat64())
			}
		}
	}
	x, y := rng.IntN(w-small.W+1), rng.IntN(h-small.H+1)
	paste(scene, small, x, y)
	return scene, face.Box{X: float64(x) + box.X*f, Y: float64(y) + box.Y*f, W: box.W * f, H: box.H * f}
}

// grown is a box with a margin of half its size around it, the room a pasted face takes.
func grown(b face.Box) face.Box {
	return face.Box{X: b.X - b.W/2, Y: b.Y - b.H/2, W: 2 * b.W, H: 2 * b.H}
}

func overlapsAny(b face.Box, boxes []face.Box) bool {
	for _, o := range boxes {
		if face.IoU(b, o) > 0 {
			return true
		}
	}
	return false
}

func clone(img *face.RGB) *face.RGB {
	return &face.RGB{W: img.W, H: img.H, Pix: append([]uint8(nil), img.Pix...)}
}

func canvas(w, h int, grey uint8) *face.RGB {
	out := &face.RGB{W: w, H: h, Pix: make([]uint8, 3*w*h)}
	for i := range out.Pix {
		out.Pix[i] = grey
	}
	return out
}

func crop(img *face.RGB, x0, y0, x1, y1 int) *face.RGB {
	out := &face.RGB{W: x1 - x0, H: y1 - y0, Pix: make([]uint8, 3*(x1-x0)*(y1-y0))}
	for y := y0; y < y1; y++ {
		copy(out.Pix[3*(y-y0)*out.W:], img.Pix[3*(y*img.W+x0):3*(y*img.W+x1)])
	}
	return out
}

func fill(img *face.RGB, x0, y0, x1, y1 int, grey uint8) {
	for y := max(0, y0); y < min(img.H, y1); y++ {
		for x := max(0, x0); x < min(img.W, x1); x++ {
			img.Pix[3*(y*img.W+x)], img.Pix[3*(y*img.W+x)+1], img.Pix[3*(y*img.W+x)+2] = grey, grey, grey
		}
	}
}

func paste(dst, src *face.RGB, x, y int) {
	for r := range src.H {
		copy(dst.Pix[3*((y+r)*dst.W+x):], src.Pix[3*r*src.W:3*(r+1)*src.W])
	}
}

func clampByte(v float64) uint8 { return uint8(math.Min(255, math.Max(0, math.Round(v)))) }
