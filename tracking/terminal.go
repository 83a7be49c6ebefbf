package tracking

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/boxwatch/boxwatch"
)

// Terminal checks: what the terminal at the port of discharge (and, for a box that goes on by
// rail, the inland rail terminal) says of each container, asked of the terminal's own system
// (Config.Terminals), never of the carrier. A container is checked with the terminal of its port
// of discharge from terminalLead before its vessel's arrival until its empty comes back, or
// emptyWindow after it left full; a box that left on the train is checked with its rail terminal
// from then until it leaves it full. Checks run every TerminalInterval, four times less often
// while the vessel is more than nearArrival out at sea and once the box left (terminalCadence),
// each a job of its own outside any transaction; the report and the events it causes commit
// together. They go on after the carrier's tracking ended (past its arrival
// window), not after the user stopped it or the line cancelled the booking, and end
// terminalGiveUp after the discharge (or the unloading off the train) of a box still not out.
const (
	kindTerminalCheck       = "terminal_check"
	queueTerminals          = "terminals"
	DefaultTerminalInterval = time.Hour
	terminalLead            = 3 * 24 * time.Hour
	// nearArrival is how close to its ETA a vessel not yet arrived is checked every interval.
	nearArrival = 24 * time.Hour
	// slowCadence is how many intervals apart the checks are while the terminal has little to
	// say: the vessel further out than nearArrival, or the box gone full out (only its empty's
	// return is still to come).
	slowCadence    = 4
	emptyWindow    = 14 * 24 * time.Hour
	terminalGiveUp = 30 * 24 * time.Hour
	// unsupportedRecheck is how long a container whose terminal no source answers for waits
	// before it is tried again (the carrier may name another terminal meanwhile).
	unsupportedRecheck = 24 * time.Hour
)

type terminalArgs struct {
	ContainerID string `json:"container_id"`
}

func (terminalArgs) Kind() string { return kindTerminalCheck }

func (terminalArgs) InsertOpts() river.InsertOpts {
	// One check of a container at a time, across every replica, in the terminals' own queue.
	return river.InsertOpts{Queue: queueTerminals, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{
		rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
		rivertype.JobStateScheduled, rivertype.JobStateRetryable,
	}}}
}

// terminalFailureReasons are the reason label's values of boxwatch_terminal_check_failures_total.
var terminalFailureReasons = []string{boxwatch.TerminalNotFound, boxwatch.TerminalUnreachable, boxwatch.TerminalRateLimited,
	boxwatch.TerminalUnrecognized, boxwatch.TerminalUnsupported, boxwatch.TerminalInternal}

// podTerminal is the terminal a container is checked with: the one its terminal said it is at,
// else the one the carrier names for the port of discharge; zero when neither is known.
func (e *Engine) podTerminal(ctx context.Context, s boxwatch.Shipment, c boxwatch.Container) (boxwatch.TerminalRef, error) {
	pod, ok := s.POD()
	id := c.PODTerminalID
	if id == "" && ok {
		id = pod.TerminalID()
	}
	if id == "" {
		return boxwatch.TerminalRef{}, nil
	}
	t, err := e.cfg.DB.Terminal(ctx, id)
	switch {
	case errors.Is(err, boxwatch.ErrNotFound) && c.PODTerminalID == "" && ok:
		return boxwatch.TerminalRef{LOCODE: pod.LOCODE, SMDGCode: pod.TerminalCode}, nil
	case err != nil:
		return boxwatch.TerminalRef{}, err
	}
	return t.Ref(), nil
}

// checksStopped reports whether tracking of s ended in a way that ends its terminal checks too:
// the user stopped it, or the line cancelled the booking. Tracking that ended with the carrier's
// data (its arrival or full-out windows) leaves boxes the terminals still hold.
func checksStopped(s boxwatch.Shipment) bool {
	return s.StoppedReason == boxwatch.StopCancelledByUser || s.StoppedReason == boxwatch.StopBookingCancelled
}

