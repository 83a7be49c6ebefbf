package store

import (
	"context"
	"math/bits"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch"
)

// Batch reads: one statement for any number of ids, so that a page of a listing costs the same
// number of statements whatever its size. A page holds at most a few hundred ids, far below
// either dialect's limit on bound parameters.

// in returns "IN (?, ?, …)" for n values, rounded up to a power of two: the values bound to it
// must be padded with pad. The lists a statement can take then come in a few lengths, so that the
// statements the store runs stay few (each distinct text is prepared and cached by both dialects;
// a list of active vessels varies with every route change, and made a new one each time).
func in(n int) string {
	return "IN (" + strings.TrimSuffix(strings.Repeat("?, ", listLength(n)), ", ") + ")"
}

// pad returns args lengthened to the list length of in(len(args)) by repeating its last value,
// which an IN list matches no differently.
func pad(args []any) []any {
	n := listLength(len(args))
	if n == len(args) {
		return args
	}
	out := make([]any, n)
	copy(out, args)
	for i := len(args); i < n; i++ {
		out[i] = args[len(args)-1]
	}
	return out
}

// listLength is the smallest power of two at least n (n itself below 2).
func listLength(n int) int {
	if n < 2 {
		return n
	}
	return 1 << bits.Len(uint(n-1))
}

// uuidArgs returns the well-formed ids among ids, lower-cased and each once, as statement
// arguments: a malformed id matches nothing, and PostgreSQL would refuse it as a uuid.
func uuidArgs(ids []string) []any {
	seen := make(map[string]bool, len(ids))
	args := make([]any, 0, len(ids))
	for _, id := range ids {
		id = strings.ToLower(id)
		if boxwatch.IsUUID(id) && !seen[id] {
			seen[id] = true
			args = append(args, id)
		}
	}
	return args
}

// batch runs one statement selecting the rows whose column is among args, scanned with scan.
func batch[T any](ctx context.Context, db *DB, op, q string, args []any, scan func(row) (T, error)) ([]T, error) {
	rs, err := db.read.query(ctx, q, args...)
	if err != nil {
		return nil, db.internal(op, err)
	}
	list, err := collect(rs, scan)
	return list, db.internal(op, err)
}

// ShipmentsByID returns the account's shipments with the given ids, keyed by id.
func (db *DB) ShipmentsByID(ctx context.Context, accountID string, ids []string) (map[string]boxwatch.Shipment, error) {
	return byID(ctx, db, "shipments", shipmentListColumns, shipmentKey, accountID, ids, scanListedShipment,
		func(s boxwatch.Shipment) string { return s.ID })
}

// TrackingRequestsByID returns the account's tracking requests with the given ids, keyed by id.
func (db *DB) TrackingRequestsByID(ctx context.Context, accountID string, ids []string) (map[string]boxwatch.TrackingRequest, error) {
	return byID(ctx, db, "tracking_requests", trackingRequestColumns, trackingRequestKey, accountID, ids, scanTrackingRequest,
		func(tr boxwatch.TrackingRequest) string { return tr.ID })
}

// ContainersByID returns the account's containers with the given ids, keyed by id.
func (db *DB) ContainersByID(ctx context.Context, accountID string, ids []string) (map[string]boxwatch.Container, error) {
	return byID(ctx, db, "containers", containerColumns, containerKey, accountID, ids, scanContainer,
		func(c boxwatch.Container) string { return c.ID })
}

// byID reads the account's rows of table whose id is among ids, keyed by id: from the read cache
// when it holds every one of them under keyOf, else in one statement, whose rows it then stores.
func byID[T any](ctx context.Context, db *DB, table, columns string, keyOf func(string) string, accountID string, ids []string,
	scan func(row) (T, error), idOf func(T) string) (map[string]T, error) {
	out := map[string]T{}
	args := uuidArgs(ids)
	if len(args) == 0 {
		return out, nil
	}
	if hit, ok := cachedAll[T](db.cache, keyOf, accountID, args); ok {
		return hit, nil
	}
	tokens := db.cache.beginAll(keyOf, args)
	list, err := batch(ctx, db, table+" by id", "SELECT "+columns+" FROM "+table+" WHERE account_id = ? AND id "+in(len(args)),
		append([]any{accountID}, pad(args)...), scan)
	for _, v := range list {
		out[idOf(v)] = v
	}
	if err == nil {
		putAll(db.cache, tokens, keyOf, accountID, args, out, false)
	}
	return out, err
}

// ContainersOfShipments returns the containers of the account's shipments with the given ids,
// keyed by shipment id, each list by number.
func (db *DB) ContainersOfShipments(ctx context.Context, accountID string, shipmentIDs []string) (map[string][]boxwatch.Container, error) {
	out := map[string][]boxwatch.Container{}
	args := uuidArgs(shipmentIDs)
	if len(args) == 0 {
		return out, nil
	}
	if hit, ok := cachedAll[[]boxwatch.Container](db.cache, shipmentContainersKey, accountID, args); ok {
		for id, list := range hit {
			if len(list) == 0 {
				delete(hit, id) // as the database answers: no key for a shipment without containers
			}
		}
		return hit, nil
	}
	tokens := db.cache.beginAll(shipmentContainersKey, args)
	list, err := batch(ctx, db, "containers of shipments", "SELECT "+containerColumns+" FROM containers WHERE account_id = ? AND shipment_id "+
		in(len(args))+" ORDER BY shipment_id, number", append([]any{accountID}, pad(args)...), scanContainer)
	for _, c := range list {
		out[c.ShipmentID] = append(out[c.ShipmentID], c)
	}
	if err == nil {
		putAll(db.cache, tokens, shipmentContainersKey, accountID, args, nonNilLists(out, args), true)
	}
	return out, err
}

