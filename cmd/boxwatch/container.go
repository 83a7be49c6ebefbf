package main

import (
	"context"
	"fmt"
	"io"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/client"
)

// runContainer prints a container's status, its terminal data when the service has some, and
// its event timeline.
func runContainer(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	r := newRemote("container", getenv, stdin, stdout, stderr)
	pos, err := r.parse(args, "container NUMBER|ID [--json]", exactly(1))
	if err != nil {
		return helpOK(err)
	}
	c, err := r.client()
	if err != nil {
		return err
	}
	box, err := findContainer(ctx, c, pos[0])
	if err != nil {
		return err
	}
	events, err := c.TransportEvents(ctx, box.ID)
	if err != nil {
		return apiError(err)
	}
	if r.json {
		return r.printJSON(struct {
			Container client.Container        `json:"container"`
			Events    []client.TransportEvent `json:"transport_events"`
		}{box, events})
	}
	fmt.Fprintf(stdout, "Container %s  %s\n", printable(box.Number), box.CurrentStatus)
	fmt.Fprintf(stdout, "  equipment   %s\n", equipment(box))
	fmt.Fprintf(stdout, "  shipment    %s\n", box.ShipmentID)
	if box.HasTerminalData() {
		fmt.Fprintln(stdout, "Terminal (port of discharge)")
		fmt.Fprintf(stdout, "  available      %s\n", availability(box))
		fmt.Fprintf(stdout, "  last free day  %s\n", when(box.PickupLFD))
		if box.PickupAppointmentAt != nil {
			fmt.Fprintf(stdout, "  appointment    %s\n", when(box.PickupAppointmentAt))
		}
		if box.LocationAtPODTerminal != nil {
			fmt.Fprintf(stdout, "  location       %s\n", printable(*box.LocationAtPODTerminal))
		}
		for _, h := range box.HoldsAtPODTerminal {
			fmt.Fprintf(stdout, "  hold           %s: %s %s\n", printable(h.Name), printable(h.Status), printable(str(h.Description)))
		}
		for _, f := range box.FeesAtPODTerminal {
			fmt.Fprintf(stdout, "  fee            %s: %.2f %s\n", printable(f.Type), f.Amount, printable(f.CurrencyCode))
		}
		if box.TerminalCheckedAt != nil {
			fmt.Fprintf(stdout, "  checked        %s\n", when(box.TerminalCheckedAt))
		}
	}
	if len(events) == 0 {
		fmt.Fprintln(stdout, "No events yet.")
		return nil
	}
	fmt.Fprintln(stdout, "Events")
	tw := table(stdout, "  TIME", "EVENT", "PLACE", "VESSEL", "VOYAGE")
	for _, e := range events {
		place := str(e.LocationLOCODE)
		if e.LocationName != "" {
			place += " " + e.LocationName
		}
		row(tw, "  "+when(e.Timestamp), e.Event, place, orDash(e.VesselName), str(e.VoyageNumber))
	}
	return tw.Flush()
}

// findContainer takes a container id or number.
func findContainer(ctx context.Context, c *client.Client, arg string) (client.Container, error) {
	var box client.Container
	var err error
	if boxwatch.IsUUID(arg) {
		box, err = c.Container(ctx, arg)
	} else {
		box, err = c.ContainerByNumber(ctx, arg)
	}
	if client.IsNotFound(err) && !client.IsRouteNotFound(err) {
		return box, fmt.Errorf("no container %s in this account's shipments (track it first with 'boxwatch track')", printable(arg))
	}
	if err != nil {
		return box, apiError(err)
	}
	return box, nil
}
