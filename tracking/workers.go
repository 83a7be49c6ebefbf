package tracking

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/boxwatch/boxwatch"
)

// The lookup lifecycle.
const (
	// maxRetries is how often an unreachable carrier is tried again before the request fails
	// with retries_exhausted; with firstRetry doubling each time they span about 23 hours.
	maxRetries = 14
	firstRetry = 5 * time.Second
	// manifestCheck is how often a bill or booking the carrier does not know yet is looked up
	// again, and manifestWindow how long before the request fails.
	manifestCheck  = 24 * time.Hour
	manifestWindow = 7 * 24 * time.Hour
	// arrivalWindow is how long after arrival a shipment stays tracked if its empties are not
	// all returned (past_arrival_window), fullOutWindow how long after its last box was picked
	// up (past_full_out_window), and stallWindow how long its refreshes may fail
	// (no_updates_at_line): the reference's 56 and 28 days after arrival and pickup, and 56 days
	// without an update from the carrier.
	arrivalWindow = 56 * 24 * time.Hour
	fullOutWindow = 28 * 24 * time.Hour
	stallWindow   = 56 * 24 * time.Hour
	// arrivalSoon is how close to the vessel's arrival at the port of discharge refreshes come
	// faster and ask for the data there.
	arrivalSoon = 24 * time.Hour
)

// backoff is the delay before retry n (from 1), doubling from firstRetry, with ±10 % jitter so
// that requests failing together do not retry together.
func (e *Engine) backoff(n int) time.Duration {
	d := firstRetry << (n - 1)
	jitter := 0.9 + 0.2*rand.Float64()
	return e.scaled(time.Duration(float64(d) * jitter))
}

type lookupWorker struct {
	river.WorkerDefaults[lookupArgs]
	e *Engine
}

// Work looks a tracking request up with its carrier, or with the lines likely to know its number
// when it names none, and records the outcome. Carriers are called outside any transaction; the
// outcome is written in one.
func (w *lookupWorker) Work(ctx context.Context, job *river.Job[lookupArgs]) error {
	e := w.e
	var tr boxwatch.TrackingRequest
	if err := e.cfg.DB.InTx(ctx, func(tx boxwatch.Tx) (err error) {
		tr, err = tx.LockTrackingRequest(ctx, job.Args.TrackingRequestID)
		return err
	}); err != nil {
		if errors.Is(err, boxwatch.ErrNotFound) {
			return nil // deleted with its account
		}
		return err
	}
	if tr.Status != boxwatch.StatusPending && tr.Status != boxwatch.StatusAwaitingManifest {
		return nil // already settled: this is a repeated run
	}
	scac := tr.SCAC
	var cs boxwatch.CarrierShipment
	var err error
	if scac == "" {
		scac, cs, err = e.detect(ctx, tr)
	} else {
		carrier, ok := e.cfg.Carriers[scac]
		if !ok {
			return e.settle(ctx, tr.ID, func(tx boxwatch.Tx, tr *boxwatch.TrackingRequest, now time.Time) error {
				return e.fail(ctx, tx, tr, boxwatch.ReasonUnreachable, now)
			})
		}
		e.log.Debug("carrier lookup started", "tracking_request_id", tr.ID, "scac", scac)
		cs, err = carrier.Lookup(ctx, boxwatch.CarrierReference{Type: tr.RequestType, Number: tr.RequestNumber, SCAC: scac})
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return river.JobSnooze(0) // shutting down: pick it up again at the next start
	}
	// A carrier that outlasts the job's time limit is unreachable; record that even though the
	// job's own context has expired.
	ctx, cancel := writeContext(ctx)
	defer cancel()
	err = e.record(ctx, job, tr, scac, cs, err)
	if dup := boxwatch.AsError(err); dup != nil && dup.Code == boxwatch.CodeDuplicate && tr.SCAC == "" {
		// The line detected is one the account already tracks the number with.
		return e.settle(ctx, tr.ID, func(tx boxwatch.Tx, tr *boxwatch.TrackingRequest, now time.Time) error {
			tr.SCAC = scac
			return e.fail(ctx, tx, tr, boxwatch.ReasonDuplicate, now)
		})
	}
	return err
}