// onTheTrain reports whether a box that goes on inland left its port of discharge by rail.
func onTheTrain(c boxwatch.Container) bool {
	in := c.Inland
	return in.DestinationLOCODE != "" && !firstTime(in.PODRailLoadedAt, in.PODRailDepartedAt, in.IndATAAt, in.IndRailUnloadedAt).IsZero()
}

// railTerminal is the inland rail terminal of s, as its carrier names it (by an SMDG-list code);
// zero when it names none.
func railTerminal(s boxwatch.Shipment) boxwatch.TerminalRef {
	d := s.Destination
	if d == nil || d.Mode != modeRail || d.FacilityCode == "" || d.FacilityCodeList != "SMDG" {
		return boxwatch.TerminalRef{}
	}
	return boxwatch.TerminalRef{LOCODE: d.LOCODE, SMDGCode: d.FacilityCode}
}

// terminalDue reports whether a container of s is to be checked with a terminal at now. A box
// that left on the train is checked with its rail terminal, when the carrier names it, until it
// leaves it full. Otherwise its shipment names a terminal at the port of discharge (or the box's
// terminal named another), its vessel arrived there or will within terminalLead, and the box is
// not done with: not yet out (for terminalGiveUp after its discharge), or out for less than
// emptyWindow with its empty not yet back.
func terminalDue(s boxwatch.Shipment, c boxwatch.Container, now time.Time) bool {
	if checksStopped(s) || !c.EmptyTerminatedAt.IsZero() {
		return false
	}
	if onTheTrain(c) {
		in := c.Inland
		since := firstTime(in.IndRailUnloadedAt, in.IndATAAt, in.PODRailDepartedAt, in.PODRailLoadedAt)
		return !railTerminal(s).IsZero() && in.FinalDestinationFullOutAt.IsZero() && now.Sub(since) < terminalGiveUp
	}
	pod, ok := s.POD()
	switch {
	case !ok || pod.TerminalCode == "" && c.PODTerminalID == "":
		return false
	case pod.ATA.IsZero() && (pod.ETA.IsZero() || pod.ETA.Sub(now) > terminalLead):
		return false
	case !c.PODFullOutAt.IsZero():
		return now.Sub(c.PODFullOutAt) < emptyWindow
	}
	since := firstTime(c.PODDischargedAt, pod.ATA)
	return since.IsZero() || now.Sub(since) < terminalGiveUp
}

// terminalCadence is how long after a check at now a container is checked again with its
// terminal of discharge: every interval from a day before its vessel's arrival until the box
// leaves the terminal full, slowCadence intervals apart before that (a box at sea has no
// availability, last free day or location yet; a hold posted early waits at most that long) and
// after it (the terminal only has the empty's return left to tell).
func terminalCadence(s boxwatch.Shipment, c boxwatch.Container, interval time.Duration, now time.Time) time.Duration {
	if onTheTrain(c) {
		return interval
	}
	if !c.PODFullOutAt.IsZero() {
		return slowCadence * interval
	}
	pod, _ := s.POD()
	if pod.ATA.IsZero() && c.PODDischargedAt.IsZero() && c.PODArrivedAt.IsZero() && pod.ETA.Sub(now) > nearArrival {
		return slowCadence * interval
	}
	return interval
}

// scheduleTerminal starts or ends a container's terminal checks as the carrier's answer moves its
// journey along; it reports whether a check is due now.
func (e *Engine) scheduleTerminal(s boxwatch.Shipment, c *boxwatch.Container, now time.Time) bool {
	if e.cfg.Terminals == nil {
		return false
	}
	due := terminalDue(s, *c, now)
	switch {
	case due && c.TerminalNextCheckAt.IsZero():
		c.TerminalNextCheckAt = now
		return true
	case !due:
		c.TerminalNextCheckAt = time.Time{}
	}
	return false
}

type terminalWorker struct {
	river.WorkerDefaults[terminalArgs]
	e *Engine
}

