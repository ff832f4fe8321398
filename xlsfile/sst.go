package xlsfile

import (
	"errors"
	"fmt"
	"unicode/utf16"
)

// readSST reads the shared strings, which run on from the SST record into its CONTINUE records.
func readSST(segs [][]byte) ([]string, error) {
	r := &segReader{segs: segs}
	if _, err := r.uint(4); err != nil { // how many cells refer to the strings
		return nil, err
	}
	n, err := r.uint(4)
	if err != nil {
		return nil, err
	}
	// every string takes at least 3 bytes (count and flags), which bounds what a count can claim
	out := make([]string, 0, min(int64(n), int64(r.remaining()/3)))
	for range n {
		s, err := r.unicodeString(2)
		if err != nil {
			return nil, fmt.Errorf("shared string %d of %d: %w", len(out), n, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// segReader reads across record boundaries; where a string's characters cross one, the next
// record begins with a new option byte saying whether they continue as one or two bytes each.
type segReader struct {
	segs [][]byte
	seg  int
	pos  int
}

var errShort = errors.New("string runs past its records")

func (r *segReader) next() bool {
	for r.seg < len(r.segs) && r.pos >= len(r.segs[r.seg]) {
		r.seg++
		r.pos = 0
	}
	return r.seg < len(r.segs)
}

func (r *segReader) remaining() int {
	n := 0
	for i := r.seg; i < len(r.segs); i++ {
		n += len(r.segs[i])
	}
	return n - r.pos
}

func (r *segReader) byte() (byte, error) {
	if !r.next() {
		return 0, errShort
	}
	b := r.segs[r.seg][r.pos]
	r.pos++
	return b, nil
}

func (r *segReader) uint(n int) (uint32, error) {
	var v uint32
	for i := range n {
		b, err := r.byte()
		if err != nil {
			return 0, err
		}
		v |= uint32(b) << (8 * i)
	}
	return v, nil
}

func (r *segReader) skip(n int64) error {
	if n > int64(r.remaining()) {
		return errShort
	}
	for ; n > 0; n-- {
		if _, err := r.byte(); err != nil {
			return err
		}
	}
	return nil
}

// unicodeString reads an XLUnicodeRichExtendedString whose character count takes countBytes:
// count, option flags, the optional counts of rich-text runs and of the phonetic block, the
// characters (one byte each, or two where the flags say so), then the runs and the phonetic
// block, which are skipped.
func (r *segReader) unicodeString(countBytes int) (string, error) {
	cch, err := r.uint(countBytes)
	if err != nil {
		return "", err
	}
	flags, err := r.byte()
	if err != nil {
		return "", err
	}
	var runs, ext uint32
	if flags&0x08 != 0 {
		if runs, err = r.uint(2); err != nil {
			return "", err
		}
	}
	if flags&0x04 != 0 {
		if ext, err = r.uint(4); err != nil {
			return "", err
		}
	}
	high := flags&0x01 != 0
	if int64(cch) > int64(r.remaining()) {
		return "", errShort
	}
	units := make([]uint16, 0, cch)
	for uint32(len(units)) < cch {
		if r.seg < len(r.segs) && r.pos >= len(r.segs[r.seg]) { // characters continue in the next record
			r.seg++
			r.pos = 0
			b, err := r.byte()
			if err != nil {
				return "", err
			}
			high = b&0x01 != 0
		}
		var u uint32
		if high {
			u, err = r.uint(2)
		} else {
			u, err = r.uint(1)
		}
		if err != nil {
			return "", err
		}
		units = append(units, uint16(u))
	}
	if err := r.skip(int64(runs)*4 + int64(ext)); err != nil {
		return "", err
	}
	return string(utf16.Decode(units)), nil
}