// record writes the outcome of a lookup of tr with the line of scac (its own, or the one
// detection settled on): the carrier's answer, or its failure.
func (e *Engine) record(ctx context.Context, job *river.Job[lookupArgs], tr boxwatch.TrackingRequest, scac string, cs boxwatch.CarrierShipment, err error) error {
	settle := func(fn func(tx boxwatch.Tx, tr *boxwatch.TrackingRequest, now time.Time) error) error {
		return e.settle(ctx, tr.ID, func(tx boxwatch.Tx, tr *boxwatch.TrackingRequest, now time.Time) error {
			tr.SCAC = scac
			return fn(tx, tr, now)
		})
	}
	var ce *boxwatch.CarrierError
	switch {
	case err == nil:
		return settle(func(tx boxwatch.Tx, tr *boxwatch.TrackingRequest, now time.Time) error {
			return e.answered(ctx, tx, tr, cs, now)
		})
	case errors.As(err, &ce) && ce.Reason == boxwatch.ReasonNotFound:
		return e.notFound(ctx, tr)
	case errors.As(err, &ce) && ce.Temporary, errors.Is(err, context.DeadlineExceeded):
		reason, wait := boxwatch.ReasonUnreachable, time.Duration(0)
		if ce != nil {
			reason, wait = ce.Reason, e.scaled(ce.RetryAfter)
		}
		e.log.Debug("carrier unavailable", "tracking_request_id", tr.ID, "scac", scac, "error", err.Error())
		return e.retry(ctx, tr, reason, wait)
	case errors.As(err, &ce):
		e.log.Debug("carrier lookup failed", "tracking_request_id", tr.ID, "scac", scac, "error", err.Error())
		return settle(func(tx boxwatch.Tx, tr *boxwatch.TrackingRequest, now time.Time) error {
			return e.fail(ctx, tx, tr, ce.Reason, now)
		})
	}
	// boxwatch's own failure: River retries it; the last attempt gives up on the request.
	if job.Attempt >= job.MaxAttempts {
		return e.settle(ctx, tr.ID, func(tx boxwatch.Tx, tr *boxwatch.TrackingRequest, now time.Time) error {
			return e.fail(ctx, tx, tr, boxwatch.ReasonInternalProcessingError, now)
		})
	}
	return err
}

// maxDetectLines bounds how many lines one detection asks, so that it fits in one job.
const maxDetectLines = 5

// detect finds the line of a request that names none. The lines the ranker names for its number
// that track numbers of its type and have a carrier are asked in turn, at most maxDetectLines;
// the first that claims the number (answers it, or says its data is gone) is the request's line,
// and its answer the lookup's. A line that does not know the number, refuses it or cannot be
// read does not claim it. When none claims it, the error is temporary if a line could not be
// asked (unreachable), so that detection is retried as a lookup is, and otherwise a carrier error
// with the reason scac_auto_detect_failed. boxwatch's own errors end it.
func (e *Engine) detect(ctx context.Context, tr boxwatch.TrackingRequest) (scac string, cs boxwatch.CarrierShipment, err error) {
	var unsure *boxwatch.CarrierError
	for _, scac := range e.candidates(tr) {
		e.log.Debug("detecting the line", "tracking_request_id", tr.ID, "scac", scac)
		cs, err := e.cfg.Carriers[scac].Lookup(ctx, boxwatch.CarrierReference{Type: tr.RequestType, Number: tr.RequestNumber, SCAC: scac})
		var ce *boxwatch.CarrierError
		switch {
		case err == nil, errors.As(err, &ce) && ce.Reason == boxwatch.ReasonDataUnavailable:
			return scac, cs, err
		case ctx.Err() != nil:
			return "", cs, ctx.Err()
		case ce != nil && ce.Temporary, errors.Is(err, context.DeadlineExceeded):
			if unsure == nil {
				unsure = &boxwatch.CarrierError{Reason: boxwatch.ReasonUnreachable, Temporary: true, Err: err}
				if ce != nil {
					unsure.Reason, unsure.RetryAfter = ce.Reason, ce.RetryAfter
				}
			}
		case ce == nil:
			return "", cs, err
		}
	}
	if unsure != nil {
		return "", boxwatch.CarrierShipment{}, unsure
	}
	return "", boxwatch.CarrierShipment{}, &boxwatch.CarrierError{Reason: boxwatch.ReasonSCACAutoDetectFailed,
		Err: fmt.Errorf("no line claims %s %s", tr.RequestType, tr.RequestNumber)}
}

// candidates are the lines detection asks for tr, by primary SCAC, most likely first.
func (e *Engine) candidates(tr boxwatch.TrackingRequest) []string {
	if e.cfg.Lines == nil {
		return nil
	}
	var out []string
	for _, scac := range e.cfg.Lines.Lines(tr.RequestNumber) {
		line, ok := e.cfg.Registry.BySCAC(scac)
		if !ok || !line.Support.Supports(tr.RequestType) || e.cfg.Carriers[line.SCAC] == nil || slices.Contains(out, line.SCAC) {
			continue
		}
		if out = append(out, line.SCAC); len(out) == maxDetectLines {
			break
		}
	}
	return out
}

// settle applies an outcome to a request under its row lock, unless it was settled meanwhile,
// and once committed logs the outcome in one line.
func (e *Engine) settle(ctx context.Context, id string, fn func(tx boxwatch.Tx, tr *boxwatch.TrackingRequest, now time.Time) error) error {
	var settled *boxwatch.TrackingRequest
	err := e.cfg.DB.InTx(ctx, func(tx boxwatch.Tx) error {
		settled = nil
		tr, err := tx.LockTrackingRequest(ctx, id)
		if err != nil {
			return err
		}
		if tr.Status != boxwatch.StatusPending && tr.Status != boxwatch.StatusAwaitingManifest {
			return nil
		}
		was := outcomeOf(tr)
		if err := fn(tx, &tr, e.cfg.Clock()); err != nil {
			return err
		}
		if outcomeOf(tr) != was {
			settled = &tr
		}
		return nil
	})
	if err == nil && settled != nil {
		e.logOutcome(*settled)
	}
	return err
}

// outcome is what a settled request shows of its lookup; a change of it is logged.
type outcome struct {
	status     boxwatch.Status
	retrying   bool
	retryCount int
	reason     string
}

