package geo

import (
	"math"
	"slices"
	"testing"
)

// TestClean: repeated positions and spikes go, wherever they are in the ring (across its closing
// position too, and a spike left by removing another), collinear positions going on stay, and a
// ring without area is dropped with its polygon when it is the outer one.
func TestClean(t *testing.T) {
	square := QRing{{0, 0}, {4, 0}, {4, 4}, {0, 4}, {0, 0}}
	hole := QRing{{1, 1}, {1, 2}, {2, 2}, {2, 1}, {1, 1}}
	for _, tc := range []struct {
		name    string
		in, out QShape
	}{
		{"valid", QShape{{square, hole}}, QShape{{square, hole}}},
		{"repeats", QShape{{{{0, 0}, {0, 0}, {4, 0}, {4, 4}, {4, 4}, {0, 4}, {0, 0}}}}, QShape{{square}}},
		{"spike there and back", QShape{{{{0, 0}, {4, 0}, {6, 1}, {4, 0}, {4, 4}, {0, 4}, {0, 0}}}}, QShape{{square}}},
		{"spike back short of its start", QShape{{{{0, 0}, {4, 0}, {4, 4}, {4, 8}, {4, 6}, {0, 4}, {0, 0}}}},
			QShape{{{{0, 0}, {4, 0}, {4, 4}, {4, 6}, {0, 4}, {0, 0}}}}},
		{"spike of spikes", QShape{{{{0, 0}, {4, 0}, {5, 1}, {6, 2}, {5, 1}, {4, 0}, {4, 4}, {0, 4}, {0, 0}}}}, QShape{{square}}},
		{"spike at the closing position", QShape{{{{-3, 0}, {0, 0}, {4, 0}, {4, 4}, {0, 4}, {0, 0}, {-3, 0}}}},
			QShape{{{{0, 0}, {4, 0}, {4, 4}, {0, 4}, {0, 0}}}}},
		{"collinear going on", QShape{{{{0, 0}, {2, 0}, {4, 0}, {4, 4}, {0, 4}, {0, 0}}}}, QShape{{{{0, 0}, {2, 0}, {4, 0}, {4, 4}, {0, 4}, {0, 0}}}}},
		{"a line, there and back", QShape{{{{0, 0}, {4, 0}, {0, 0}}, hole}, {square}}, QShape{{square}}},
		{"a hole without area", QShape{{square, {{1, 1}, {2, 2}, {3, 3}, {1, 1}}}}, QShape{{square}}},
		{"far apart on the grid", QShape{{{{math.MinInt32, 0}, {math.MaxInt32, 0}, {math.MaxInt32, 1}, {math.MinInt32, 0}},
			{{math.MinInt32, 0}, {math.MaxInt32, math.MaxInt32}, {math.MinInt32 + 1, math.MinInt32 + 2}, {math.MinInt32, 0}}}},
			QShape{{{{math.MinInt32, 0}, {math.MaxInt32, 0}, {math.MaxInt32, 1}, {math.MinInt32, 0}},
				{{math.MinInt32, 0}, {math.MaxInt32, math.MaxInt32}, {math.MinInt32 + 1, math.MinInt32 + 2}, {math.MinInt32, 0}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.in.Clean(); !slices.EqualFunc(got, tc.out, func(a, b QPolygon) bool {
				return slices.EqualFunc(a, b, slices.Equal)
			}) {
				t.Errorf("Clean\n%v\ngot  %v\nwant %v", tc.in, got, tc.out)
			}
		})
	}
}

// TestRegrid: a shape moved onto a coarser grid loses the positions that fall together and the
// spikes they leave.
func TestRegrid(t *testing.T) {
	fine := Transform{Scale: [2]float64{0.1, 0.1}}
	coarse := Transform{Scale: [2]float64{1, 1}}
	in := QShape{{{{0, 0}, {40, 0}, {41, 1}, {60, 1}, {41, 0}, {40, 40}, {0, 40}, {0, 0}}}}
	want := QShape{{{{0, 0}, {4, 0}, {4, 4}, {0, 4}, {0, 0}}}}
	if got := coarse.Regrid(in, fine); len(got) != 1 || len(got[0]) != 1 || !slices.Equal(got[0][0], want[0][0]) {
		t.Errorf("Regrid: %v, want %v", got, want)
	}
}