// TransportEventsOfContainers returns every milestone of the account's containers with the given
// ids, keyed by container id, each list oldest first.
func (db *DB) TransportEventsOfContainers(ctx context.Context, accountID string, containerIDs []string) (map[string][]boxwatch.TransportEvent, error) {
	out := map[string][]boxwatch.TransportEvent{}
	args := uuidArgs(containerIDs)
	if len(args) == 0 {
		return out, nil
	}
	if hit, ok := cachedAll[[]boxwatch.TransportEvent](db.cache, containerEventsKey, accountID, args); ok {
		for id, list := range hit {
			if len(list) == 0 {
				delete(hit, id)
			}
		}
		return hit, nil
	}
	tokens := db.cache.beginAll(containerEventsKey, args)
	list, err := batch(ctx, db, "transport events of containers", "SELECT "+transportEventColumns+
		" FROM transport_events WHERE account_id = ? AND container_id "+in(len(args))+" ORDER BY timestamp, id",
		append([]any{accountID}, pad(args)...), scanTransportEvent)
	for _, e := range list {
		out[e.ContainerID] = append(out[e.ContainerID], e)
	}
	if err == nil {
		putAll(db.cache, tokens, containerEventsKey, accountID, args, nonNilLists(out, args), true)
	}
	return out, err
}

// VesselsByIMO returns the vessels with the given IMO numbers, keyed by IMO number.
func (db *DB) VesselsByIMO(ctx context.Context, imos []string) (map[string]boxwatch.Vessel, error) {
	out := map[string]boxwatch.Vessel{}
	seen := map[string]bool{}
	var args []any
	for _, imo := range imos {
		if imo != "" && !seen[imo] {
			seen[imo] = true
			args = append(args, imo)
		}
	}
	if len(args) == 0 {
		return out, nil
	}
	list, err := batch(ctx, db, "vessels by imo", "SELECT id, imo, mmsi, name, call_sign, flag FROM vessels WHERE imo "+in(len(args)), pad(args),
		func(r row) (boxwatch.Vessel, error) {
			var v boxwatch.Vessel
			return v, r.Scan(nullString{&v.ID}, &v.IMO, &v.MMSI, &v.Name, &v.CallSign, &v.Flag)
		})
	for _, v := range list {
		out[v.IMO] = v
	}
	return out, err
}

// EventsByID returns the account's logged events with the given ids, keyed by id.
func (db *DB) EventsByID(ctx context.Context, accountID string, ids []string) (map[string]boxwatch.Event, error) {
	out := map[string]boxwatch.Event{}
	args := uuidArgs(ids)
	if len(args) == 0 {
		return out, nil
	}
	if hit, ok := cachedAll[boxwatch.Event](db.cache, eventKey, accountID, args); ok {
		return hit, nil
	}
	tokens := db.cache.beginAll(eventKey, args)
	list, err := batch(ctx, db, "events by id", `SELECT id, account_id, name, object_type, object_id, tracking_request_id, shipment_id,
		container_id, data, key, created_at FROM events WHERE account_id = ? AND id `+in(len(args)), append([]any{accountID}, pad(args)...),
		func(r row) (boxwatch.Event, error) {
			var e boxwatch.Event
			var data string
			err := r.Scan(nullString{&e.ID}, nullString{&e.AccountID}, &e.Name, &e.ObjectType, &e.ObjectID, nullString{&e.TrackingRequestID},
				nullString{&e.ShipmentID}, nullString{&e.ContainerID}, nullString{&data}, &e.Key, timeCol{&e.CreatedAt})
			e.Data = []byte(data)
			return e, err
		})
	for _, e := range list {
		out[e.ID] = e
	}
	if err == nil {
		putAll(db.cache, tokens, eventKey, accountID, args, out, false)
	}
	return out, err
}

// DeliveryAttemptsOf returns the logs of the account's notifications with the given ids, keyed by
// notification id, each oldest first.
func (db *DB) DeliveryAttemptsOf(ctx context.Context, accountID string, notificationIDs []string) (map[string][]boxwatch.DeliveryAttempt, error) {
	out := map[string][]boxwatch.DeliveryAttempt{}
	args := uuidArgs(notificationIDs)
	if len(args) == 0 {
		return out, nil
	}
	list, err := batch(ctx, db, "delivery attempts of notifications", `SELECT l.id, l.notification_id, l.attempted_at, l.status_code,
		l.latency_ms, l.error, l.response_snippet FROM webhook_notification_logs l
		JOIN webhook_notifications n ON n.id = l.notification_id
		WHERE n.account_id = ? AND l.notification_id `+in(len(args))+` ORDER BY l.attempted_at, l.id`, append([]any{accountID}, pad(args)...),
		func(r row) (boxwatch.DeliveryAttempt, error) {
			var a boxwatch.DeliveryAttempt
			var status *int64
			var ms int64
			err := r.Scan(nullString{&a.ID}, nullString{&a.NotificationID}, timeCol{&a.At}, &status, &ms, &a.Error, &a.ResponseSnippet)
			if status != nil {
				a.StatusCode = int(*status)
			}
			a.Latency = time.Duration(ms) * time.Millisecond
			return a, err
		})
	for _, a := range list {
		out[a.NotificationID] = append(out[a.NotificationID], a)
	}
	return out, err
}

// nonNilLists is out with an empty list for every id it lacks: what the cache stores for them.
func nonNilLists[T any](out map[string][]T, ids []any) map[string][]T {
	all := make(map[string][]T, len(ids))
	for _, id := range ids {
		l := out[id.(string)]
		if l == nil {
			l = []T{}
		}
		all[id.(string)] = l
	}
	return all
}
