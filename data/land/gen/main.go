// Command gen writes data/land/land-50m.bin, the land polygons of Natural Earth 1:50m, from the
// TopoJSON file land-50m.json of an unpacked npm package world-atlas (scripts/searoute.sh fetches
// it). It decodes TopoJSON itself: quantized, delta-encoded arcs, joined into rings. Rings are
// written as the source has them; package land deals with those that cross the antimeridian.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/geo/land"
)

// topology is the part of a TopoJSON document this command reads.
type topology struct {
	Transform *struct {
		Scale     [2]float64 `json:"scale"`
		Translate [2]float64 `json:"translate"`
	} `json:"transform"`
	Arcs    [][][2]float64 `json:"arcs"`
	Objects map[string]struct {
		Geometries []struct {
			Type string          `json:"type"`
			Arcs json.RawMessage `json:"arcs"`
		} `json:"geometries"`
	} `json:"objects"`
}

func main() {
	pkg := flag.String("package", "", "directory of the unpacked world-atlas package")
	out := flag.String("out", "data/land", "directory to write land-50m.bin and LICENSE.world-atlas to")
	flag.Parse()
	if err := run(*pkg, *out); err != nil {
		fmt.Fprintln(os.Stderr, "land:", err)
		os.Exit(1)
	}
}

func run(pkg, out string) error {
	if pkg == "" {
		return errors.New("-package is required")
	}
	raw, err := os.ReadFile(filepath.Join(pkg, "land-50m.json"))
	if err != nil {
		return err
	}
	rings, err := decode(raw, "land")
	if err != nil {
		return err
	}
	if err := applyPatches(rings); err != nil {
		return err
	}
	rings = addIslands(rings)
	if _, err := land.New(rings); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "land-50m.bin"), land.Encode(rings), 0o644); err != nil {
		return err
	}
	license, err := os.ReadFile(filepath.Join(pkg, "LICENSE"))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "LICENSE.world-atlas"), license, 0o644)
}

// decode returns every ring of the polygons of the named object of a TopoJSON document.
func decode(raw []byte, object string) ([][]geo.Point, error) {
	var t topology
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, err
	}
	obj, ok := t.Objects[object]
	if !ok {
		return nil, fmt.Errorf("no object %q", object)
	}
	arcs := make([][]geo.Point, len(t.Arcs))
	for i, a := range t.Arcs {
		var x, y float64
		pts := make([]geo.Point, len(a))
		for j, d := range a {
			if t.Transform != nil {
				x, y = x+d[0], y+d[1] // quantized: positions are deltas from the previous one
				pts[j] = geo.Point{Lon: x*t.Transform.Scale[0] + t.Transform.Translate[0], Lat: y*t.Transform.Scale[1] + t.Transform.Translate[1]}
			} else {
				pts[j] = geo.Point{Lon: d[0], Lat: d[1]}
			}
		}
		arcs[i] = pts
	}
	ring := func(idx []int) ([]geo.Point, error) {
		var r []geo.Point
		for _, i := range idx {
			rev := i < 0
			if rev {
				i = ^i // a negative index is the one's complement of a reversed arc
			}
			if i >= len(arcs) {
				return nil, fmt.Errorf("arc %d of %d", i, len(arcs))
			}
			a := arcs[i]
			for k := range a {
				p := a[k]
				if rev {
					p = a[len(a)-1-k]
				}
				if k == 0 && len(r) > 0 {
					continue // arcs share their joining point
				}
				r = append(r, p)
			}
		}
		return r, nil
	}
	var rings [][]geo.Point
	for _, g := range obj.Geometries {
		var polys [][][]int
		switch g.Type {
		case "Polygon":
			var p [][]int
			if err := json.Unmarshal(g.Arcs, &p); err != nil {
				return nil, err
			}
			polys = [][][]int{p}
		case "MultiPolygon":
			if err := json.Unmarshal(g.Arcs, &polys); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("geometry type %q", g.Type)
		}
		for _, p := range polys {
			for _, idx := range p {
				r, err := ring(idx)
				if err != nil {
					return nil, err
				}
				rings = append(rings, r)
			}
		}
	}
	return rings, nil
}
