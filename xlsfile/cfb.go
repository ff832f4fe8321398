package xlsfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf16"
)

// The compound file (OLE2, [MS-CFB]) that holds a workbook's streams: a 512-byte header, then
// sectors chained by a file allocation table (FAT); streams smaller than the cutoff live in the
// mini stream, in 64-byte sectors chained by the mini FAT.

var cfbSignature = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}

const (
	cfbHeaderSize  = 512
	headerDIFAT    = 109 // FAT sector numbers the header holds itself
	dirEntrySize   = 128
	endOfChain     = 0xFFFFFFFE
	maxRegularSect = 0xFFFFFFFA // sector numbers above are markers (free, end of chain, FAT, DIFAT)
	dirStream      = 2
	dirRoot        = 5
)

// ErrNotCompound is returned for a file that is not a compound document at all (a CSV, an xlsx).
var ErrNotCompound = errors.New("not a compound document (OLE2)")

type compound struct {
	data         []byte
	sectorSize   int
	miniSize     int
	miniCutoff   uint32
	fat, miniFAT []uint32
	dir          []dirEntry
	ministream   []byte
}

type dirEntry struct {
	name  string
	typ   byte
	start uint32
	size  uint64
}

// openCompound reads the header, the FAT, the directory and the mini stream of a compound file.
// Every sector number and chain is checked against the file: a chain that loops or runs past the
// file's sectors is an error, so no allocation exceeds the file's own size.
func openCompound(data []byte) (*compound, error) {
	if len(data) < cfbHeaderSize || !bytes.Equal(data[:8], cfbSignature) {
		return nil, ErrNotCompound
	}
	le := binary.LittleEndian
	if le.Uint16(data[0x1C:]) != 0xFFFE {
		return nil, errors.New("compound header: byte order mark is not little-endian")
	}
	shift, miniShift := le.Uint16(data[0x1E:]), le.Uint16(data[0x20:])
	if shift != 9 && shift != 12 {
		return nil, fmt.Errorf("compound header: sector size 2^%d, want 2^9 or 2^12", shift)
	}
	if miniShift != 6 {
		return nil, fmt.Errorf("compound header: mini sector size 2^%d, want 2^6", miniShift)
	}
	c := &compound{data: data, sectorSize: 1 << shift, miniSize: 1 << miniShift, miniCutoff: le.Uint32(data[0x38:])}
	if err := c.readFAT(le.Uint32(data[0x2C:]), le.Uint32(data[0x44:]), le.Uint32(data[0x48:])); err != nil {
		return nil, err
	}
	dir, err := c.chain(le.Uint32(data[0x30:]), "directory")
	if err != nil {
		return nil, err
	}
	for p := 0; p+dirEntrySize <= len(dir); p += dirEntrySize {
		c.dir = append(c.dir, parseDirEntry(dir[p:p+dirEntrySize]))
	}
	if len(c.dir) == 0 || c.dir[0].typ != dirRoot {
		return nil, errors.New("compound directory: no root entry")
	}
	if c.miniFAT, err = c.table(le.Uint32(data[0x3C:]), "mini FAT"); err != nil {
		return nil, err
	}
	if root := c.dir[0]; root.size > 0 {
		if c.ministream, err = c.stream(root.start, root.size, false, "mini stream"); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// sectors is how many whole sectors the file holds after its header.
func (c *compound) sectors() int { return (len(c.data) - cfbHeaderSize) / c.sectorSize }

func (c *compound) sector(n uint32) ([]byte, error) {
	if n >= maxRegularSect || int64(n) >= int64(c.sectors()) {
		return nil, fmt.Errorf("sector %d is outside the file's %d sectors", n, c.sectors())
	}
	off := cfbHeaderSize + int(n)*c.sectorSize
	return c.data[off : off+c.sectorSize], nil
}

// readFAT gathers the FAT from the sectors the header and the DIFAT chain name.
func (c *compound) readFAT(nFAT, difat, nDIFAT uint32) error {
	if int64(nFAT) > int64(c.sectors()) {
		return fmt.Errorf("compound header: %d FAT sectors in a file of %d sectors", nFAT, c.sectors())
	}
	var ids []uint32
	for i := range headerDIFAT {
		ids = append(ids, binary.LittleEndian.Uint32(c.data[0x4C+4*i:]))
	}
	perSector := c.sectorSize/4 - 1 // the last entry of a DIFAT sector points to the next one
	seen := map[uint32]bool{}
	for range nDIFAT {
		if difat >= maxRegularSect {
			break
		}
		if seen[difat] {
			return errors.New("compound DIFAT: the chain loops")
		}
		seen[difat] = true
		s, err := c.sector(difat)
		if err != nil {
			return fmt.Errorf("compound DIFAT: %w", err)
		}
		for i := range perSector {
			ids = append(ids, binary.LittleEndian.Uint32(s[4*i:]))
		}
		difat = binary.LittleEndian.Uint32(s[4*perSector:])
	}
	if int(nFAT) > len(ids) {
		return fmt.Errorf("compound header: %d FAT sectors, the DIFAT names %d", nFAT, len(ids))
	}
	c.fat = make([]uint32, 0, int(nFAT)*c.sectorSize/4)
	for _, id := range ids[:nFAT] {
		s, err := c.sector(id)
		if err != nil {
			return fmt.Errorf("compound FAT: %w", err)
		}
		for i := 0; i < c.sectorSize; i += 4 {
			c.fat = append(c.fat, binary.LittleEndian.Uint32(s[i:]))
		}
	}
	return nil
}

// chain returns the sectors of a FAT chain, in order, joined.
func (c *compound) chain(start uint32, what string) ([]byte, error) {
	return follow(start, what, func(n uint32) ([]byte, uint32, error) {
		s, err := c.sector(n)
		if err != nil {
			return nil, 0, err
		}
		if int(n) >= len(c.fat) {
			return nil, 0, fmt.Errorf("sector %d has no FAT entry", n)
		}
		return s, c.fat[n], nil
	})
}

// miniChain returns the mini sectors of a mini FAT chain, in order, joined.
func (c *compound) miniChain(start uint32, what string) ([]byte, error) {
	return follow(start, what, func(n uint32) ([]byte, uint32, error) {
		off := int64(n) * int64(c.miniSize)
		if int(n) >= len(c.miniFAT) || off+int64(c.miniSize) > int64(len(c.ministream)) {
			return nil, 0, fmt.Errorf("mini sector %d is outside the mini stream", n)
		}
		return c.ministream[off : off+int64(c.miniSize)], c.miniFAT[n], nil
	})
}

// follow joins the sectors of a chain from start to its end; sector gives a sector's bytes and the
// number of the next. A chain that comes back to a sector loops, which is an error: every sector is
// read once at most, so the result is never larger than the file.
func follow(start uint32, what string, sector func(n uint32) ([]byte, uint32, error)) ([]byte, error) {
	var out []byte
	seen := make(map[uint32]bool)
	for n := start; n != endOfChain; {
		if seen[n] {
			return nil, fmt.Errorf("compound %s: the sector chain loops at %d", what, n)
		}
		seen[n] = true
		s, next, err := sector(n)
		if err != nil {
			return nil, fmt.Errorf("compound %s: %w", what, err)
		}
		out = append(out, s...)
		n = next
	}
	return out, nil
}

// table reads a chain of 32-bit sector numbers (the mini FAT).
func (c *compound) table(start uint32, what string) ([]uint32, error) {
	if start == endOfChain || start >= maxRegularSect {
		return nil, nil
	}
	b, err := c.chain(start, what)
	if err != nil {
		return nil, err
	}
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out, nil
}

// stream reads size bytes from a chain of regular sectors, or of mini sectors when mini is set.
func (c *compound) stream(start uint32, size uint64, mini bool, what string) ([]byte, error) {
	var b []byte
	var err error
	if mini {
		b, err = c.miniChain(start, what)
	} else {
		b, err = c.chain(start, what)
	}
	if err != nil {
		return nil, err
	}
	if uint64(len(b)) < size {
		return nil, fmt.Errorf("compound %s: %d bytes declared, its sectors hold %d", what, size, len(b))
	}
	return b[:size], nil
}

func parseDirEntry(b []byte) dirEntry {
	n := int(binary.LittleEndian.Uint16(b[0x40:]))
	if n > 64 {
		n = 64
	}
	units := make([]uint16, 0, n/2)
	for i := 0; i+1 < n; i += 2 {
		u := binary.LittleEndian.Uint16(b[i:])
		if u == 0 {
			break
		}
		units = append(units, u)
	}
	return dirEntry{
		name:  string(utf16.Decode(units)),
		typ:   b[0x42],
		start: binary.LittleEndian.Uint32(b[0x74:]),
		size:  binary.LittleEndian.Uint64(b[0x78:]) & 0xFFFFFFFF, // version 3 files leave the high half undefined
	}
}

// open returns the stream of the given name.
func (c *compound) open(name string) ([]byte, bool, error) {
	for _, e := range c.dir {
		if e.typ != dirStream || e.name != name {
			continue
		}
		if e.size > uint64(len(c.data)) {
			return nil, true, fmt.Errorf("compound stream %s: %d bytes declared in a file of %d", name, e.size, len(c.data))
		}
		b, err := c.stream(e.start, e.size, e.size < uint64(c.miniCutoff), "stream "+name)
		return b, true, err
	}
	return nil, false, nil
}
