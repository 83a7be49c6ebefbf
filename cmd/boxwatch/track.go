package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/client"
)

const trackUsage = "track NUMBER [--scac SCAC] [--type bill_of_lading|booking_number|container] [--ref REF]... [--no-wait] [--timeout 10m]"

// runTrack creates a tracking request, inferring the carrier when --scac is missing, and follows
// it until it becomes a shipment or fails.
func runTrack(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	r := newRemote("track", getenv, stdin, stdout, stderr)
	var scac, typ string
	var refs sourceList
	var noWait bool
	timeout := 10 * time.Minute
	r.flags.StringVar(&scac, "scac", "", "the shipping line's SCAC (default: inferred from the number)")
	r.flags.StringVar(&typ, "type", "", "bill_of_lading, booking_number or container (default: inferred)")
	r.flags.Var(&refs, "ref", "a reference number to attach; repeatable")
	r.flags.BoolVar(&noWait, "no-wait", false, "create the request and return without following it")
	r.flags.DurationVar(&timeout, "timeout", timeout, "how long to follow the request before giving up (it goes on in the service)")
	r.flags.DurationVar(&r.pollInterval, "poll", r.pollInterval, "how often to check the request while following it")
	pos, err := r.parse(args, trackUsage, exactly(1))
	if err != nil {
		return helpOK(err)
	}
	number := strings.TrimSpace(pos[0])
	typ = boxwatch.LowerASCII(strings.TrimSpace(typ))
	if typ != "" && !slices.Contains(requestTypes, typ) {
		return usagef("--type must be one of %s, got %q", strings.Join(requestTypes, ", "), typ)
	}
	if timeout <= 0 {
		return usagef("--timeout must be more than 0, got %v", timeout)
	}
	if r.pollInterval < 10*time.Millisecond {
		return usagef("--poll must be at least 10ms, got %v", r.pollInterval)
	}
	c, err := r.client()
	if err != nil {
		return err
	}
	scac = boxwatch.UpperASCII(strings.TrimSpace(scac))
	if scac == "" || typ == "" {
		if scac, typ, err = r.chooseCarrier(ctx, c, number, scac, typ); err != nil {
			return err
		}
	}
	tr, err := c.CreateTrackingRequest(ctx, client.NewTrackingRequest{RequestType: typ, RequestNumber: number, SCAC: scac, RefNumbers: refs})
	if err != nil {
		var e *client.Error
		if !errors.As(err, &e) || e.Code() != "duplicate" {
			return apiError(err)
		}
		// Already tracked: follow the live request instead.
		if tr, err = c.LiveTrackingRequest(ctx, number, scac); err != nil {
			return apiError(err)
		}
		r.progressf("%s %s is already tracked (request %s); following it\n", scac, boxwatch.UpperASCII(number), tr.ID)
	} else {
		r.progressf("tracking request %s created for %s %s (%s)\n", tr.ID, tr.SCAC, tr.RequestNumber, tr.RequestType)
	}
	if noWait {
		return r.printTrack(ctx, c, tr)
	}
	if tr, err = r.follow(ctx, c, tr, timeout); err != nil {
		return err
	}
	return r.printTrack(ctx, c, tr)
}

var requestTypes = []string{client.BillOfLading, client.BookingNumber, client.ContainerType}

// progressf writes a progress line: to stderr when stdout carries JSON, so scripts get JSON only.
func (r *remote) progressf(format string, args ...any) {
	w := r.stdout
	if r.json {
		w = r.stderr
	}
	fmt.Fprintf(w, format, args...)
}