func outcomeOf(tr boxwatch.TrackingRequest) outcome {
	o := outcome{status: tr.Status, retrying: tr.IsRetrying, reason: tr.FailedReason}
	if tr.RetryCount != nil {
		o.retryCount = *tr.RetryCount
	}
	return o
}

// logOutcome writes the line an operator follows a request by: created, failed with its reason,
// retrying with its reason and count, or awaiting the carrier's manifest.
func (e *Engine) logOutcome(tr boxwatch.TrackingRequest) {
	attrs := []any{"tracking_request_id", tr.ID, "account_id", tr.AccountID, "scac", tr.SCAC, "request_type", tr.RequestType}
	switch {
	case tr.Status == boxwatch.StatusCreated:
		e.log.Info("tracking request succeeded", append(attrs, "shipment_id", tr.ShipmentID)...)
	case tr.Status == boxwatch.StatusFailed:
		e.log.Warn("tracking request failed", append(attrs, "reason", tr.FailedReason)...)
	case tr.IsRetrying:
		n := 0
		if tr.RetryCount != nil {
			n = *tr.RetryCount
		}
		e.log.Info("tracking request retrying", append(attrs, "reason", tr.FailedReason, "retry_count", n)...)
	case tr.Status == boxwatch.StatusAwaitingManifest:
		e.log.Info("tracking request awaiting manifest", attrs...)
	}
}

// retry records a failed attempt and snoozes the job, or fails the request once retries run out.
func (e *Engine) retry(ctx context.Context, tr boxwatch.TrackingRequest, reason string, retryAfter time.Duration) error {
	var wait time.Duration
	err := e.settle(ctx, tr.ID, func(tx boxwatch.Tx, tr *boxwatch.TrackingRequest, now time.Time) error {
		n := 1
		if tr.RetryCount != nil {
			n = *tr.RetryCount + 1
		}
		if n > maxRetries {
			return e.fail(ctx, tx, tr, boxwatch.ReasonRetriesExhausted, now)
		}
		tr.IsRetrying, tr.RetryCount, tr.FailedReason, tr.UpdatedAt = true, &n, reason, now
		wait = max(e.backoff(n), retryAfter)
		return tx.SaveTrackingRequestState(ctx, *tr)
	})
	if err != nil || wait == 0 {
		return err
	}
	return river.JobSnooze(wait)
}

// notFound handles a number the carrier does not know: a container fails at once (not_found); a
// bill or booking waits for the carrier's manifest, checked daily, until the window closes
// (expired).
func (e *Engine) notFound(ctx context.Context, tr boxwatch.TrackingRequest) error {
	wait := false
	err := e.settle(ctx, tr.ID, func(tx boxwatch.Tx, tr *boxwatch.TrackingRequest, now time.Time) error {
		// A test line has no manifest to wait for: its unknown numbers fail at once, as the
		// reference API's test numbers do.
		line, _ := e.cfg.Registry.BySCAC(tr.SCAC)
		switch {
		case tr.RequestType == boxwatch.RequestContainer || line.TestLine:
			return e.fail(ctx, tx, tr, boxwatch.ReasonNotFound, now)
		case now.Sub(tr.CreatedAt) >= e.scaled(manifestWindow):
			return e.fail(ctx, tx, tr, boxwatch.ReasonExpired, now)
		}
		wait = true
		if tr.Status == boxwatch.StatusAwaitingManifest {
			return nil
		}
		tr.Status, tr.IsRetrying, tr.FailedReason, tr.UpdatedAt = boxwatch.StatusAwaitingManifest, false, "", now
		if err := tx.SaveTrackingRequestState(ctx, *tr); err != nil {
			return err
		}
		return e.requestEvent(ctx, tx, *tr, "tracking_request.awaiting_manifest", now)
	})
	if err != nil || !wait {
		return err
	}
	return river.JobSnooze(e.scaled(manifestCheck))
}

// fail ends a request with reason and logs tracking_request.failed.
func (e *Engine) fail(ctx context.Context, tx boxwatch.Tx, tr *boxwatch.TrackingRequest, reason string, now time.Time) error {
	tr.Status, tr.FailedReason, tr.IsRetrying, tr.UpdatedAt = boxwatch.StatusFailed, reason, false, now
	if err := tx.SaveTrackingRequestState(ctx, *tr); err != nil {
		return err
	}
	return e.requestEvent(ctx, tx, *tr, "tracking_request.failed", now)
}

func (e *Engine) requestEvent(ctx context.Context, tx boxwatch.Tx, tr boxwatch.TrackingRequest, name string, now time.Time) error {
	err := e.appendEvent(ctx, tx, boxwatch.Event{
		ID: boxwatch.NewID(now), AccountID: tr.AccountID, Name: name, ObjectType: "tracking_request", ObjectID: tr.ID,
		TrackingRequestID: tr.ID, ShipmentID: tr.ShipmentID, Key: "tr:" + tr.ID + ":" + name, CreatedAt: now,
	})
	return err
}

