package town_test

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/dataset"
	"github.com/hensachi/hensachi/geo"
	"github.com/hensachi/hensachi/internal/testrig/towntest"
	"github.com/hensachi/hensachi/town"
)

// TestBoundariesFromDataset: the boundaries written with a dataset come back from its catalog with
// the meta's description; a dataset without them is served all the same, its maps off with the
// reason, in the meta document too.
func TestBoundariesFromDataset(t *testing.T) {
	towns := towntest.Municipalities()
	meta := towntest.Meta()
	meta.Axes, meta.Stats = make([]hensachi.AxisMeta, len(hensachi.Axes)), make([]hensachi.StatMeta, len(hensachi.Stats))
	bounds := towntest.Boundaries()
	cases := []struct {
		name   string
		b      *geo.Boundaries
		reason string
	}{{"with boundaries", &bounds, ""}, {"without", nil, "boundary file missing"}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "dataset.arrow")
			m := meta
			m.Boundaries = &towntest.BoundaryMeta
			if _, err := dataset.Write(path, towns, m, dataset.WithBoundaries(c.b, c.reason)); err != nil {
				t.Fatal(err)
			}
			h, err := town.Open(path, towntest.PublicURL)
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			cat, err := h.Catalog()
			if err != nil {
				t.Fatal(err)
			}
			got, err := cat.Boundaries()
			if c.b == nil {
				var he *hensachi.Error
				if !errors.As(err, &he) || he.Code != hensachi.EUnavailable || !strings.Contains(err.Error(), c.reason) {
					t.Errorf("error %v, want unavailable with %q", err, c.reason)
				}
				if u := cat.Meta.Boundaries.Unavailable; !strings.Contains(u, c.reason) {
					t.Errorf("meta says %q", u)
				}
				if cat.Len() != len(towns) {
					t.Errorf("%d municipalities", cat.Len())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Boundaries, bounds) || got.Meta.Credit != towntest.BoundaryMeta.Credit || cat.Meta.Boundaries.Unavailable != "" {
				t.Errorf("boundaries %+v, meta %+v", got.Boundaries, got.Meta)
			}
		})
	}
}
