package face

// secondLookPad is the mirrored border around the second look's view, as a share of its longer
// side: a face cut through its middle by the frame's edge is made whole by its mirror image, as
// the detector was trained to see faces. It makes the view's pixels (1 + 2·0.15)² = 1.69 times as
// many; a wider border finds hardly more faces. The border is paid only where nothing was found,
// and photos without people get no more false faces (face/noface_test.go); what it finds is in
// face/models/HARDCASES.md.
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
// more pixels than the main pass reads (Photo.secondLook), so the fine pass would read them
// enlarged twice over, four times the pixels of the view's main pass, and the quick pass is spent
// in vain on the photos without people, which are most of those that get a second look. The main
// pass alone finds dark faces in large photos about as often (TestSecondLookLargePhotos) for a
// fraction of the time (BenchmarkSecondLook; face/models/DETECTION.md). Up to 1,024 px, which holds
// the hard-case pictures the models are fitted on, the view gets every pass, so the faces and
// features fitted on do not change.
const secondLookAllPassesSide = 1024

// secondLookPasses is the detector's passes on the second look's view of a w×h photo.
func secondLookPasses(w, h int) passes {
	if max(w, h) <= secondLookAllPassesSide {
		return everyPass
	}
	return mainPassOnly
}