// Work checks one container with its terminal and records the report or the failure.
func (w *terminalWorker) Work(ctx context.Context, job *river.Job[terminalArgs]) error {
	e := w.e
	// What to ask is read unlocked: the check holds nothing while the terminal answers (or while
	// it is paced), and one writer transaction records the outcome under lock (see below).
	c, s, err := e.cfg.DB.ContainerAndShipment(ctx, job.Args.ContainerID)
	if err != nil {
		if errors.Is(err, boxwatch.ErrNotFound) {
			return nil
		}
		return err
	}
	if checksStopped(s) || c.TerminalNextCheckAt.IsZero() || e.cfg.Terminals == nil {
		return nil
	}
	atRamp := onTheTrain(c)
	ref := railTerminal(s)
	if !atRamp {
		var err error
		if ref, err = e.podTerminal(ctx, s, c); err != nil {
			return err
		}
	}
	var report boxwatch.TerminalReport
	src := e.cfg.Terminals.Source(ref)
	switch {
	case ref.IsZero() || src == nil:
		err = &boxwatch.TerminalError{Reason: boxwatch.TerminalUnsupported, Err: fmt.Errorf("no source answers for terminal %s", ref)}
	default:
		report, err = src.Check(ctx, boxwatch.TerminalQuery{Terminal: ref, Container: c.Number, SCAC: s.SCAC,
			BillOfLading: s.BillOfLading, Booking: s.Booking})
	}
	var busy *boxwatch.TerminalBusy
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		return river.JobSnooze(0)
	case errors.As(err, &busy):
		// The terminal's turn is further than a check may wait: the worker goes to other
		// terminals' checks, and this one comes back at its turn. Nothing failed.
		return river.JobSnooze(busy.Wait)
	}
	ctx, cancel := writeContext(ctx)
	defer cancel()
	shipmentID := c.ShipmentID
	return e.cfg.DB.InTx(ctx, func(tx boxwatch.Tx) error {
		// The shipment, then its container: the order a refresh of the shipment locks them in
		// (a container's shipment never changes).
		s, lerr := tx.LockShipment(ctx, shipmentID)
		if lerr != nil || checksStopped(s) {
			return lerr
		}
		c, lerr := tx.LockContainer(ctx, job.Args.ContainerID)
		if lerr != nil {
			return lerr
		}
		now := e.cfg.Clock()
		switch {
		case err != nil:
			return e.terminalFailed(ctx, tx, s, c, ref, err, now)
		case atRamp:
			return e.applyRailReport(ctx, tx, s, c, ref, report, now)
		}
		return e.applyReport(ctx, tx, s, c, ref, report, now)
	})
}

// terminalFailed records a check the terminal did not answer: the reason on the container, a log
// line and the failure counted once tx commits, and the next check after the interval, sooner
// when the terminal is only briefly away, later when no source answers for it.
func (e *Engine) terminalFailed(ctx context.Context, tx boxwatch.Tx, s boxwatch.Shipment, c boxwatch.Container, ref boxwatch.TerminalRef, err error, now time.Time) error {
	reason, delay := boxwatch.TerminalInternal, terminalCadence(s, c, e.cfg.TerminalInterval, now)
	var te *boxwatch.TerminalError
	switch {
	case errors.As(err, &te):
		reason = te.Reason
		switch {
		case te.Temporary:
			delay = min(delay, max(e.backoff(3), e.scaled(te.RetryAfter)))
		case te.Reason == boxwatch.TerminalUnsupported:
			delay = e.scaled(unsupportedRecheck)
		}
	case errors.Is(err, context.DeadlineExceeded):
		reason = boxwatch.TerminalUnreachable
	}
	id, terminal := c.ID, ref.String()
	tx.AfterCommit(func() {
		e.log.Warn("terminal check failed", "container_id", id, "shipment_id", s.ID, "terminal", terminal, "reason", reason, "error", err.Error())
		if e.terminalFailures != nil {
			e.terminalFailures.WithLabelValues(reason).Inc()
		}
	})
	c.TerminalFailedReason, c.TerminalNextCheckAt = reason, now.Add(delay)
	if !terminalDue(s, c, now) {
		c.TerminalNextCheckAt = time.Time{}
	}
	return tx.SaveContainer(ctx, c)
}

