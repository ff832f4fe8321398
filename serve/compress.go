package serve

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"

	"github.com/klauspost/compress/flate"
)

// Compression of the API's answers. Every JSON and CSV answer over negotiate.MinCompressed is
// gzipped for a client that accepts gzip. An answer is the envelope's head, a body and the call's
// usage; a body kept per dataset version (bodies) is compressed once, with the head, into a
// gzip stream left open (gzipStart, kept beside it), which a call finishes with its usage in a
// stored block: a call then compresses nothing. An answer made for its call is compressed whole
// (negotiate.Gzip). Compressed answers have an ETag of their own (bodies.gzipETag).

// gzipStart is a gzip header and the deflate blocks of what it holds, flushed to a byte boundary
// and not final, with the CRC-32 and size of what they hold.
type gzipStart struct {
	bytes     []byte
	crc, size uint32
}

// newGzipStart starts a gzip stream of head and body.
func newGzipStart(head string, body []byte) *gzipStart {
	var b bytes.Buffer
	// RFC 1952 header: magic, deflate, no flags, no time, no extra flags, unknown OS
	b.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255})
	f, _ := flate.NewWriter(&b, flate.DefaultCompression)
	f.Write([]byte(head))
	f.Write(body)
	f.Flush()
	crc := crc32.Update(crc32.ChecksumIEEE([]byte(head)), crc32.IEEETable, body)
	return &gzipStart{bytes: b.Bytes(), crc: crc, size: uint32(len(head) + len(body))}
}

// finish returns the end of the stream for tail (the rest of the envelope: the call's usage and
// the closing brace), to write after s.bytes: tail in a final stored block (RFC 1951 §3.2.4; the
// start ends on a byte boundary), then the CRC-32 and size of the whole.
func (s *gzipStart) finish(tail []byte) []byte {
	end := make([]byte, 0, len(tail)+13)
	end = append(end, 1) // BFINAL, stored
	end = binary.LittleEndian.AppendUint16(end, uint16(len(tail)))
	end = binary.LittleEndian.AppendUint16(end, ^uint16(len(tail)))
	end = append(end, tail...)
	end = binary.LittleEndian.AppendUint32(end, crc32.Update(s.crc, crc32.IEEETable, tail))
	return binary.LittleEndian.AppendUint32(end, s.size+uint32(len(tail)))
}

// gzipStartOf returns the gzip start of envelopeHead and a body kept with the catalog (its first
// byte names it), made on its first compressed answer and kept as long as the body.
func (b *bodies) gzipStartOf(body []byte) *gzipStart {
	if s, ok := b.gzipStarts.Load(&body[0]); ok {
		return s.(*gzipStart)
	}
	s, _ := b.gzipStarts.LoadOrStore(&body[0], newGzipStart(envelopeHead, body))
	return s.(*gzipStart)
}
