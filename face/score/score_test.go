package score

import (
	"math"
	"testing"
)

func TestHensachiAgainstReference(t *testing.T) {
	m := &Model{Reference: []float64{1.5, 2, 2.5, 3, 3.5, 4}}
	// inserted in the middle of six values: rank 4 of 7 → 50
	if h := m.Hensachi(2.75); math.Abs(h-50) > 1e-9 {
		t.Errorf("middle face: %v, want 50", h)
	}
	// ties with a reference value share its mid-rank: 3 joins the tie → rank 3.5 of 7 > 50
	if h := m.Hensachi(3); !(h > 50) {
		t.Errorf("tied face: %v", h)
	}
	lo, hi := m.Hensachi(0), m.Hensachi(9)
	if math.Abs(lo+hi-100) > 1e-9 || lo < MinHensachi || hi > MaxHensachi || !(lo < hi) {
		t.Errorf("extremes %v and %v", lo, hi)
	}
	prev := 0.0
	for raw := 1.0; raw <= 5; raw += 0.05 {
		h := m.Hensachi(raw)
		if h < prev {
			t.Fatalf("not monotone at %v", raw)
		}
		prev = h
	}
}
