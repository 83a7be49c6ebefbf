package sim

import (
	"testing"

	"github.com/boxwatch/boxwatch/data"
)

// Every railway of the IPI legs is a railway of the data set, named in its ramps' names, so that
// a tracker reads its SCAC from them (tracking's TestInlandDemoNumbers reads it from the on-dock
// rail call at the port too).
func TestRampsNameTheirRailway(t *testing.T) {
	rs := data.Railways()
	for port, ramps := range ipiRamps {
		for _, r := range ramps {
			railway, ok := rs.Named(r.railway)
			if !ok {
				t.Errorf("%s → %s: railway %q is not in data/railways", port, r.name, r.railway)
				continue
			}
			if got, ok := rs.Named(r.name); !ok || got.SCAC != railway.SCAC {
				t.Errorf("%q names %q, want %s", r.name, got.SCAC, railway.SCAC)
			}
		}
	}
}
