package main

import (
	"slices"
	"testing"

	"github.com/boxwatch/boxwatch/geo"
)

// A quantized topology with two arcs forming a square, the second one used reversed (~1), plus
// a polygon with a hole.
const sampleTopology = `{
 "type": "Topology",
 "transform": {"scale": [0.5, 0.25], "translate": [-10, 20]},
 "arcs": [
  [[0, 0], [4, 0], [0, 4]],
  [[0, 0], [0, 4], [4, 0]],
  [[1, 1], [1, 0], [0, 1], [-1, 0], [0, -1]]
 ],
 "objects": {"land": {"type": "GeometryCollection", "geometries": [
  {"type": "Polygon", "arcs": [[0, -2]]},
  {"type": "MultiPolygon", "arcs": [[[0, -2], [2]]]}
 ]}}
}`

func TestDecode(t *testing.T) {
	rings, err := decode([]byte(sampleTopology), "land")
	if err != nil {
		t.Fatal(err)
	}
	square := []geo.Point{{Lat: 20, Lon: -10}, {Lat: 20, Lon: -8}, {Lat: 21, Lon: -8}, {Lat: 21, Lon: -10}, {Lat: 20, Lon: -10}}
	if len(rings) != 3 {
		t.Fatalf("%d rings, want 3", len(rings))
	}
	for _, i := range []int{0, 1} {
		if !equal(rings[i], square) {
			t.Errorf("ring %d = %v, want %v", i, rings[i], square)
		}
	}
	hole := []geo.Point{{Lat: 20.25, Lon: -9.5}, {Lat: 20.25, Lon: -9}, {Lat: 20.5, Lon: -9}, {Lat: 20.5, Lon: -9.5}, {Lat: 20.25, Lon: -9.5}}
	if !equal(rings[2], hole) {
		t.Errorf("hole = %v, want %v", rings[2], hole)
	}
	if _, err := decode([]byte(sampleTopology), "sea"); err == nil {
		t.Error("a missing object decoded without error")
	}
	if _, err := decode([]byte(`{"arcs": [], "objects": {"land": {"geometries": [{"type": "Polygon", "arcs": [[5]]}]}}}`), "land"); err == nil {
		t.Error("an arc index out of range decoded without error")
	}
}

func equal(a, b []geo.Point) bool { return slices.Equal(a, b) }

// A patch replaces the vertices between its ends, in the ring's order, and fails where no ring
// holds its ends in that order.
func TestApplyPatches(t *testing.T) {
	saved := patches
	defer func() { patches = saved }()
	ring := func() []geo.Point {
		return []geo.Point{{Lon: 0, Lat: 0}, {Lon: 1, Lat: 0}, {Lon: 2, Lat: 0}, {Lon: 2, Lat: 2}, {Lon: 0, Lat: 2}, {Lon: 0, Lat: 0}}
	}
	patches = []patch{{name: "bay", from: geo.Point{Lon: 1, Lat: 0}, to: geo.Point{Lon: 2, Lat: 2}, points: [][2]float64{{1.5, 0.5}, {2, 1}}}}
	rings := [][]geo.Point{ring()}
	if err := applyPatches(rings); err != nil {
		t.Fatal(err)
	}
	want := []geo.Point{{Lon: 0, Lat: 0}, {Lon: 1, Lat: 0}, {Lon: 1.5, Lat: 0.5}, {Lon: 2, Lat: 1}, {Lon: 2, Lat: 2}, {Lon: 0, Lat: 2}, {Lon: 0, Lat: 0}}
	if !equal(rings[0], want) {
		t.Errorf("patched ring %v, want %v", rings[0], want)
	}
	patches[0].from, patches[0].to = patches[0].to, patches[0].from
	if err := applyPatches([][]geo.Point{ring()}); err == nil {
		t.Error("a patch whose ends come in the other order applied")
	}
}