// answered records a carrier's answer to a request's lookup: a cancelled booking fails it
// (booking_cancelled), any other answer is its shipment.
func (e *Engine) answered(ctx context.Context, tx boxwatch.Tx, tr *boxwatch.TrackingRequest, cs boxwatch.CarrierShipment, now time.Time) error {
	if !cs.BookingCancelledAt.IsZero() {
		return e.fail(ctx, tx, tr, boxwatch.ReasonBookingCancelled, now)
	}
	return e.succeed(ctx, tx, tr, cs, now)
}

// succeed creates the shipment of a request from the carrier's answer. Its refreshes ask by the
// request's own type and number: a line need not answer a container's or a booking's number by
// the bill of lading it reports for it.
func (e *Engine) succeed(ctx context.Context, tx boxwatch.Tx, tr *boxwatch.TrackingRequest, cs boxwatch.CarrierShipment, now time.Time) error {
	s := boxwatch.Shipment{
		ID: boxwatch.NewID(now), AccountID: tr.AccountID, TrackingRequestID: tr.ID, SCAC: tr.SCAC,
		RefNumbers: tr.RefNumbers, Tags: tr.ShipmentTags, CustomerID: tr.CustomerID, BillOfLading: cs.BillOfLading, Booking: cs.Booking,
		Reference: boxwatch.CarrierReference{Type: tr.RequestType, Number: tr.RequestNumber, SCAC: tr.SCAC},
		CreatedAt: now, UpdatedAt: now,
	}
	switch tr.RequestType {
	case boxwatch.RequestBillOfLading:
		s.BillOfLading = firstNonEmpty(s.BillOfLading, tr.RequestNumber)
	case boxwatch.RequestBookingNumber:
		s.Booking = firstNonEmpty(s.Booking, tr.RequestNumber)
	}
	s.NormalizedNumber = e.normalize(tr.SCAC, firstNonEmpty(s.BillOfLading, s.Booking))
	if err := tx.InsertShipment(ctx, s); err != nil {
		return err
	}
	tx.AfterCommit(e.cfg.RoutesChanged)
	tr.Status, tr.ShipmentID, tr.IsRetrying, tr.FailedReason, tr.UpdatedAt = boxwatch.StatusCreated, s.ID, false, "", now
	if err := tx.SaveTrackingRequestState(ctx, *tr); err != nil {
		return err
	}
	if err := e.requestEvent(ctx, tx, *tr, "tracking_request.succeeded", now); err != nil {
		return err
	}
	// A journey that is already over stops here, after the success it follows.
	if err := e.apply(ctx, tx, &s, cs, now, true); err != nil {
		return err
	}
	return setStaged(ctx, tx, *tr, s.ID, now)
}

// setStaged sets the custom field values sent with a request on its new shipment and containers:
// a container value on the container of its number, or on every container without one. A
// definition deleted since is skipped.
func setStaged(ctx context.Context, tx boxwatch.Tx, tr boxwatch.TrackingRequest, shipmentID string, now time.Time) error {
	if len(tr.InitialCustomFields) == 0 {
		return nil
	}
	containers, err := tx.ShipmentContainers(ctx, shipmentID)
	if err != nil {
		return err
	}
	for _, f := range tr.InitialCustomFields {
		var targets []string
		switch f.EntityType {
		case boxwatch.EntityShipment:
			targets = []string{shipmentID}
		case boxwatch.EntityContainer:
			for _, c := range containers {
				if f.Number == "" || c.Number == f.Number {
					targets = append(targets, c.ID)
				}
			}
		}
		for _, id := range targets {
			_, err := tx.SetCustomField(ctx, boxwatch.CustomField{ID: boxwatch.NewID(now), AccountID: tr.AccountID, DefinitionID: f.DefinitionID,
				EntityID: id, Value: f.Value, CreatedAt: now, UpdatedAt: now})
			if err != nil && !boxwatch.IsKind(err, boxwatch.KindNotFound) {
				return err
			}
		}
	}
	return nil
}

// normalize drops the line's bill-of-lading prefix: the number as printed without it. A prefix
// followed by a separator is part of the number's own text (TEST-TR-SUCCEEDED), not a prefix.
func (e *Engine) normalize(scac, bl string) string {
	if line, ok := e.cfg.Registry.BySCAC(scac); ok {
		for _, p := range append([]string{line.SCAC}, line.BillOfLadingPrefixes...) {
			if len(bl) > len(p) && strings.HasPrefix(bl, p) && isAlnum(bl[len(p)]) {
				return bl[len(p):]
			}
		}
	}
	return bl
}

