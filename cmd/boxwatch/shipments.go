package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/boxwatch/boxwatch/client"
)

const shipmentsUsage = "shipments [--q TEXT] [--number N] [--stopped true|false] [--page N] [--size N] [--json]"

// runShipments lists the account's shipments, newest first, optionally searched.
func runShipments(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	r := newRemote("shipments", getenv, stdin, stdout, stderr)
	var q client.ShipmentQuery
	var stopped string
	r.flags.StringVar(&q.Q, "q", "", "only shipments whose bill of lading, booking, reference or container number contains this text")
	r.flags.StringVar(&q.Number, "number", "", "only the shipment with exactly this bill of lading, booking or request number")
	r.flags.StringVar(&stopped, "stopped", "", "true: only shipments no longer tracked; false: only those still tracked")
	r.flags.IntVar(&q.Page.Number, "page", 1, "page number, from 1")
	r.flags.IntVar(&q.Page.Size, "size", 30, "shipments per page, 1 to 100")
	if _, err := r.parse(args, shipmentsUsage, exactly(0)); err != nil {
		return helpOK(err)
	}
	if stopped != "" {
		b, err := strconv.ParseBool(stopped)
		if err != nil {
			return usagef("--stopped must be true or false, got %q", stopped)
		}
		q.TrackingStopped = &b
	}
	if q.Page.Number < 1 || q.Page.Size < 1 || q.Page.Size > 100 {
		return usagef("--page must be 1 or more and --size 1 to 100")
	}
	c, err := r.client()
	if err != nil {
		return err
	}
	list, err := c.Shipments(ctx, q)
	if err != nil {
		return apiError(err)
	}
	if r.json {
		return r.printJSON(list)
	}
	if list.Total == 0 {
		fmt.Fprintln(stdout, "no shipments")
		return nil
	}
	tw := table(stdout, "NUMBER", "LINE", "FROM", "TO", "VESSEL", "ETA", "ARRIVED", "CONTAINERS", "TRACKING")
	for _, s := range list.Items {
		numbers := make([]string, len(s.Containers))
		for i, c := range s.Containers {
			numbers[i] = c.Number
		}
		tracking := "on"
		if s.LineTrackingStoppedAt != nil {
			tracking = "stopped"
		}
		row(tw, s.Number(), s.ShippingLineSCAC, str(s.PortOfLadingLOCODE), str(s.PortOfDischargeLOCODE), str(s.PODVesselName),
			when(s.PODETAAt), when(s.PODATAAt), orDash(strings.Join(numbers, ",")), tracking)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "page %d of %d, %d shipments\n", list.Page, list.LastPage, list.Total)
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
