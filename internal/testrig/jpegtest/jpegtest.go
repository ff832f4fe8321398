// Package jpegtest writes JPEG files by hand for tests: progressive files, which image/jpeg does not
// write, and files of thousands of scans, which no encoder writes but an attacker may.
package jpegtest

// jpegBits writes entropy-coded data, stuffing a zero after every 0xFF byte and padding the last
// byte with ones, as JPEG's entropy-coded segments are written.
type jpegBits struct {
	out  []byte
	acc  uint32
	nacc int
}

func (b *jpegBits) put(code uint32, n int) {
	for i := n - 1; i >= 0; i-- {
		b.acc = b.acc<<1 | (code>>i)&1
		b.nacc++
		if b.nacc == 8 {
			b.out = append(b.out, byte(b.acc))
			if byte(b.acc) == 0xFF {
				b.out = append(b.out, 0)
			}
			b.acc, b.nacc = 0, 0
		}
	}
}

func (b *jpegBits) flush() []byte {
	for b.nacc != 0 {
		b.put(1, 1)
	}
	return b.out
}

// jpegSegment is a marker segment: the marker and its length-prefixed payload.
func jpegSegment(marker byte, payload ...byte) []byte {
	return append([]byte{0xFF, marker, byte((len(payload) + 2) >> 8), byte(len(payload) + 2)}, payload...)
}

// Scan is one scan of a generated progressive JPEG: its components (indices) and its spectral
// selection and successive approximation.
type Scan struct {
	Comps          []int
	Ss, Se, Ah, Al byte
}

// LibjpegScript is the scan script libjpeg (cjpeg -progressive, jpeg_simple_progression) writes
// for a colour image: the 10 scans of an ordinary progressive photo.
var LibjpegScript = []Scan{
	{[]int{0, 1, 2}, 0, 0, 0, 1},
	{[]int{0}, 1, 5, 0, 2},
	{[]int{2}, 1, 63, 0, 1},
	{[]int{1}, 1, 63, 0, 1},
	{[]int{0}, 6, 63, 0, 2},
	{[]int{0}, 1, 63, 2, 1},
	{[]int{0, 1, 2}, 0, 0, 1, 0},
	{[]int{2}, 1, 63, 1, 0},
	{[]int{1}, 1, 63, 1, 0},
	{[]int{0}, 1, 63, 1, 0},
}

// Progressive writes a w×h progressive JPEG of a flat grey picture, with ncomp components
// (1 or 3, not subsampled) and the given scans, by hand: image/jpeg writes baseline files only.
// Every coefficient is zero, so a DC scan takes a bit a block and an AC scan a few bits for the
// whole of it (end-of-band runs of 32,767 blocks): a small file can hold thousands of scans.
func Progressive(w, h, ncomp int, scans []Scan) []byte {
	out := []byte{0xFF, 0xD8}
	q := make([]byte, 65) // table 0, all ones
	for i := 1; i < len(q); i++ {
		q[i] = 1
	}
	out = append(out, jpegSegment(0xDB, q...)...)
	sof := []byte{8, byte(h >> 8), byte(h), byte(w >> 8), byte(w), byte(ncomp)}
	for c := range ncomp {
		sof = append(sof, byte(c+1), 0x11, 0)
	}
	out = append(out, jpegSegment(0xC2, sof...)...)
	// DC table 0: the one symbol 0 (a zero difference) as "0"; AC table 0: EOB14 (a run of
	// 2^14 + 14 bits) as "0", EOB (a run of 1) as "10" (a code of all ones is not allowed)
	dht := []byte{0x00, 1}
	dht = append(dht, make([]byte, 15)...)
	dht = append(dht, 0)
	dht = append(dht, 0x10, 1, 1)
	dht = append(dht, make([]byte, 14)...)
	dht = append(dht, 0xE0, 0x00)
	out = append(out, jpegSegment(0xC4, dht...)...)
	blocks := ((w + 7) / 8) * ((h + 7) / 8)
	for _, s := range scans {
		sos := []byte{byte(len(s.Comps))}
		for _, c := range s.Comps {
			sos = append(sos, byte(c+1), 0x00)
		}
		sos = append(sos, s.Ss, s.Se, s.Ah<<4|s.Al)
		out = append(out, jpegSegment(0xDA, sos...)...)
		var b jpegBits
		switch {
		case s.Ss == 0 && s.Ah == 0: // DC first: a zero difference a block
			for range blocks * len(s.Comps) {
				b.put(0, 1)
			}
		case s.Ss == 0: // DC refinement: a bit a block
			for range blocks * len(s.Comps) {
				b.put(0, 1)
			}
		case s.Ah == 0: // AC first: end-of-band runs of 32,767 blocks
			for n := 0; n < blocks; n += 32767 {
				b.put(0, 1)
				b.put(1<<14-1, 14)
			}
		default: // AC refinement of zero coefficients: the same runs, no correction bits
			for n := 0; n < blocks; n += 32767 {
				b.put(0, 1)
				b.put(1<<14-1, 14)
			}
		}
		out = append(out, b.flush()...)
	}
	return append(out, 0xFF, 0xD9)
}

// ManyScans is a w×h grey progressive JPEG with its DC scan and n repeated AC scans: an attack
// whose decoding time grows with the scans while the file barely does (face.MaxScans bounds them).
func ManyScans(w, h, n int) []byte {
	scans := []Scan{{[]int{0}, 0, 0, 0, 0}}
	for range n {
		scans = append(scans, Scan{[]int{0}, 1, 63, 0, 0})
	}
	return Progressive(w, h, 1, scans)
}