// apply brings a shipment, its containers and milestones up to the carrier's answer and logs every
// change. On the first answer (initial) the past is recorded without announcing it: webhooks hear
// of what changes after the shipment exists. Keys make a repeated answer log nothing twice.
func (e *Engine) apply(ctx context.Context, tx boxwatch.Tx, s *boxwatch.Shipment, cs boxwatch.CarrierShipment, now time.Time, initial bool) error {
	route := deriveRoute(cs, s.Route)
	oldDest := s.Destination
	dest := deriveDestination(cs, route, oldDest)
	if err := saveShared(ctx, tx, cs, route, dest, now); err != nil {
		return err
	}
	oldPOD, hadPOD := s.POD()
	oldPOL, hadPOL := s.POL()
	before := s.Arrivals()
	s.Route = route
	newPOD, hasPOD := s.POD()
	newPOL, hasPOL := s.POL()
	if arrived := newArrivals(before, s.Arrivals()); len(arrived) > 0 && e.cfg.Arrived != nil {
		tx.AfterCommit(func() { e.cfg.Arrived(arrived) })
	}
	s.Destination = dest
	// Events of one answer are a microsecond apart, in the order they are logged (each
	// container's milestones in journey order), so that their creation order is their order of
	// delivery to each webhook.
	logged := 0
	event := func(name, objectType, objectID, containerID, key string, data any) error {
		at := now.Add(time.Duration(logged) * time.Microsecond)
		logged++
		ev := boxwatch.Event{ID: boxwatch.NewID(at), AccountID: s.AccountID, Name: name, ObjectType: objectType,
			ObjectID: objectID, TrackingRequestID: s.TrackingRequestID, ShipmentID: s.ID, ContainerID: containerID,
			Key: key, CreatedAt: at}
		if data != nil {
			b, err := json.Marshal(data)
			if err != nil {
				return err
			}
			ev.Data = b
		}
		err := e.appendEvent(ctx, tx, ev)
		return err
	}
	if !initial && hadPOD && hasPOD && newPOD.ATA.IsZero() && !newPOD.ETA.IsZero() && !newPOD.ETA.Equal(oldPOD.ETA) {
		id := boxwatch.NewID(now)
		if err := event("shipment.estimated.arrival", "estimated_event", id, "",
			fmt.Sprintf("eta:%s:%d", s.ID, newPOD.ETA.Unix()), EstimatedArrival{
				ID: id, EstimatedTimestamp: newPOD.ETA.UTC(), PreviousTimestamp: oldPOD.ETA.UTC(), LOCODE: newPOD.LOCODE,
				VoyageNumber: newPOD.InboundVoyage, VesselIMO: newPOD.InboundVesselIMO, CreatedAt: now,
			}); err != nil {
			return err
		}
	}

	existing, err := tx.ShipmentContainers(ctx, s.ID)
	if err != nil {
		return err
	}
	byNumber := map[string]boxwatch.Container{}
	for _, c := range existing {
		byNumber[c.Number] = c
	}
	facts := deriveContainers(cs, route, dest)
	// A new expected arrival at the inland destination, announced per container as the
	// reference's transport event whose timestamp is the estimate.
	newInlandETA := !initial && dest != nil && dest.ATA.IsZero() && !dest.ETA.IsZero() &&
		oldDest != nil && oldDest.LOCODE == dest.LOCODE && !oldDest.ETA.IsZero() && !oldDest.ETA.Equal(dest.ETA)
	// A new expected departure from the port of lading, or arrival at the port of discharge, the
	// carrier's estimated (EST) transport events for the vessel's call there: announced per
	// container that has not yet left, or arrived, as the reference's transport event whose
	// timestamp is the estimate.
	newETD := !initial && hadPOL && hasPOL && oldPOL.LOCODE == newPOL.LOCODE && newPOL.ATD.IsZero() &&
		!newPOL.ETD.IsZero() && !oldPOL.ETD.IsZero() && !newPOL.ETD.Equal(oldPOL.ETD)
	newETA := !initial && hadPOD && hasPOD && oldPOD.LOCODE == newPOD.LOCODE && newPOD.ATA.IsZero() &&
		!newPOD.ETA.IsZero() && !oldPOD.ETA.IsZero() && !newPOD.ETA.Equal(oldPOD.ETA)
	podRail, indRail := railCarriers(cs, newPOD.LOCODE, dest, e.cfg.Railways)
	boxes := make([]boxwatch.Container, 0, len(facts))
	for _, f := range facts {
		c, existed := byNumber[f.number]
		if !existed {
			c = boxwatch.Container{ID: boxwatch.NewID(now), AccountID: s.AccountID, ShipmentID: s.ID, Number: f.number, CreatedAt: now}
		}
		before := c
		applyFacts(&c, f, newPOD.LOCODE, dest)
		c.Inland.PODRailCarrierSCAC, c.Inland.IndRailCarrierSCAC = podRail, indRail
		checkNow := e.scheduleTerminal(*s, &c, now)
		if !existed || containerChanged(before, c) {
			c.UpdatedAt = now
			if err := tx.SaveContainer(ctx, c); err != nil {
				return err
			}
		}
		boxes = append(boxes, c)
		if checkNow {
			if err := e.queue.Enqueue(ctx, tx, terminalArgs{ContainerID: c.ID}, nil); err != nil {
				return err
			}
		}
		switch {
		case !existed && !initial:
			if err := event("container.created", "container_created_event", boxwatch.NewID(now), c.ID, "cc:"+c.ID, nil); err != nil {
				return err
			}
		}
		// container.updated is the terminal's (its reference object's data_source is "terminal"):
		// the terminal checks send it; a carrier's gate-out is container.transport.full_out.
		if newETD && existed && c.DepartedAt.IsZero() {
			if err := logEstimate(ctx, tx, c, EstimatedVesselDeparted, newPOL.LOCODE, newPOL.ETD, newPOL.OutboundVoyage, "etd", now, event); err != nil {
				return err
			}
		}
		if newETA && existed && c.PODArrivedAt.IsZero() {
			if err := logEstimate(ctx, tx, c, EstimatedVesselArrived, newPOD.LOCODE, newPOD.ETA, newPOD.InboundVoyage, "eta-pod", now, event); err != nil {
				return err
			}
		}
		if newInlandETA && existed && c.Inland.IndATAAt.IsZero() {
			if err := logEstimate(ctx, tx, c, EstimatedInlandArrival, dest.LOCODE, dest.ETA, "", "eta-ind", now, event); err != nil {
				return err
			}
		}
		for _, m := range f.milestones {
			te := boxwatch.TransportEvent{ID: boxwatch.NewID(now), AccountID: s.AccountID, ShipmentID: s.ID, ContainerID: c.ID,
				Event: m.event, Timestamp: m.at.UTC(), LOCODE: m.locode, VoyageNumber: m.voyage, VesselIMO: m.vessel,
				DataSource: "shipping_line", CreatedAt: now}
			added, err := tx.InsertTransportEvent(ctx, te)
			if err != nil {
				return err
			}
			if added && !initial {
				if err := event(m.event, "transport_event", te.ID, c.ID, "te:"+c.ID+":"+m.event+":"+m.locode, nil); err != nil {
					return err
				}
			}
		}
	}
	if err := tx.RecordLookup(ctx, s.ID, now, atPOD(*s, now)); err != nil {
		return err
	}
	s.Snapshot, s.LastAttemptedAt, s.LastSucceededAt, s.UpdatedAt = cs, now, now, now
	s.NextRefreshAt = now.Add(e.refreshDelay(*s, now))
	if reason := e.ended(*s, cs, boxes, now); reason != "" {
		return e.stop(ctx, tx, s, reason, now)
	}
	tx.AfterCommit(e.cfg.RoutesChanged)
	return tx.UpdateShipment(ctx, *s)
}