// ContainerUpdate is the data of a container.updated event: the changeset (attribute → [before,
// after]) and who reported the change (shipping_line or terminal).
type ContainerUpdate struct {
	Changeset  ContainerChange `json:"changeset"`
	DataSource string          `json:"data_source"`
}

// PODTerminalChange is the data of a container.pod_terminal_changed event.
type PODTerminalChange struct {
	TerminalID         string `json:"terminal_id"`
	PreviousTerminalID string `json:"previous_terminal_id"`
	DataSource         string `json:"data_source"`
}

// applyReport brings a container up to its terminal's report and logs every change. A report
// that the box is at another terminal moves its checks there (container.pod_terminal_changed).
func (e *Engine) applyReport(ctx context.Context, tx boxwatch.Tx, s boxwatch.Shipment, c boxwatch.Container, ref boxwatch.TerminalRef,
	r boxwatch.TerminalReport, now time.Time) error {
	pod, _ := s.POD()
	event := e.terminalLog(ctx, tx, s, now)
	before := c
	c.TerminalFailedReason, c.UpdatedAt = "", now
	if !r.At.IsZero() {
		at := r.At
		if at.LOCODE == "" {
			at.LOCODE = ref.LOCODE
		}
		t, err := e.cfg.DB.TerminalByRef(ctx, at)
		if errors.Is(err, boxwatch.ErrNotFound) {
			t = boxwatch.Terminal{ID: at.ID(), LOCODE: at.LOCODE, SMDGCode: at.SMDGCode, FIRMSCode: at.FIRMSCode, CreatedAt: now, UpdatedAt: now}
			err = tx.SaveTerminal(ctx, t)
		}
		if err != nil {
			return err
		}
		previous := c.PODTerminalID
		if previous == "" {
			previous = pod.TerminalID()
		}
		c.PODTerminalID, c.TerminalNextCheckAt = t.ID, now
		if t.ID == previous {
			// The terminal names itself: nothing moved; ask again at the box's cadence.
			c.TerminalNextCheckAt = now.Add(terminalCadence(s, c, e.cfg.TerminalInterval, now))
			return tx.SaveContainer(ctx, c)
		}
		if err := tx.SaveContainer(ctx, c); err != nil {
			return err
		}
		tx.AfterCommit(func() {
			e.log.Info("container at another terminal", "container_id", c.ID, "terminal_id", t.ID, "was", previous)
		})
		if err := event("container.pod_terminal_changed", "container_pod_terminal_changed_event", boxwatch.NewID(now), c.ID,
			"ptc:"+c.ID+":"+t.ID, PODTerminalChange{TerminalID: t.ID, PreviousTerminalID: previous, DataSource: "terminal"}); err != nil {
			return err
		}
		return event("container.updated", "container_updated_event", boxwatch.NewID(now), c.ID, "cu:"+c.ID+":pod_terminal:"+t.ID,
			ContainerUpdate{Changeset: ContainerChange{"pod_terminal": {previous, t.ID}}, DataSource: "terminal"})
	}

	if r.Available != nil {
		v := *r.Available
		c.AvailableForPickup = &v
	}
	c.Holds, c.Fees, c.LocationAtTerminal, c.TerminalCheckedAt = r.Holds, r.Fees, r.Location, r.CheckedAt
	c.PickupLFDTerminal, c.PickupLFDLine, c.PickupAppointmentAt = r.TerminalLFD, r.LineLFD, r.AppointmentAt
	c.PickupLFD = pickupLFD(c)
	c.TerminalFullOutAt, c.TerminalEmptyInAt = r.FullOutAt, r.EmptyInAt
	// A move to an off-dock yard stands once reported (the carrier's own, when it reports one).
	if !r.OffDockAt.IsZero() {
		c.Inland.TerminalOffDockAt = r.OffDockAt
		c.Inland.OffDockAt = firstTime(c.Inland.OffDockAt, r.OffDockAt)
	}
	// The gate's records stand until the carrier reports its own.
	if c.PODFullOutAt.IsZero() && !r.FullOutAt.IsZero() {
		c.PODFullOutAt = r.FullOutAt
		no := false
		c.AvailableForPickup = &no
	}
	if c.EmptyTerminatedAt.IsZero() && !r.EmptyInAt.IsZero() {
		c.EmptyTerminatedAt = r.EmptyInAt
	}
	// The status by the reference's rules; a box the terminal has discharged counts as
	// discharged before the carrier says so.
	seen := c
	if seen.PODDischargedAt.IsZero() {
		seen.PODDischargedAt = r.DischargedAt
	}
	c.CurrentStatus = boxwatch.ContainerStatus(seen)
	c.TerminalNextCheckAt = now.Add(terminalCadence(s, seen, e.cfg.TerminalInterval, now))
	if !terminalDue(s, c, now) {
		c.TerminalNextCheckAt = time.Time{}
	}
	if err := tx.SaveContainer(ctx, c); err != nil {
		return err
	}
	locode := firstNonEmpty(ref.LOCODE, pod.LOCODE)
	for _, m := range []struct {
		name      string
		was, is   time.Time
		milestone string
	}{{FullOut, before.PODFullOutAt, c.PODFullOutAt, FullOut}, {EmptyIn, before.EmptyTerminatedAt, c.EmptyTerminatedAt, EmptyIn},
		// The berthing is the terminal's alone: once per arrival at the port (the store keeps
		// one event of a name per container and place).
		{VesselBerthed, time.Time{}, r.VesselBerthedAt, VesselBerthed}} {
		if !m.was.IsZero() || m.is.IsZero() {
			continue
		}
		te := boxwatch.TransportEvent{ID: boxwatch.NewID(now), AccountID: c.AccountID, ShipmentID: c.ShipmentID, ContainerID: c.ID,
			Event: m.name, Timestamp: m.is.UTC(), LOCODE: locode, DataSource: "terminal", CreatedAt: now}
		if m.name == VesselBerthed && locode == pod.LOCODE {
			te.VoyageNumber, te.VesselIMO = pod.InboundVoyage, pod.InboundVesselIMO
		}
		added, err := tx.InsertTransportEvent(ctx, te)
		if err != nil {
			return err
		}
		if added {
			if err := event(m.name, "transport_event", te.ID, c.ID, "te:"+c.ID+":"+m.name+":"+locode, nil); err != nil {
				return err
			}
		}
	}
	return terminalEvents(ctx, tx, before, c, locode, "terminal", c.TerminalCheckedAt, now, event)
}

