package carrier

import (
	"fmt"
	"net/http"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/carrier/dcsa"
	"github.com/boxwatch/boxwatch/carrier/sim"
)

// Simulated returns a DCSA client for each line the started network simulates, keyed by primary
// SCAC, except the lines in configured: real adapters win. The clients reach the simulator over
// HTTP on loopback, exactly as they would a carrier, in the Track & Trace version it speaks.
func Simulated(network *sim.Network, configured map[string]boxwatch.Carrier, httpClient *http.Client) (map[string]boxwatch.Carrier, error) {
	out := map[string]boxwatch.Carrier{}
	for _, scac := range network.SCACs() {
		if _, real := configured[scac]; real {
			continue
		}
		base, ok := network.BaseURL(scac)
		if !ok {
			return nil, fmt.Errorf("carrier: the simulator is not serving %s (not started?)", scac)
		}
		c, err := dcsa.New(dcsa.Config{BaseURL: base, Version: network.Version(), HTTPClient: httpClient})
		if err != nil {
			return nil, fmt.Errorf("carrier: simulated %s: %w", scac, err)
		}
		out[scac] = c
	}
	return out, nil
}
