package topojson

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hensachi/hensachi/geo"
)

// square is two municipalities sharing an edge: A a Polygon with a hole-less square, B a
// MultiPolygon with the shared arc reversed and an island; then a null geometry.
const square = `{"type":"Topology","transform":{"scale":[0.5,0.25],"translate":[130,30]},
"arcs":[[[0,0],[0,2]],[[0,2],[2,0],[0,-2],[-2,0]],[[0,0],[-2,0],[0,2],[2,0]],[[10,10],[1,0],[0,1],[-1,-1]]],
"objects":{"towns":{"type":"GeometryCollection","geometries":[
 {"type":"Polygon","arcs":[[0,1]],"properties":{"code":"00001"}},
 {"type":"MultiPolygon","arcs":[[[2,-1]],[[3]]],"properties":{"code":"00002"}},
 {"type":null,"properties":{"code":null}}]}}}`

func TestDecode(t *testing.T) {
	topo, err := Decode(strings.NewReader(square))
	if err != nil {
		t.Fatal(err)
	}
	gs := topo.Objects["towns"].Geometries
	if len(gs) != 3 {
		t.Fatalf("%d geometries", len(gs))
	}
	want := []geo.QShape{
		{{{{0, 0}, {0, 2}, {2, 2}, {2, 0}, {0, 0}}}},
		{{{{0, 0}, {-2, 0}, {-2, 2}, {0, 2}, {0, 0}}}, {{{10, 10}, {11, 10}, {11, 11}, {10, 10}}}},
		nil,
	}
	for i := range gs {
		if got := topo.Shape(&gs[i]); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("geometry %d: %v, want %v", i, got, want[i])
		}
	}
	if c := gs[1].Property("code"); c != "00002" {
		t.Errorf("property code %q", c)
	}
	if c := gs[2].Property("code"); c != "" || !gs[2].Null() {
		t.Errorf("null geometry: code %q, null %v", c, gs[2].Null())
	}
	if p := topo.Transform.Point(geo.QPoint{2, 4}); p != (geo.Point{131, 31}) {
		t.Errorf("point %v", p)
	}
}

func TestDecodeDamaged(t *testing.T) {
	cases := []struct{ name, old, new, want string }{
		{"not json", `{"type"`, `{"type`, "not a quantised"},
		{"not a topology", `"Topology"`, `"FeatureCollection"`, `type "FeatureCollection"`},
		{"no transform", `"transform":{"scale":[0.5,0.25],"translate":[130,30]},`, ``, "no transform"},
		{"zero scale", `[0.5,0.25]`, `[0,0.25]`, "transform"},
		{"fractional position", `[[0,0],[0,2]]`, `[[0,0],[0,2.5]]`, "arc 0 position 1"},
		{"arc out of range", `[[0,1]]`, `[[0,7]]`, "geometry 0: polygon 0 ring 0: arc 7 of 4"},
		{"reversed arc out of range", `[[2,-1]]`, `[[2,-9]]`, "geometry 1: polygon 0 ring 0: arc -9"},
		{"open ring", `[[0,1]]`, `[[0]]`, "geometry 0: polygon 0 ring 0 is not a closed ring"},
		{"open ring of two arcs", `[[0,1]]`, `[[0,-2]]`, "geometry 0: polygon 0 ring 0 is not a closed ring"},
		{"point geometry", `"type":"Polygon"`, `"type":"Point"`, `type "Point"`},
		{"arcs not nested", `[[0,1]]`, `[0,1]`, "Polygon arcs"},
		{"empty polygon", `[[[2,-1]],[[3]]]`, `[[],[[3]]]`, "polygon 0 has no ring"},
		{"short arc", `[[10,10],[1,0],[0,1],[-1,-1]]`, `[[10,10]]`, "arc 3 has 1 positions"},
		{"not a collection", `"type":"GeometryCollection"`, `"type":"Polygon"`, "not a GeometryCollection"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(square, c.old) {
				t.Fatalf("fixture has no %q", c.old)
			}
			_, err := Decode(strings.NewReader(strings.Replace(square, c.old, c.new, 1)))
			if !errors.Is(err, ErrTopology) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want ErrTopology with %q", err, c.want)
			}
		})
	}
}

// FuzzDecode feeds Decode damaged topologies: it must return an error or shapes of closed rings,
// never panic.
func FuzzDecode(f *testing.F) {
	f.Add(square)
	f.Add(`{"type":"Topology","transform":{"scale":[1,1],"translate":[0,0]},"arcs":[],"objects":{}}`)
	f.Add(strings.Replace(square, `[[0,1]]`, `[[-1,-2]]`, 1))
	f.Fuzz(func(t *testing.T, s string) {
		topo, err := Decode(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, c := range topo.Objects {
			for i := range c.Geometries {
				for _, poly := range topo.Shape(&c.Geometries[i]) {
					for _, r := range poly {
						if r[0] != r[len(r)-1] {
							t.Fatalf("ring not closed: %v", r)
						}
					}
				}
			}
		}
	})
}