// pickupLFD is the last free day in force, by the reference's precedence (not the earliest):
// the line's, else the terminal's, else the inland rail terminal's.
func pickupLFD(c boxwatch.Container) time.Time {
	return firstTime(c.PickupLFDLine, c.PickupLFDTerminal, c.Inland.RailTerminalLFD)
}

// applyRailReport brings a container that left its port of discharge on the train up to its
// inland rail terminal's report: the rail terminal's last free day (pickup_lfd_rail, and
// ind_facility_lfd_on), and the last free day in force it may change. The box's other terminal
// attributes stay those of the port of discharge.
func (e *Engine) applyRailReport(ctx context.Context, tx boxwatch.Tx, s boxwatch.Shipment, c boxwatch.Container, ref boxwatch.TerminalRef,
	r boxwatch.TerminalReport, now time.Time) error {
	before := c
	c.TerminalFailedReason, c.UpdatedAt = "", now
	c.Inland.RailTerminalLFD, c.Inland.RailTerminalCheckedAt = r.TerminalLFD, r.CheckedAt
	c.PickupLFD = pickupLFD(c)
	c.CurrentStatus = boxwatch.ContainerStatus(c)
	c.TerminalNextCheckAt = now.Add(e.cfg.TerminalInterval)
	if !terminalDue(s, c, now) {
		c.TerminalNextCheckAt = time.Time{}
	}
	if err := tx.SaveContainer(ctx, c); err != nil {
		return err
	}
	return terminalEvents(ctx, tx, before, c, ref.LOCODE, "rail", r.CheckedAt, now, e.terminalLog(ctx, tx, s, now))
}

