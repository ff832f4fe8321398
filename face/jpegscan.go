package face

import (
	"bytes"

	"github.com/hensachi/hensachi"
)

// The cost of decoding a JPEG. A JPEG's pixels come in scans, and a decoder visits every block of
// a scan's components once a scan however little data the scan holds: an AC scan of a whole
// component can be three bytes (end-of-band runs of 32,767 blocks). A progressive file of a few
// kilobytes can thus repeat a scan thousands of times and keep a core busy for minutes, and
// image/jpeg has no limit of its own. Inspect counts the scans and the samples they cover while it
// reads the header, and refuses a file beyond either budget before a pixel is decoded; whatever
// decoder then runs (libjpeg-turbo, or image/jpeg without it or for a damaged file) is bounded.
const (
	// MaxScans bounds the scans of a JPEG. Ordinary files have 1 (baseline) or 3 (a baseline file
	// with a scan a component), libjpeg's progressive script writes 10 for colour and 6 for grey,
	// and mozjpeg's optimised scripts stay under 20 or so; libjpeg-turbo's own cap (TJFLAG_LIMITSCANS)
	// is 500. 100 leaves any encoder's script ample room, five times the largest, while a file at
	// the limit costs what a few ordinary photos do.
	MaxScans = 100
	// MaxScanSamples bounds the samples all scans cover together (a scan of one full-size component
	// covers the image's pixels once; subsampled chroma covers a quarter of them): the passes a
	// decoder makes over the blocks, times their size. An ordinary progressive photo at the pixel
	// limit takes 8 passes (4:2:0) to 14 (4:4:4, libjpeg's script: three DC scans of all three
	// components count three times each); 20 full passes at the pixel limit leaves room for any
	// encoder's script at full size, and bounds a small image with many scans too: 100 scans of a
	// 4000×3000 grey image are 100 passes over 12 MP, refused, where 100 scans of 2 MP pass and
	// decode in a fraction of a second.
	MaxScanSamples = 20 * MaxPixels
)

// jpegCost is what decoding a JPEG costs: its scans, and the samples they cover together.
type jpegCost struct {
	scans   int
	samples int64
}

// jpegScanCost walks a JPEG's markers as image/jpeg's decoder does — segments skipped by their
// length, entropy-coded data and anything else between segments skipped up to the next marker,
// stuffed zeros, fill bytes and restart markers passed over, until the end-of-image marker or the
// data's end — and counts the start-of-scan markers and the samples of each scan's components.
// It never counts fewer scans than a decoder meets: it stops only where a decoder must stop too.
// Restart markers are not counted: they cost a decoder a reset of a few values each, two bytes of
// the file apiece, so the upload limit bounds them.
func jpegScanCost(data []byte, w, h int) jpegCost {
	type comp struct{ h, v int }
	comps := map[byte]comp{}
	hmax, vmax := 1, 1
	var cost jpegCost
	for i := 2; i+1 < len(data); {
		j := bytes.IndexByte(data[i:], 0xFF)
		if j < 0 {
			break
		}
		i += j + 1
		for i < len(data) && data[i] == 0xFF { // fill bytes
			i++
		}
		if i >= len(data) {
			break
		}
		marker := data[i]
		i++
		switch {
		case marker == 0x00 || 0xD0 <= marker && marker <= 0xD7: // a stuffed zero, a restart
			continue
		case marker == 0xD9: // end of image
			return cost
		}
		if i+2 > len(data) {
			break
		}
		n := int(data[i])<<8 | int(data[i+1])
		if n < 2 {
			break
		}
		seg := data[i+2 : min(len(data), i+n)]
		i += n
		switch {
		case marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC: // start of frame
			if len(seg) < 6 {
				continue
			}
			for k := 6; k+2 < len(seg) && (k-6)/3 < int(seg[5]); k += 3 {
				c := comp{max(1, int(seg[k+1]>>4)), max(1, int(seg[k+1]&15))}
				comps[seg[k]] = c
				hmax, vmax = max(hmax, c.h), max(vmax, c.v)
			}
		case marker == 0xDA: // start of scan
			cost.scans++
			if len(seg) < 1 {
				continue
			}
			for k := 1; k < len(seg) && (k-1)/2 < int(seg[0]); k += 2 {
				c, ok := comps[seg[k]]
				if !ok { // a component the frame does not have: a decoder refuses it; count it in full
					c = comp{hmax, vmax}
				}
				// the component's blocks, 64 samples each
				bw := ((w*c.h+hmax-1)/hmax + 7) / 8
				bh := ((h*c.v+vmax-1)/vmax + 7) / 8
				cost.samples += 64 * int64(bw) * int64(bh)
			}
		}
	}
	return cost
}

// checkJPEGCost refuses a JPEG whose decoding would cost more than the budget.
func checkJPEGCost(data []byte, w, h int) error {
	cost := jpegScanCost(data, w, h)
	switch {
	case cost.scans > MaxScans:
		return hensachi.Errorf(hensachi.EInvalidImage, "the JPEG file has %d scans; the service decodes up to %d (an ordinary photo has 1 to 20): save it again as a baseline or standard progressive JPEG", cost.scans, MaxScans)
	case cost.samples > MaxScanSamples:
		return hensachi.Errorf(hensachi.EInvalidImage, "the JPEG file's %d scans cover its %d×%d pixels %.0f times over; the service decodes up to %d million samples, 20 passes over %d megapixels (an ordinary photo takes at most 14): save it again as a baseline or standard progressive JPEG",
			cost.scans, w, h, float64(cost.samples)/float64(w*h), MaxScanSamples/1_000_000, MaxPixels/1_000_000)
	}
	return nil
}