// saveShared records the terminals and vessels an answer names: rows that the lookups of other
// shipments write too. Each is written once, merged as writing them call by call would leave it,
// and all in one order (terminals by id, then vessels by IMO number) before the shipment's own
// rows: two lookups naming the same ones in different orders then wait for each other instead
// of each holding a row the other needs (PostgreSQL's deadlock, 40P01).
func saveShared(ctx context.Context, tx boxwatch.Tx, cs boxwatch.CarrierShipment, route []boxwatch.RouteStop, dest *boxwatch.Destination,
	now time.Time) error {
	terminals := map[string]boxwatch.Terminal{}
	addTerminal := func(t boxwatch.Terminal) {
		if prev, ok := terminals[t.ID]; ok && t.Name == "" {
			t.Name = prev.Name // an unnamed mention keeps the name another gave
		}
		terminals[t.ID] = t
	}
	for _, stop := range route {
		if stop.TerminalCode != "" {
			addTerminal(boxwatch.Terminal{ID: stop.TerminalID(), LOCODE: stop.LOCODE, SMDGCode: stop.TerminalCode, Name: stop.TerminalName,
				CreatedAt: now, UpdatedAt: now})
		}
	}
	if dest != nil && dest.FacilityCodeList == "SMDG" && dest.FacilityCode != "" {
		addTerminal(boxwatch.Terminal{ID: boxwatch.TerminalID(dest.LOCODE, dest.FacilityCode), LOCODE: dest.LOCODE, SMDGCode: dest.FacilityCode,
			Name: dest.Name, CreatedAt: now, UpdatedAt: now})
	}
	for _, id := range slices.Sorted(maps.Keys(terminals)) {
		if err := tx.SaveTerminal(ctx, terminals[id]); err != nil {
			return err
		}
	}
	vessels := map[string]boxwatch.Vessel{}
	for _, call := range cs.Calls {
		v := call.Vessel
		if v == nil || !boxwatch.ValidIMO(v.IMO) {
			continue
		}
		// SaveVessel keeps the stored value of a field given empty: a later call's word wins
		// where it says something.
		merged := vessels[v.IMO]
		merged.ID, merged.IMO = boxwatch.VesselID(v.IMO), v.IMO
		for _, f := range []struct {
			to   *string
			from string
		}{{&merged.MMSI, v.MMSI}, {&merged.Name, v.Name},
			{&merged.CallSign, v.CallSign}, {&merged.Flag, v.Flag}} {
			if f.from != "" {
				*f.to = f.from
			}
		}
		vessels[v.IMO] = merged
	}
	for _, imo := range slices.Sorted(maps.Keys(vessels)) {
		if err := tx.SaveVessel(ctx, vessels[imo], now); err != nil {
			return err
		}
	}
	return nil
}

// ended returns why tracking of a shipment ends with the carrier's answer cs about its boxes,
// "" while it goes on: the booking was cancelled; every empty is returned; the last box was
// picked up (at the port of discharge, or at its inland destination), or the vessel arrived, longer ago than the window after which the rest of the
// journey no longer comes.
func (e *Engine) ended(s boxwatch.Shipment, cs boxwatch.CarrierShipment, boxes []boxwatch.Container, now time.Time) string {
	allReturned, allOut, lastOut := len(boxes) > 0, len(boxes) > 0, time.Time{}
	for _, c := range boxes {
		allReturned = allReturned && c.CurrentStatus == boxwatch.ContainerEmptyReturned
		// A box that went on inland is out once it left its destination full.
		out := firstTime(c.Inland.FinalDestinationFullOutAt, c.PODFullOutAt)
		allOut = allOut && !out.IsZero()
		if out.After(lastOut) {
			lastOut = out
		}
	}
	pod, hasPOD := s.POD()
	switch {
	case !cs.BookingCancelledAt.IsZero():
		return boxwatch.StopBookingCancelled
	case allReturned:
		return boxwatch.StopAllContainersTerminated
	case allOut && now.Sub(lastOut) > e.scaled(fullOutWindow):
		return boxwatch.StopPastFullOutWindow
	case hasPOD && !pod.ATA.IsZero() && now.Sub(pod.ATA) > e.scaled(arrivalWindow):
		return boxwatch.StopPastArrivalWindow
	}
	return ""
}