// terminalLog returns the function a terminal check logs its events with, each a microsecond
// after the one before, so that they keep their order.
func (e *Engine) terminalLog(ctx context.Context, tx boxwatch.Tx, s boxwatch.Shipment, now time.Time) func(name, objectType, objectID, containerID, key string, data any) error {
	logged := 0
	return func(name, objectType, objectID, containerID, key string, data any) error {
		at := now.Add(time.Duration(logged) * time.Microsecond)
		logged++
		ev := boxwatch.Event{ID: boxwatch.NewID(at), AccountID: s.AccountID, Name: name, ObjectType: objectType, ObjectID: objectID,
			TrackingRequestID: s.TrackingRequestID, ShipmentID: s.ID, ContainerID: containerID, Key: key, CreatedAt: at}
		if data != nil {
			b, err := json.Marshal(data)
			if err != nil {
				return err
			}
			ev.Data = b
		}
		return e.appendEvent(ctx, tx, ev)
	}
}

// terminalEvents logs what a terminal's report changed, as the reference names it: each last
// free day (the one in force, the terminal's, the line's, the rail terminal's) and the pickup
// appointment as container.pickup_lfd.changed, .pickup_lfd_terminal.changed,
// .pickup_lfd_line.changed, .pickup_lfd_rail.changed and .pickup_appointment.changed (terminal
// transport events whose value is the new time), availability as container.transport.available
// and .not_available, and everything changed as one container.updated with its changeset, from
// the terminal. source ("terminal" or "rail") and checkedAt, the report's time, key the update.
func terminalEvents(ctx context.Context, tx boxwatch.Tx, before, after boxwatch.Container, locode, source string, checkedAt, now time.Time,
	event func(name, objectType, objectID, containerID, key string, data any) error) error {
	terminalEvent := func(name string, at time.Time, value string) (boxwatch.TransportEvent, bool, error) {
		te := boxwatch.TransportEvent{ID: boxwatch.NewID(now), AccountID: after.AccountID, ShipmentID: after.ShipmentID, ContainerID: after.ID,
			Event: name, Timestamp: at.UTC(), LOCODE: locode, DataSource: "terminal", Value: value, CreatedAt: now}
		added, err := tx.InsertTransportEvent(ctx, te)
		return te, added, err
	}
	change := ContainerChange{}
	for _, v := range []struct {
		event, attribute string
		was, is          time.Time
	}{
		{"container.pickup_lfd.changed", "pickup_lfd", before.PickupLFD, after.PickupLFD},
		{"container.pickup_lfd_terminal.changed", "pickup_lfd_terminal", before.PickupLFDTerminal, after.PickupLFDTerminal},
		{"container.pickup_lfd_line.changed", "pickup_lfd_line", before.PickupLFDLine, after.PickupLFDLine},
		{"container.pickup_lfd_rail.changed", "pickup_lfd_rail", before.Inland.RailTerminalLFD, after.Inland.RailTerminalLFD},
		{"container.pickup_appointment.changed", "pickup_appointment_at", before.PickupAppointmentAt, after.PickupAppointmentAt},
	} {
		if v.was.Equal(v.is) {
			continue
		}
		change[v.attribute] = [2]any{optTime(v.was), optTime(v.is)}
		if v.is.IsZero() {
			continue
		}
		value := v.is.UTC().Format(time.RFC3339)
		te, added, err := terminalEvent(v.event, v.is, value)
		if err == nil && !added {
			te, err = tx.SetTransportEventValue(ctx, after.ID, v.event, locode, v.is.UTC(), value)
		}
		if err != nil {
			return err
		}
		// The last free day in force keeps the key it had before the terminal seam, so that an
		// upgrade announces no day twice.
		key := fmt.Sprintf("%s:%s:%d", v.event, after.ID, v.is.Unix())
		if v.attribute == "pickup_lfd" {
			key = fmt.Sprintf("lfd:%s:%d", after.ID, v.is.Unix())
		}
		if err := event(v.event, "transport_event", te.ID, after.ID, key, nil); err != nil {
			return err
		}
	}
	if after.AvailableForPickup != nil && !sameBool(before.AvailableForPickup, after.AvailableForPickup) {
		change["available_for_pickup"] = [2]any{before.AvailableForPickup, after.AvailableForPickup}
		name := "container.transport.available"
		if !*after.AvailableForPickup {
			name = "container.transport.not_available"
		}
		// Not available because it left is full_out, not a terminal event.
		if *after.AvailableForPickup || after.PODFullOutAt.IsZero() {
			te, added, err := terminalEvent(name, after.TerminalCheckedAt, "")
			if err != nil {
				return err
			}
			if added {
				if err := event(name, "transport_event", te.ID, after.ID, "te:"+after.ID+":"+name+":"+locode, nil); err != nil {
					return err
				}
			}
		}
	}
	if !reflect.DeepEqual(before.Holds, after.Holds) {
		change["holds_at_pod_terminal"] = [2]any{holdsJSON(before.Holds), holdsJSON(after.Holds)}
	}
	if !reflect.DeepEqual(before.Fees, after.Fees) {
		change["fees_at_pod_terminal"] = [2]any{feesJSON(before.Fees), feesJSON(after.Fees)}
	}
	if before.LocationAtTerminal != after.LocationAtTerminal {
		change["location_at_pod_terminal"] = [2]any{optString(before.LocationAtTerminal), optString(after.LocationAtTerminal)}
	}
	if len(change) == 0 {
		return nil
	}
	return event("container.updated", "container_updated_event", boxwatch.NewID(now), after.ID,
		fmt.Sprintf("cu:%s:%s:%d", after.ID, source, checkedAt.UnixMicro()), ContainerUpdate{Changeset: change, DataSource: "terminal"})
}

