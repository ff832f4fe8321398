package face

import (
	"cmp"
	"log/slog"
	"os"
	"slices"
	"sync"
	"sync/atomic"
)

// Scaled JPEG decoding. libjpeg-turbo decodes a JPEG at a fraction of its size (M/8) by running a
// smaller inverse DCT on each block, so a 12-megapixel photo the detector sees at 640 pixels costs
// a fraction of a full decode and never exists at full size in memory. It is loaded at run time
// (dlopen), not linked: a machine without it (Debian: apt-get install libturbojpeg0) builds and
// runs as before, decoding with image/jpeg at full resolution; which decoder runs is logged once.

// turboJPEGLibrary is the library loaded unless $HENSACHI_TURBOJPEG names another file, or is
// "off" for image/jpeg alone.
const turboJPEGLibrary = "libturbojpeg.so.0"

// scaleFactor is a DCT scaling factor num/denom.
type scaleFactor struct{ num, denom int }

// scaled is a side at the factor, rounded up as libjpeg-turbo does (TJSCALED).
func (f scaleFactor) scaled(n int) int { return (n*f.num + f.denom - 1) / f.denom }

func (f scaleFactor) value() float64 { return float64(f.num) / float64(f.denom) }

var fullScale = scaleFactor{1, 1}

var turbo struct {
	once    sync.Once
	factors []scaleFactor // the library's factors up to 1, largest first; nil without the library
	off     atomic.Bool   // tests switch the library off to compare with image/jpeg
}

// turboFactors returns libjpeg-turbo's downscaling factors, largest (1) first, or nil when JPEGs
// are decoded by image/jpeg.
func turboFactors() []scaleFactor {
	turbo.once.Do(func() {
		path := cmp.Or(os.Getenv("HENSACHI_TURBOJPEG"), turboJPEGLibrary)
		if path == "off" {
			slog.Info("face: JPEG decoding with image/jpeg at full resolution", "reason", "HENSACHI_TURBOJPEG=off")
			return
		}
		all, err := openTurboJPEG(path)
		if err != nil {
			slog.Info("face: JPEG decoding with image/jpeg at full resolution; install libturbojpeg0 for scaled decoding", "library", path, "reason", err.Error())
			return
		}
		for _, f := range all {
			if f.num > 0 && f.denom > 0 && f.num <= f.denom && slices.Contains(usedFactors, f) {
				turbo.factors = append(turbo.factors, f)
			}
		}
		slices.SortFunc(turbo.factors, func(a, b scaleFactor) int { return cmp.Compare(b.value(), a.value()) })
		if len(turbo.factors) == 0 || turbo.factors[0] != fullScale {
			slog.Info("face: JPEG decoding with image/jpeg at full resolution", "library", path, "reason", "no full-size scaling factor")
			turbo.factors = nil
			return
		}
		slog.Info("face: JPEG decoding with libjpeg-turbo, scaled to what the analysis needs", "library", path, "factors", len(turbo.factors))
	})
	if turbo.off.Load() {
		return nil
	}
	return turbo.factors
}

// usedFactors are the scaling factors the analysis decodes at: the powers of two, whose inverse
// DCTs libjpeg-turbo runs with SIMD code. Its other M/8 factors run generic C code, some of them
// slower than a full-size decode.
var usedFactors = []scaleFactor{{1, 1}, {1, 2}, {1, 4}, {1, 8}}

// coarsestFactor is the smallest factor that keeps at least scale of the original resolution
// (1 when scale is 1 or more).
func coarsestFactor(factors []scaleFactor, scale float64) scaleFactor {
	best := fullScale
	for _, f := range factors {
		if f.value() >= scale && f.value() < best.value() {
			best = f
		}
	}
	return best
}