// refreshDelay is the time to the next refresh: the interval, a quarter of it within a day of
// arrival, when carriers' updates come fastest.
func (e *Engine) refreshDelay(s boxwatch.Shipment, now time.Time) time.Duration {
	if pod, ok := s.POD(); ok && pod.ATA.IsZero() && !pod.ETA.IsZero() && pod.ETA.Sub(now) < arrivalSoon {
		return e.cfg.RefreshInterval / 4
	}
	return e.cfg.RefreshInterval
}

// atPOD reports whether a lookup of s at now asks for its data at the port of discharge: once
// its vessel has arrived there, or will within a day.
func atPOD(s boxwatch.Shipment, now time.Time) bool {
	pod, ok := s.POD()
	return ok && (!pod.ATA.IsZero() || !pod.ETA.IsZero() && pod.ETA.Sub(now) < arrivalSoon)
}

// EstimatedArrival is the data of a shipment.estimated.arrival event (an estimated_event).
type EstimatedArrival struct {
	ID                 string    `json:"id"`
	EstimatedTimestamp time.Time `json:"estimated_timestamp"`
	PreviousTimestamp  time.Time `json:"previous_timestamp"`
	LOCODE             string    `json:"location_locode"`
	VoyageNumber       string    `json:"voyage_number"`
	VesselIMO          string    `json:"vessel_imo"`
	CreatedAt          time.Time `json:"created_at"`
}

// logEstimate logs an estimated milestone (name: container.transport.estimated.*) of container c at
// place locode: one transport event per container, milestone and place, whose timestamp follows
// the latest estimate at, and one event per estimate (its key made of kind, the container, the
// place and the estimate).
func logEstimate(ctx context.Context, tx boxwatch.Tx, c boxwatch.Container, name, locode string, at time.Time, voyage, kind string, now time.Time,
	event func(name, objectType, objectID, containerID, key string, data any) error) error {
	at = at.UTC()
	te := boxwatch.TransportEvent{ID: boxwatch.NewID(now), AccountID: c.AccountID, ShipmentID: c.ShipmentID, ContainerID: c.ID,
		Event: name, Timestamp: at, LOCODE: locode, VoyageNumber: voyage, DataSource: "shipping_line", CreatedAt: now}
	added, err := tx.InsertTransportEvent(ctx, te)
	if err == nil && !added {
		te, err = tx.SetTransportEventValue(ctx, c.ID, name, locode, at, "")
	}
	if err != nil {
		return err
	}
	return event(name, "transport_event", te.ID, c.ID, fmt.Sprintf("%s:%s:%s:%d", kind, c.ID, locode, at.Unix()), nil)
}

// ContainerChange is the changeset of a container.updated event: attribute → [before, after].
type ContainerChange map[string][2]any

func containerChanged(a, b boxwatch.Container) bool {
	return !a.PickupLFD.Equal(b.PickupLFD) || !reflect.DeepEqual(a.Holds, b.Holds) || !reflect.DeepEqual(a.Fees, b.Fees) ||
		a.LocationAtTerminal != b.LocationAtTerminal || !a.TerminalCheckedAt.Equal(b.TerminalCheckedAt) ||
		a.SealNumber != b.SealNumber || a.ISOCode != b.ISOCode || a.CurrentStatus != b.CurrentStatus ||
		!a.EmptyOutAt.Equal(b.EmptyOutAt) || !a.FullInAt.Equal(b.FullInAt) || !a.LoadedAt.Equal(b.LoadedAt) ||
		!a.DepartedAt.Equal(b.DepartedAt) || !a.PODArrivedAt.Equal(b.PODArrivedAt) ||
		!a.PODDischargedAt.Equal(b.PODDischargedAt) || !a.PODFullOutAt.Equal(b.PODFullOutAt) ||
		!a.EmptyTerminatedAt.Equal(b.EmptyTerminatedAt) || !sameBool(a.AvailableForPickup, b.AvailableForPickup) ||
		!a.TerminalNextCheckAt.Equal(b.TerminalNextCheckAt) || !reflect.DeepEqual(a.Inland, b.Inland)
}

func sameBool(a, b *bool) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// writeContext is the context for recording a carrier call's outcome: it survives the job's own
// time limit (a hung carrier must still be recorded as unreachable) but is bounded itself.
func writeContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
}

type refreshWorker struct {
	river.WorkerDefaults[refreshArgs]
	e *Engine
}