// holdJSON and feeJSON are a hold and a fee as the container's attributes show them, for changesets.
type holdJSON struct {
	Name        string  `json:"name"`
	Status      string  `json:"status"`
	Description *string `json:"description"`
}

type feeJSON struct {
	Type         string  `json:"type"`
	Amount       float64 `json:"amount"`
	CurrencyCode string  `json:"currency_code"`
}

func holdsJSON(hs []boxwatch.TerminalHold) []holdJSON {
	out := []holdJSON{}
	for _, h := range hs {
		out = append(out, holdJSON{Name: h.Name, Status: h.Status, Description: optString(h.Description)})
	}
	return out
}

func feesJSON(fs []boxwatch.TerminalFee) []feeJSON {
	out := []feeJSON{}
	for _, f := range fs {
		out = append(out, feeJSON{Type: f.Type, Amount: f.Amount, CurrencyCode: f.Currency})
	}
	return out
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// optTime is a time as the API writes it, nil when zero.
func optTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(boxwatch.TimeFormat)
	return &s
}

// SaveTerminalList records the terminal list (data.Terminals) in the store, in one transaction:
// each listed terminal whole, with its FIRMS code, nickname and address.
func SaveTerminalList(ctx context.Context, db boxwatch.WorkStore, list []boxwatch.Terminal, now time.Time) error {
	// By id, as lookups write terminals (saveShared): replicas starting while lookups run never
	// hold terminals the others wait for in a cycle.
	list = slices.SortedFunc(slices.Values(list), func(a, b boxwatch.Terminal) int { return strings.Compare(a.ID, b.ID) })
	return db.InTx(ctx, func(tx boxwatch.Tx) error {
		for _, t := range list {
			t.CreatedAt, t.UpdatedAt = now, now
			if err := tx.SaveTerminal(ctx, t); err != nil {
				return err
			}
		}
		return nil
	})
}