// chooseCarrier fills the SCAC and number type the user did not give from infer_number. It asks
// on a terminal when the inference does not decide; elsewhere it fails, naming the candidates.
func (r *remote) chooseCarrier(ctx context.Context, c *client.Client, number, scac, typ string) (string, string, error) {
	in, err := c.InferNumber(ctx, number)
	if err != nil {
		return "", "", apiError(err)
	}
	if typ == "" {
		if typ = in.RequestType(); typ == "" {
			if typ, err = r.ask("What kind of number is "+number+"?", requestTypes, requestTypes, false); err != nil {
				return "", "", err
			}
		}
		r.progressf("number type: %s\n", typ)
	}
	if scac != "" {
		return scac, typ, nil
	}
	line := in.ShippingLine
	if line.Decision == client.AutoSelect && line.Selected != nil {
		r.progressf("carrier: %s (%s), inferred with confidence %.2f\n", line.Selected.SCAC, printable(line.Selected.Name), line.Selected.Confidence)
		return line.Selected.SCAC, typ, nil
	}
	if len(line.Candidates) == 0 {
		if !terminal(r.stdin) {
			return "", "", exitError{exitNeedsCarrier, fmt.Sprintf("no shipping line could be inferred for %s (%s): give --scac", number, line.Decision)}
		}
		s, err := r.askLine("No shipping line could be inferred for " + printable(number) + ". Its SCAC: ")
		if err == nil && !scacShaped(s) {
			err = usagef("%q is not a SCAC (2 to 4 letters)", printable(s))
		}
		return boxwatch.UpperASCII(s), typ, err
	}
	labels, scacs := make([]string, len(line.Candidates)), make([]string, len(line.Candidates))
	for i, cand := range line.Candidates {
		labels[i] = fmt.Sprintf("%s  %s  (confidence %.2f)", cand.SCAC, printable(cand.Name), cand.Confidence)
		scacs[i] = cand.SCAC
	}
	if !terminal(r.stdin) {
		return "", "", exitError{exitNeedsCarrier, fmt.Sprintf("the carrier of %s needs a choice (%s): candidates %s; give --scac",
			printable(number), printable(line.Decision), printable(strings.Join(scacs, ", ")))}
	}
	scac, err = r.ask(fmt.Sprintf("Which shipping line issued %s? (%s; another line's SCAC may be typed too)", printable(number), line.Decision), labels, scacs, true)
	return scac, typ, err
}

// ask shows numbered options on the terminal and returns the value of the one chosen, by number
// or by value; with anySCAC, any SCAC-shaped answer (2 to 4 letters) too.
func (r *remote) ask(question string, labels, values []string, anySCAC bool) (string, error) {
	if !terminal(r.stdin) {
		return "", exitError{exitNeedsCarrier, question + " Standard input is not a terminal to ask on: give --scac and --type"}
	}
	fmt.Fprintln(r.stderr, question)
	for i, l := range labels {
		fmt.Fprintf(r.stderr, "  %d) %s\n", i+1, l)
	}
	for range 3 {
		answer, err := r.askLine(fmt.Sprintf("Choose 1-%d: ", len(labels)))
		if err != nil {
			return "", err
		}
		if n, err := strconv.Atoi(answer); err == nil && n >= 1 && n <= len(values) {
			return values[n-1], nil
		}
		for _, v := range values {
			if boxwatch.EqualFoldASCII(v, answer) {
				return v, nil
			}
		}
		if anySCAC && scacShaped(answer) {
			return boxwatch.UpperASCII(answer), nil
		}
		fmt.Fprintf(r.stderr, "%q is not one of the choices.\n", printable(answer))
	}
	return "", usagef("no valid choice given")
}

