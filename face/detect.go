package face

import (
	"fmt"
	"math"
)

// YuNet runs on BGR float32 NCHW with raw 0–255 values, both sides padded to multiples of 32.
const (
	yunetAlign     = 32
	scoreThreshold = 0.7
	nmsIoU         = 0.3
	// detectSide is the longest side the whole image is scaled to for the main pass. Images much
	// larger than that get a second pass at up to fineSide, so that faces a few dozen pixels wide in
	// a large photo are still found; small images are enlarged up to maxUpscale.
	detectSide = 640
	fineSide   = 1280
	maxUpscale = 2.0
	// quickSide is the longest side of the quick pass (Config.QuickPass), which never enlarges.
	// At 320 px a 1024×768 photo's detector input is a quarter of the main pass's, a 256×256
	// portrait's a quarter of its enlarged 512×512.
	quickSide = 320
)

// quickFaceSide is the side, in pixels of the quick pass's image, from which its faces are kept
// without the main pass: the side from which a face makes the fine pass unnecessary too. A photo
// whose faces are all that large has no small ones the main pass would add. The landmarks differ
// from the main pass's by a few per cent of the face (TestQuickPassSameFaces); what that does to
// the served age and gender is measured on held-out faces (cmd/train-models calibrate).
const quickFaceSide = skipFineSide

// quickScale is the scale of the quick pass.
func quickScale(w, h int) float64 { return math.Min(quickSide/float64(max(w, h)), 1) }

var yunetStrides = [3]int{8, 16, 32}

// detectScales returns the scales at which an image is searched.
func detectScales(w, h int) []float64 {
	side := float64(max(w, h))
	scales := []float64{math.Min(detectSide/side, maxUpscale)}
	if side > 1.5*detectSide {
		scales = append(scales, math.Min(fineSide/side, 1))
	}
	return scales
}

// yunetInput resizes the image by scale, pads it to multiples of 32 and lays it out as BGR planes.
// The resized rows go straight into the planes: no resized copy of the image is made.
func yunetInput(img *RGB, scale float64) (data []float32, w, h, pw, ph int) {
	w = max(1, int(math.Round(float64(img.W)*scale)))
	h = max(1, int(math.Round(float64(img.H)*scale)))
	resized := newResampler(img, w, h)
	pw, ph = (w+yunetAlign-1)/yunetAlign*yunetAlign, (h+yunetAlign-1)/yunetAlign*yunetAlign
	data = make([]float32, 3*pw*ph)
	plane := pw * ph
	forRows(h, func(y0, y1 int) {
		scratch := make([]uint8, 3*w)
		for y := y0; y < y1; y++ {
			row := resized.row(scratch, y)
			o := y * pw
			b, g, r := data[o:o+w], data[plane+o:plane+o+w], data[2*plane+o:2*plane+o+w]
			for x := range b {
				p := row[3*x : 3*x+3 : 3*x+3]
				b[x], g[x], r[x] = float32(p[2]), float32(p[1]), float32(p[0])
			}
		}
	})
	return data, w, h, pw, ph
}

// detectionInput is the detector's input for the photo resized by scale, made from the coarsest
// level that has the pixels, and where its pixels are in the original's.
func detectionInput(p *Photo, scale float64) (data []float32, m inputMap, pw, ph int, err error) {
	l, err := p.pixels(scale)
	if err != nil {
		return nil, inputMap{}, 0, 0, err
	}
	if l.scale == 1 && l.offX == 0 && l.offY == 0 { // the original itself: resized by scale, as it always was
		data, _, _, pw, ph = yunetInput(l.img, scale)
		return data, scaledBy(scale), pw, ph, nil
	}
	data, w, h, pw, ph := yunetInput(l.img, scale/l.scale)
	// the level is resized to w×h, so each of its pixels becomes w/W input pixels
	rx, ry := float64(w)/float64(l.img.W), float64(h)/float64(l.img.H)
	return data, inputMap{scaleX: l.scale * rx, scaleY: l.scale * ry, offX: l.offX * rx, offY: l.offY * ry}, pw, ph, nil
}

// yunetOutputs holds one stride's outputs: per anchor one cls, one obj, four bbox, ten kps values.
type yunetOutputs struct {
	cls, obj, bbox, kps []float32
}

// inputMap says where the detector's input pixels are in the original's: x = (xIn − offX)/scaleX.
type inputMap struct{ scaleX, scaleY, offX, offY float64 }

// scaledBy is the map of an input that is the original resized by scale.
func scaledBy(scale float64) inputMap { return inputMap{scaleX: scale, scaleY: scale} }

func (m inputMap) point(x, y float64) Point {
	return Point{X: (x - m.offX) / m.scaleX, Y: (y - m.offY) / m.scaleY}
}

// decodeYuNet turns the outputs of one pass into detections in original-image pixels.
func decodeYuNet(outs [3]yunetOutputs, pw, ph int, m inputMap) ([]Detection, error) {
	var dets []Detection
	for si, s := range yunetStrides {
		cols, rows := pw/s, ph/s
		o := outs[si]
		n := cols * rows
		if len(o.cls) != n || len(o.obj) != n || len(o.bbox) != 4*n || len(o.kps) != 10*n {
			return nil, fmt.Errorf("yunet stride %d: output sizes %d/%d/%d/%d for %d anchors", s, len(o.cls), len(o.obj), len(o.bbox), len(o.kps), n)
		}
		fs := float64(s)
		for i := 0; i < n; i++ {
			score := math.Sqrt(clamp01(float64(o.cls[i])) * clamp01(float64(o.obj[i])))
			if score < scoreThreshold {
				continue
			}
			r, c := float64(i/cols), float64(i%cols)
			b := o.bbox[4*i : 4*i+4]
			cx, cy := (c+float64(b[0]))*fs, (r+float64(b[1]))*fs
			bw, bh := math.Exp(float64(b[2]))*fs, math.Exp(float64(b[3]))*fs
			corner := m.point(cx-bw/2, cy-bh/2)
			d := Detection{Score: score, Box: Box{X: corner.X, Y: corner.Y, W: bw / m.scaleX, H: bh / m.scaleY}}
			k := o.kps[10*i : 10*i+10]
			for j := range 5 {
				d.Landmarks[j] = m.point((float64(k[2*j])+c)*fs, (float64(k[2*j+1])+r)*fs)
			}
			dets = append(dets, d)
		}
	}
	return dets, nil
}

func clamp01(v float64) float64 { return math.Min(1, math.Max(0, v)) }