// Work looks a tracked shipment up again, by the request's own number, and records what changed
// or why the carrier did not answer.
func (w *refreshWorker) Work(ctx context.Context, job *river.Job[refreshArgs]) error {
	e := w.e
	var s boxwatch.Shipment
	if err := e.cfg.DB.InTx(ctx, func(tx boxwatch.Tx) (err error) {
		s, err = tx.LockShipment(ctx, job.Args.ShipmentID)
		return err
	}); err != nil {
		if errors.Is(err, boxwatch.ErrNotFound) {
			return nil
		}
		return err
	}
	if !s.StoppedAt.IsZero() {
		return nil
	}
	var cs boxwatch.CarrierShipment
	err := errNoCarrier
	if carrier, ok := e.cfg.Carriers[s.SCAC]; ok {
		cs, err = carrier.Lookup(ctx, s.Reference)
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return river.JobSnooze(0)
	}
	ctx, cancel := writeContext(ctx)
	defer cancel()
	return e.cfg.DB.InTx(ctx, func(tx boxwatch.Tx) error {
		s, lerr := tx.LockShipment(ctx, job.Args.ShipmentID)
		if lerr != nil || !s.StoppedAt.IsZero() {
			return lerr
		}
		now := e.cfg.Clock()
		if err == nil {
			return e.apply(ctx, tx, &s, cs, now, false)
		}
		return e.refreshFailed(ctx, tx, &s, err, now)
	})
}

// refreshFailed records a refresh the carrier did not answer. The shipment keeps what is known
// and when the carrier last answered; the failure is logged and counted by SCAC and reason once
// tx commits. Refreshes failing for the stall window (from the last answer) stop tracking with
// no_updates_at_line; until then the next one comes after the interval, sooner when the carrier
// is only briefly away.
func (e *Engine) refreshFailed(ctx context.Context, tx boxwatch.Tx, s *boxwatch.Shipment, err error, now time.Time) error {
	reason, delay := boxwatch.ReasonInternalProcessingError, e.cfg.RefreshInterval
	var ce *boxwatch.CarrierError
	switch {
	case errors.As(err, &ce):
		reason = ce.Reason
		if ce.Temporary {
			delay = min(delay, max(e.backoff(3), e.scaled(ce.RetryAfter)))
		}
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, errNoCarrier):
		reason = boxwatch.ReasonUnreachable
	}
	answered := s.LastSucceededAt
	if answered.IsZero() {
		answered = s.CreatedAt
	}
	id, scac, ref := s.ID, s.SCAC, s.Reference
	tx.AfterCommit(func() {
		e.log.Warn("refresh failed", "shipment_id", id, "scac", scac, "request_type", ref.Type, "request_number", ref.Number,
			"reason", reason, "last_succeeded_at", answered, "error", err.Error())
		if e.refreshFailures != nil {
			e.refreshFailures.WithLabelValues(scac, reason).Inc()
		}
	})
	if err := tx.RecordLookup(ctx, s.ID, now, atPOD(*s, now)); err != nil {
		return err
	}
	s.LastAttemptedAt, s.UpdatedAt = now, now
	if now.Sub(answered) >= e.scaled(stallWindow) {
		return e.stop(ctx, tx, s, boxwatch.StopNoUpdatesAtLine, now)
	}
	s.NextRefreshAt = now.Add(delay)
	return tx.UpdateShipment(ctx, *s)
}

// errNoCarrier is the failure of a refresh of a line no carrier answers for.
var errNoCarrier = errors.New("no carrier answers for the line")

type scheduleWorker struct {
	river.WorkerDefaults[scheduleArgs]
	e *Engine
}

// Work enqueues a refresh for every shipment that is due, and a terminal check for every
// container that is. It runs on the leader only; the jobs are unique per shipment and per
// container, so one already queued is not queued twice.
func (w *scheduleWorker) Work(ctx context.Context, job *river.Job[scheduleArgs]) error {
	e := w.e
	ids, err := e.cfg.DB.DueShipments(ctx, e.cfg.Clock(), 1000)
	if err != nil {
		return err
	}
	jobs := make([]river.InsertManyParams, len(ids))
	for i, id := range ids {
		jobs[i] = river.InsertManyParams{Args: refreshArgs{ShipmentID: id}}
	}
	if e.cfg.Terminals != nil {
		boxes, err := e.cfg.DB.DueTerminalChecks(ctx, e.cfg.Clock(), 1000)
		if err != nil {
			return err
		}
		for _, id := range boxes {
			jobs = append(jobs, river.InsertManyParams{Args: terminalArgs{ContainerID: id}})
		}
	}
	if len(jobs) == 0 {
		return nil
	}
	return e.cfg.DB.InTx(ctx, func(tx boxwatch.Tx) error { return e.queue.EnqueueMany(ctx, tx, jobs) })
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}

// newArrivals are the arrivals of after that before has not: a port call whose ATA the carrier's
// answer records for the first time (or moves).
func newArrivals(before, after []boxwatch.VesselArrival) []boxwatch.VesselArrival {
	var out []boxwatch.VesselArrival
	for _, a := range after {
		if !slices.ContainsFunc(before, func(b boxwatch.VesselArrival) bool {
			return b.VesselIMO == a.VesselIMO && b.LOCODE == a.LOCODE && b.Arrived.Equal(a.Arrived)
		}) {
			out = append(out, a)
		}
	}
	return out
}