func scacShaped(s string) bool {
	if len(s) < 2 || len(s) > 4 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// askLine prompts on stderr and reads one line from stdin.
func (r *remote) askLine(prompt string) (string, error) {
	fmt.Fprint(r.stderr, prompt)
	if r.answers == nil {
		r.answers = bufio.NewReader(r.stdin)
	}
	line, err := r.answers.ReadString('\n')
	if len(line) > 256 {
		return "", usagef("answer too long")
	}
	line = strings.TrimSpace(line)
	if line == "" && err != nil {
		return "", usagef("no answer given")
	}
	return line, nil
}

// follow polls the request until its lookup is over, the carrier has no manifest yet, or the
// timeout. On a terminal it shows a spinner; elsewhere one line per change of state.
func (r *remote) follow(ctx context.Context, c *client.Client, tr client.TrackingRequest, timeout time.Duration) (client.TrackingRequest, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	spin := terminal(r.stdout) && !r.json
	start := time.Now()
	last := ""
	frames := []string{"|", "/", "-", `\`}
	poll := time.NewTicker(r.pollInterval)
	defer poll.Stop()
	var frame <-chan time.Time // the spinner turns between polls
	if spin {
		t := time.NewTicker(150 * time.Millisecond)
		defer t.Stop()
		frame = t.C
	}
	for i := 0; ; i++ {
		state := describeState(tr)
		if spin {
			fmt.Fprintf(r.stdout, "\r\x1b[K%s %s (%s)", frames[i%len(frames)], state, time.Since(start).Round(time.Second))
		} else if state != last {
			r.progressf("%s\n", state)
		}
		last = state
		if tr.Settled() || tr.Status == client.StatusAwaitingManifest {
			if spin {
				fmt.Fprint(r.stdout, "\r\x1b[K")
			}
			return tr, nil
		}
		select {
		case <-ctx.Done():
			if spin {
				fmt.Fprintln(r.stdout)
			}
			if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return tr, fmt.Errorf("interrupted while request %s is %s; it goes on in the service", tr.ID, tr.Status)
			}
			return tr, fmt.Errorf("request %s is still %s after %v; it goes on in the service (see 'boxwatch track %s --scac %s' again later)",
				tr.ID, tr.Status, timeout, tr.RequestNumber, tr.SCAC)
		case <-frame:
			continue
		case <-poll.C:
		}
		next, err := c.TrackingRequest(ctx, tr.ID)
		if err != nil {
			if ctx.Err() != nil {
				continue
			}
			return tr, apiError(err)
		}
		tr = next
	}
}

// describeState is the one-line progress of a request.
func describeState(tr client.TrackingRequest) string {
	switch {
	case tr.IsRetrying:
		n := 0
		if tr.RetryCount != nil {
			n = *tr.RetryCount
		}
		return fmt.Sprintf("retrying: the carrier could not be reached (%s); retry %d", str(tr.FailedReason), n)
	case tr.Status == client.StatusPending:
		return "pending: looking the number up with " + tr.SCAC
	}
	return tr.Status
}

// printTrack prints where the request ended: the shipment, the reason it failed, or that the
// carrier has no manifest yet.
func (r *remote) printTrack(ctx context.Context, c *client.Client, tr client.TrackingRequest) error {
	var sh *client.Shipment
	if tr.ShipmentID != "" {
		s, err := c.Shipment(ctx, tr.ShipmentID)
		if err != nil {
			return apiError(err)
		}
		sh = &s
	}
	if r.json {
		if err := r.printJSON(struct {
			TrackingRequest client.TrackingRequest `json:"tracking_request"`
			Shipment        *client.Shipment       `json:"shipment"`
		}{tr, sh}); err != nil {
			return err
		}
	} else if sh != nil {
		printShipment(r.stdout, *sh)
	}
	switch tr.Status {
	case client.StatusFailed:
		return exitError{exitTrackingFailed, fmt.Sprintf("tracking request %s failed: %s", tr.ID, failedReasonText(str(tr.FailedReason)))}
	case client.StatusAwaitingManifest:
		r.progressf("%s does not know %s yet; boxwatch checks again daily for seven days (request %s)\n", tr.SCAC, tr.RequestNumber, tr.ID)
	case client.StatusPending:
		r.progressf("request %s is pending; follow it with 'boxwatch track %s --scac %s'\n", tr.ID, tr.RequestNumber, tr.SCAC)
	}
	return nil
}

// failedReasonText explains the failure reasons the service gives.
func failedReasonText(reason string) string {
	switch reason {
	case "not_found":
		return "not_found (the carrier does not know this number)"
	case "retries_exhausted":
		return "retries_exhausted (the carrier could not be reached for about a day)"
	case "shipping_line_unreachable":
		return "shipping_line_unreachable (no carrier is configured for this SCAC)"
	case "invalid_number":
		return "invalid_number (the carrier refused the number)"
	}
	return printable(reason)
}

// printShipment prints a shipment's summary and its containers.
func printShipment(w io.Writer, s client.Shipment) {
	fmt.Fprintf(w, "Shipment %s  %s (%s)\n", printable(s.Number()), printable(s.ShippingLineName), s.ShippingLineSCAC)
	fmt.Fprintf(w, "  from      %s %s   departed %s (planned %s)\n", str(s.PortOfLadingLOCODE), printable(str(s.PortOfLadingName)), when(s.POLATDAt), when(s.POLETDAt))
	fmt.Fprintf(w, "  to        %s %s   arrived %s (estimated %s)\n", str(s.PortOfDischargeLOCODE), printable(str(s.PortOfDischargeName)), when(s.PODATAAt), when(s.PODETAAt))
	fmt.Fprintf(w, "  vessel    %s (IMO %s), voyage %s\n", printable(str(s.PODVesselName)), str(s.PODVesselIMO), printable(str(s.PODVoyageNumber)))
	if s.LineTrackingStoppedAt != nil {
		fmt.Fprintf(w, "  tracking  stopped %s (%s)\n", when(s.LineTrackingStoppedAt), str(s.LineTrackingStoppedReason))
	}
	if len(s.Containers) == 0 {
		fmt.Fprintln(w, "  no container assigned yet")
		return
	}
	tw := table(w, "  CONTAINER", "STATUS", "EQUIPMENT", "AVAILABLE", "LAST FREE DAY")
	for _, c := range s.Containers {
		row(tw, "  "+c.Number, c.CurrentStatus, equipment(c), availability(c), when(c.PickupLFD))
	}
	tw.Flush()
}

func equipment(c client.Container) string {
	if c.EquipmentLength == nil {
		return "-"
	}
	return fmt.Sprintf("%d' %s %s", *c.EquipmentLength, str(c.EquipmentType), str(c.EquipmentHeight))
}

func availability(c client.Container) string {
	switch {
	case c.AvailableForPickup == nil:
		return "-"
	case *c.AvailableForPickup:
		return "yes"
	}
	return "no"
}
