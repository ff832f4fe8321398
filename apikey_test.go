package hensachi

import (
	"crypto/sha256"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"
	"time"
)

func TestAPIKey(t *testing.T) {
	seen := map[string]bool{}
	for range 200 {
		key, stored := NewAPIKey()
		if !CheckAPIKey(key) || !strings.HasPrefix(key, "hsk_") || len(key) != keyLen {
			t.Fatalf("fresh key %q fails its own check", key)
		}
		if stored.Hash != HashAPIKey(key) || stored.Hint != key[len(key)-4:] {
			t.Fatalf("stored form %+v does not match %q", stored, key)
		}
		if seen[key] {
			t.Fatalf("key %q issued twice", key)
		}
		seen[key] = true
		// any single changed character is caught by the checksum or the alphabet
		for _, i := range []int{4, 20, len(key) - 1} {
			b := []byte(key)
			b[i] = base62[(strings.IndexByte(base62, b[i])+1)%62]
			if CheckAPIKey(string(b)) {
				t.Fatalf("key with character %d changed passes: %q", i, b)
			}
		}
	}
	for _, bad := range []string{"", "hsk_", "hsk_" + strings.Repeat("A", 38), "xyz_" + strings.Repeat("A", 38), "hsk_" + strings.Repeat("!", 38)} {
		if CheckAPIKey(bad) {
			t.Errorf("CheckAPIKey(%q) = true", bad)
		}
	}
}

// TestIssuedKeysStayValid: keys already issued, and their stored hashes, must keep matching however
// the check and the hash are computed.
func TestIssuedKeysStayValid(t *testing.T) {
	const key = "hsk_EPJhi5wwWQaGqPFXBYrniKpZOOv9mYJD2Y7v5p"
	if !CheckAPIKey(key) || fmt.Sprintf("%x", HashAPIKey(key)) != "fdd2933c315791df7fb13e698378e2a95e6457f1a3480c6edcdd7501d9216b55" {
		t.Errorf("key issued before: check %v, hash %x", CheckAPIKey(key), HashAPIKey(key))
	}
	if HashAPIKey("short") != sha256.Sum256([]byte("short")) {
		t.Error("a string of another length is not hashed as it is")
	}
	for _, random := range []string{"", "a", strings.Repeat("z", keyRandomLen), key[4:36]} {
		n := crc32.ChecksumIEEE([]byte(random))
		var want [keyChecksumLen]byte
		for i := keyChecksumLen - 1; i >= 0; i-- {
			want[i] = base62[n%62]
			n /= 62
		}
		if got := checksum(random); got != want {
			t.Errorf("checksum(%q) = %s, want %s", random, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { CheckAPIKey(key); HashAPIKey(key) }); n != 0 {
		t.Errorf("checking and hashing a key allocates %v times", n)
	}
}

func TestDay(t *testing.T) {
	tests := []struct {
		utc       time.Time
		day, next string
	}{
		{time.Date(2026, 11, 22, 14, 59, 59, 0, time.UTC), "2026-11-22", "2026-11-23T00:00:00+09:00"},
		{time.Date(2026, 11, 22, 15, 0, 0, 0, time.UTC), "2026-11-23", "2026-11-24T00:00:00+09:00"},
		{time.Date(2026, 12, 31, 15, 30, 0, 0, time.UTC), "2027-01-01", "2027-01-02T00:00:00+09:00"},
	}
	for _, tt := range tests {
		if got := Day(tt.utc); got != tt.day {
			t.Errorf("Day(%v) = %s, want %s", tt.utc, got, tt.day)
		}
		if got := NextReset(tt.utc).Format(time.RFC3339); got != tt.next {
			t.Errorf("NextReset(%v) = %s, want %s", tt.utc, got, tt.next)
		}
	}
}
