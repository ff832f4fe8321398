package hensachi

import (
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
