package carrier

import (
	"context"
	"fmt"
	"net/http"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/carrier/dcsa"
	"github.com/boxwatch/boxwatch/carrier/sim"
	"github.com/boxwatch/boxwatch/terminal"
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

// SimulatedTerminals adds to dir a client of each terminal operating system the started network
// runs, except those dir already has a source for: configured terminals win. The clients reach
// the simulator over HTTP on loopback, in the boxwatch terminal protocol, exactly as they would a
// terminal. The simulated terminals know only the simulated lines' boxes: a check of a container
// of a line in realLines (a configured carrier) is not_found without asking them.
func SimulatedTerminals(network *sim.Network, dir *terminal.Directory, realLines map[string]boxwatch.Carrier, httpClient *http.Client) error {
	for _, t := range network.Terminals() {
		if dir.Source(t.Ref()) != nil {
			continue
		}
		base, ok := network.TerminalBaseURL(t.Ref())
		if !ok {
			return fmt.Errorf("carrier: the simulator is not running terminal %s (not started?)", t.Ref())
		}
		// The simulator's terminals take as many checks as they are sent.
		c, err := terminal.New(terminal.Config{BaseURL: base, HTTPClient: httpClient, Rate: 1000, Burst: 100})
		if err != nil {
			return fmt.Errorf("carrier: simulated terminal %s: %w", t.Ref(), err)
		}
		dir.Add(t.Ref(), simulatedTerminal{c, realLines})
	}
	return nil
}

// simulatedTerminal is a simulated terminal's client that keeps real lines' boxes to themselves.
type simulatedTerminal struct {
	boxwatch.TerminalSource
	real map[string]boxwatch.Carrier
}

func (s simulatedTerminal) Check(ctx context.Context, q boxwatch.TerminalQuery) (boxwatch.TerminalReport, error) {
	if _, real := s.real[q.SCAC]; real {
		return boxwatch.TerminalReport{}, &boxwatch.TerminalError{Reason: boxwatch.TerminalNotFound,
			Err: fmt.Errorf("%s is a configured line: the simulated terminals do not know its boxes", q.SCAC)}
	}
	return s.TerminalSource.Check(ctx, q)
}
