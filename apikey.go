package hensachi

import (
	"crypto/rand"
	"crypto/sha256"
	"hash/crc32"
	"strings"
)

// An API key reads hsk_<32 base62 characters of randomness><6 base62 characters of checksum>. The
// prefix makes leaked keys easy to find by secret scanners; the checksum lets the server reject a
// mistyped key without a database lookup.
const (
	keyPrefix      = "hsk_"
	keyRandomLen   = 32 // ≈190 bits
	keyChecksumLen = 6
	keyLen         = len(keyPrefix) + keyRandomLen + keyChecksumLen
	keyHintLen     = 4
	base62         = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

// NewAPIKey returns a fresh key and its stored form (hash and hint, no ID yet).
func NewAPIKey() (string, APIKey) {
	var b strings.Builder
	b.WriteString(keyPrefix)
	// rejection sampling keeps every character uniform
	buf := make([]byte, 64)
	for b.Len() < len(keyPrefix)+keyRandomLen {
		rand.Read(buf)
		for _, c := range buf {
			if c < 248 && b.Len() < len(keyPrefix)+keyRandomLen { // 248 = 4·62
				b.WriteByte(base62[c%62])
			}
		}
	}
	random := b.String()[len(keyPrefix):]
	sum := checksum(random)
	b.Write(sum[:])
	key := b.String()
	return key, APIKey{Hash: HashAPIKey(key), Hint: key[len(key)-keyHintLen:]}
}

// HashAPIKey returns the stored hash of a key.
func HashAPIKey(key string) [32]byte {
	if len(key) == keyLen { // every call's key: its bytes on the stack, as []byte(key) would not be
		var b [keyLen]byte
		copy(b[:], key)
		return sha256.Sum256(b[:])
	}
	return sha256.Sum256([]byte(key))
}

// isBase62 tells the bytes of base62: a key's characters are checked on every call.
var isBase62 = func() (t [256]bool) {
	for i := range len(base62) {
		t[base62[i]] = true
	}
	return t
}()

// CheckAPIKey reports whether s has the shape and checksum of a key this service issues.
func CheckAPIKey(s string) bool {
	if len(s) != keyLen || !strings.HasPrefix(s, keyPrefix) {
		return false
	}
	body := s[len(keyPrefix):]
	for i := 0; i < len(body); i++ {
		if !isBase62[body[i]] {
			return false
		}
	}
	sum := checksum(body[:keyRandomLen])
	return string(sum[:]) == body[keyRandomLen:] // compared without a copy: keys are checked on every call
}

// checksum is the base62 CRC-32 of a key's random part, the key's last characters.
func checksum(random string) [keyChecksumLen]byte {
	// crc32.ChecksumIEEE a byte at a time, over the string: converting it to []byte would allocate
	n := ^uint32(0)
	for i := 0; i < len(random); i++ {
		n = crc32.IEEETable[byte(n)^random[i]] ^ n>>8
	}
	n = ^n
	var out [keyChecksumLen]byte
	for i := keyChecksumLen - 1; i >= 0; i-- {
		out[i] = base62[n%62]
		n /= 62
	}
	return out
}
