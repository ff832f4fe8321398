package face

// secondLookPad is the mirrored border around the second look's view, as a share of its longer
// side: a face cut through its middle by the frame's edge is made whole by its mirror image, as
// the detector was trained to see faces. On the hard-case pictures (training/hardcase) faces cut
// through their centre were found 62 % without the second look, 62 % with it unbordered, 88 % with
// this border and 90 % with one of 0.25, which makes the view's pixels 2.25 times as many instead
// of 1.69: the border is paid only where nothing was found, and photos without people get no more
// false faces (face/noface_test.go).
const secondLookPad = 0.15

// mirrorPad surrounds the image with a border of pad pixels that mirrors it at each edge.
func mirrorPad(img *RGB, pad int) *RGB {
	pad = min(pad, img.W-1, img.H-1)
	w, h := img.W+2*pad, img.H+2*pad
	out := &RGB{W: w, H: h, Pix: make([]uint8, 3*w*h)}
	for y := range h {
		sy := y - pad // mirrored about the first row and the last
		if sy < 0 {
			sy = -sy
		} else if sy >= img.H {
			sy = 2*(img.H-1) - sy
		}
		src := img.Pix[3*sy*img.W : 3*(sy+1)*img.W]
		dst := out.Pix[3*y*w : 3*(y+1)*w]
		copy(dst[3*pad:], src)
		for x := range pad { // mirrored about the first column and the last
			copy(dst[3*(pad-1-x):3*(pad-x)], src[3*(x+1):])
			copy(dst[3*(pad+img.W+x):3*(pad+img.W+x+1)], src[3*(img.W-2-x):])
		}
	}
	return out
}

// secondLookAllPassesSide is the longest side of a photo whose second look runs the detector's
// passes as the first look does; a larger photo's view gets the main pass alone. The view holds no
// more pixels than the main pass reads (Photo.secondLook), so the fine pass read them enlarged
// twice over, four times the pixels of the view's main pass, and the quick pass is spent in vain
// on the photos without people, which are most of those that get a second look: on a 1,600×1,203
// one the second look made the call 2.7 times as long, the main pass alone makes it 1.3 times
// (BenchmarkSecondLook). Dark, noisy faces of 48–160 px pasted into photos of 1,600–1,920 px were
// found 142 of 192 times with the main pass alone, 143 with every pass (TestSecondLookLargePhotos
// keeps a share of it). Up to 1,024 px, which holds the hard-case pictures that models are fitted
// on, the view's faces and features stay those the passes found before, to the bit.
const secondLookAllPassesSide = 1024

// secondLookPasses is the detector's passes on the second look's view of a w×h photo.
func secondLookPasses(w, h int) passes {
	if max(w, h) <= secondLookAllPassesSide {
		return everyPass
	}
	return mainPassOnly
}
