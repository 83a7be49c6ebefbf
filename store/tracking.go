package store

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch"
)

// forUpdate locks the rows a transaction reads on PostgreSQL; SQLite's transactions already hold
// the write lock.
func (tx *txn) forUpdate() string {
	if tx.db.dialect == Postgres {
		return " FOR UPDATE"
	}
	return ""
}

// nullTime stores the zero time as NULL.
func (db *DB) nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return db.ts(t)
}

func jsonArg(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

// jsonCol scans a JSON column into v.
type jsonCol struct{ v any }

func (c jsonCol) Scan(src any) error {
	switch s := src.(type) {
	case string:
		return decodeJSON([]byte(s), c.v)
	case []byte:
		return decodeJSON(s, c.v)
	}
	return errors.New("json column holds a non-text value")
}

// LockTrackingRequest returns a request by id whatever its account, locked for the
// transaction: the tracking engine's view.
func (tx *txn) LockTrackingRequest(ctx context.Context, id string) (boxwatch.TrackingRequest, error) {
	if !boxwatch.IsUUID(id) {
		return boxwatch.TrackingRequest{}, boxwatch.ErrNotFound
	}
	tr, err := scanTrackingRequest(tx.c.queryRow(ctx, "SELECT "+trackingRequestColumns+" FROM tracking_requests WHERE id = ?"+tx.forUpdate(), id))
	return tr, tx.db.lookupErr("tracking request for work", err)
}

// SaveTrackingRequestState writes the lifecycle fields of a request: status, failed_reason,
// is_retrying, retry_count, the shipment link and updated_at, and the SCAC detection sets.
// Reaching pending or created again, or a detected SCAC, may collide with a live duplicate: that
// is DuplicateError.
func (tx *txn) SaveTrackingRequestState(ctx context.Context, tr boxwatch.TrackingRequest) error {
	tx.evict(trackingRequestKey(strings.ToLower(tr.ID)))
	_, err := tx.c.exec(ctx, `UPDATE tracking_requests SET scac = ?, status = ?, failed_reason = ?, is_retrying = ?, retry_count = ?,
		shipment_id = ?, updated_at = ? WHERE id = ?`,
		tr.SCAC, string(tr.Status), nullIfEmpty(tr.FailedReason), tr.IsRetrying, tr.RetryCount, nullIfEmpty(tr.ShipmentID), tx.db.ts(tr.UpdatedAt), tr.ID)
	if err := tx.db.internal("save tracking request", err); err != nil {
		if errors.Is(err, errUniqueViolation) {
			return boxwatch.DuplicateError(tr.RequestNumber, tr.SCAC)
		}
		return err
	}
	return nil
}

// shipmentListColumns are what shipment documents show: every column but the snapshot, which
// is the tracking engine's and the largest.
const shipmentListColumns = `id, account_id, tracking_request_id, scac, bill_of_lading, normalized_number, booking, ref_numbers,
	tags, route, reference_type, reference_number, last_attempted_at, last_succeeded_at, stopped_at, stopped_reason,
	next_refresh_at, created_at, updated_at, customer_id, customer_name, destination, vessel_names`

// shipmentColumns are every column of a shipment, read by scanShipment.
const shipmentColumns = shipmentListColumns + ", snapshot"

// scanShipment reads the shipmentColumns of a row.
func scanShipment(r row) (boxwatch.Shipment, error) {
	var s boxwatch.Shipment
	return s, scanShipmentInto(r, &s, jsonCol{&s.Snapshot})
}

// scanListedShipment reads the shipmentListColumns of a row: Snapshot stays empty.
func scanListedShipment(r row) (boxwatch.Shipment, error) {
	var s boxwatch.Shipment
	return s, scanShipmentInto(r, &s)
}

func scanShipmentInto(r row, s *boxwatch.Shipment, more ...any) error {
	var refType string
	err := r.Scan(append([]any{nullString{&s.ID}, nullString{&s.AccountID}, nullString{&s.TrackingRequestID}, &s.SCAC, &s.BillOfLading,
		&s.NormalizedNumber, &s.Booking, listCol{&s.RefNumbers}, listCol{&s.Tags}, jsonCol{&s.Route}, &refType,
		&s.Reference.Number, nullTimeCol{&s.LastAttemptedAt}, nullTimeCol{&s.LastSucceededAt}, nullTimeCol{&s.StoppedAt},
		nullString{&s.StoppedReason}, nullTimeCol{&s.NextRefreshAt}, timeCol{&s.CreatedAt}, timeCol{&s.UpdatedAt},
		nullString{&s.CustomerID}, &s.CustomerName, jsonCol{&s.Destination}, nameMapCol{&s.VesselNames}}, more...)...)
	s.Reference.Type = boxwatch.RequestType(refType)
	s.Reference.SCAC = s.SCAC
	return err
}

func (tx *txn) shipmentArgs(s boxwatch.Shipment) ([]any, error) {
	route, err := jsonArg(s.Route)
	if err != nil {
		return nil, err
	}
	snap, err := jsonArg(s.Snapshot)
	if err != nil {
		return nil, err
	}
	dest, err := jsonArg(s.Destination)
	if err != nil {
		return nil, err
	}
	names, err := jsonArg(boxwatch.VesselNamesOf(s.Snapshot))
	if err != nil {
		return nil, err
	}
	if names == "null" {
		names = "{}"
	}
	db := tx.db
	return []any{s.SCAC, s.BillOfLading, s.NormalizedNumber, s.Booking, listArg(s.RefNumbers), listArg(s.Tags), route,
		string(s.Reference.Type), s.Reference.Number, db.nullTime(s.LastAttemptedAt), db.nullTime(s.LastSucceededAt),
		db.nullTime(s.StoppedAt), nullIfEmpty(s.StoppedReason), db.nullTime(s.NextRefreshAt), snap, db.ts(s.UpdatedAt), dest, names}, nil
}

// InsertShipment stores a new shipment.
func (tx *txn) InsertShipment(ctx context.Context, s boxwatch.Shipment) error {
	args, err := tx.shipmentArgs(s)
	if err != nil {
		return err
	}
	_, err = tx.c.exec(ctx, `INSERT INTO shipments (scac, bill_of_lading, normalized_number, booking, ref_numbers, tags, route,
		reference_type, reference_number, last_attempted_at, last_succeeded_at, stopped_at, stopped_reason, next_refresh_at,
		snapshot, updated_at, destination, vessel_names, id, account_id, tracking_request_id, created_at, customer_id, customer_name)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
			COALESCE((SELECT company_name FROM parties WHERE id = ? AND account_id = ?), ''))`,
		append(args, s.ID, s.AccountID, s.TrackingRequestID, tx.db.ts(s.CreatedAt), nullIfEmpty(s.CustomerID),
			nullIfEmpty(s.CustomerID), s.AccountID)...)
	if err := tx.db.internal("insert shipment", err); err != nil {
		return err
	}
	return tx.saveActiveLegs(ctx, s, true)
}

// UpdateShipment writes every mutable field of a shipment.
func (tx *txn) UpdateShipment(ctx context.Context, s boxwatch.Shipment) error {
	args, err := tx.shipmentArgs(s)
	if err != nil {
		return err
	}
	tx.evict(shipmentKey(strings.ToLower(s.ID)))
	n, err := tx.c.exec(ctx, `UPDATE shipments SET scac = ?, bill_of_lading = ?, normalized_number = ?, booking = ?, ref_numbers = ?,
		tags = ?, route = ?, reference_type = ?, reference_number = ?, last_attempted_at = ?, last_succeeded_at = ?, stopped_at = ?,
		stopped_reason = ?, next_refresh_at = ?, snapshot = ?, updated_at = ?, destination = ?, vessel_names = ? WHERE id = ?`, append(args, s.ID)...)
	if err := tx.db.internal("update shipment", err); err != nil {
		return err
	}
	if n == 0 {
		return boxwatch.ErrNotFound
	}
	return tx.saveActiveLegs(ctx, s, false)
}

// LockShipment returns a shipment by id whatever its account, locked for the transaction.
func (tx *txn) LockShipment(ctx context.Context, id string) (boxwatch.Shipment, error) {
	if !boxwatch.IsUUID(id) {
		return boxwatch.Shipment{}, boxwatch.ErrNotFound
	}
	s, err := scanShipment(tx.c.queryRow(ctx, "SELECT "+shipmentColumns+" FROM shipments WHERE id = ?"+tx.forUpdate(), id))
	return s, tx.db.lookupErr("shipment for work", err)
}

// LockAccountShipment returns one of the account's shipments, locked for the transaction.
func (tx *txn) LockAccountShipment(ctx context.Context, accountID, id string) (boxwatch.Shipment, error) {
	if !boxwatch.IsUUID(id) {
		return boxwatch.Shipment{}, boxwatch.ErrNotFound
	}
	s, err := scanShipment(tx.c.queryRow(ctx, "SELECT "+shipmentColumns+" FROM shipments WHERE account_id = ? AND id = ?"+tx.forUpdate(),
		accountID, strings.ToLower(id)))
	return s, tx.db.lookupErr("shipment for update", err)
}

// Shipment returns one of the account's shipments, or ErrNotFound.
func (db *DB) Shipment(ctx context.Context, accountID, id string) (boxwatch.Shipment, error) {
	if !boxwatch.IsUUID(id) {
		return boxwatch.Shipment{}, boxwatch.ErrNotFound
	}
	id = strings.ToLower(id)
	return cached(db.cache, shipmentKey(id), accountID, func() (boxwatch.Shipment, error) {
		s, err := scanListedShipment(db.read.queryRow(ctx, "SELECT "+shipmentListColumns+" FROM shipments WHERE account_id = ? AND id = ?", accountID, id))
		return s, db.lookupErr("shipment", err)
	})
}

// ShipmentWithSnapshot returns one of the account's shipments with its carrier snapshot, or
// ErrNotFound.
func (db *DB) ShipmentWithSnapshot(ctx context.Context, accountID, id string) (boxwatch.Shipment, error) {
	if !boxwatch.IsUUID(id) {
		return boxwatch.Shipment{}, boxwatch.ErrNotFound
	}
	id = strings.ToLower(id)
	return cached(db.cache, fullShipmentKey(id), accountID, func() (boxwatch.Shipment, error) {
		s, err := scanShipment(db.read.queryRow(ctx, "SELECT "+shipmentColumns+" FROM shipments WHERE account_id = ? AND id = ?", accountID, id))
		return s, db.lookupErr("shipment", err)
	})
}

// Shipments returns one page of the account's shipments, newest first, and how many match.
func (db *DB) Shipments(ctx context.Context, accountID string, f boxwatch.ShipmentFilter, p boxwatch.Page) ([]boxwatch.Shipment, boxwatch.Total, error) {
	where, args := db.shipmentWhere(accountID, f)
	return countedPage(ctx, db, accountID, "shipments", shipmentListColumns, where, args, p, scanListedShipment)
}

// shipmentWhere is the condition, and its arguments, of the account's shipments f matches.
func (db *DB) shipmentWhere(accountID string, f boxwatch.ShipmentFilter) (string, []any) {
	conds := []string{"account_id = ?"}
	args := []any{accountID}
	if f.TrackingStopped != nil {
		if *f.TrackingStopped {
			conds = append(conds, "stopped_at IS NOT NULL")
		} else {
			conds = append(conds, "stopped_at IS NULL")
		}
	}
	if f.Number != "" {
		conds = append(conds, "(bill_of_lading = ? OR normalized_number = ? OR booking = ? OR reference_number = ?)")
		args = append(args, f.Number, f.Number, f.Number, f.Number)
	}
	if f.Query != "" {
		// As the tracking request list's q: the JSON text of ref_numbers, LIKE's wildcards escaped,
		// both sides upper-cased by the database, so free text follows one set of case rules.
		pattern := "%" + likeEscaper.Replace(f.Query) + "%"
		refs := "ref_numbers"
		if db.dialect == Postgres {
			refs = "ref_numbers::text"
		}
		var ors []string
		for _, col := range []string{"bill_of_lading", "normalized_number", "booking", "reference_number", refs} {
			ors = append(ors, "upper("+col+") LIKE upper(?) ESCAPE '\\'")
			args = append(args, pattern)
		}
		ors = append(ors, "EXISTS (SELECT 1 FROM containers c WHERE c.shipment_id = shipments.id AND c.number LIKE ? ESCAPE '\\')")
		args = append(args, "%"+likeEscaper.Replace(boxwatch.NormalizeContainerNumber(f.Query))+"%")
		conds = append(conds, "("+strings.Join(ors, " OR ")+")")
	}
	return strings.Join(conds, " AND "), args
}

// SetShipmentLabels replaces the reference numbers and tags of one of the account's shipments; a
// nil list leaves that one as it is. It returns the shipment updated, or ErrNotFound.
func (db *DB) SetShipmentLabels(ctx context.Context, accountID, id string, refs, tags []string, now time.Time) (boxwatch.Shipment, error) {
	if !boxwatch.IsUUID(id) {
		return boxwatch.Shipment{}, boxwatch.ErrNotFound
	}
	sets, args := []string{"updated_at = ?"}, []any{db.ts(now)}
	if refs != nil {
		sets, args = append(sets, "ref_numbers = ?"), append(args, listArg(refs))
	}
	if tags != nil {
		sets, args = append(sets, "tags = ?"), append(args, listArg(tags))
	}
	id = strings.ToLower(id)
	s, err := scanListedShipment(db.write.queryRow(ctx, "UPDATE shipments SET "+strings.Join(sets, ", ")+
		" WHERE account_id = ? AND id = ? RETURNING "+shipmentListColumns, append(args, accountID, id)...))
	db.cache.evict(shipmentKey(id))
	return s, db.lookupErr("update shipment labels", err)
}

// page runs a count and a page query over table, newest first.
func page[T any](ctx context.Context, db *DB, table, columns, where string, args []any, p boxwatch.Page, scan func(row) (T, error)) ([]T, int, error) {
	var total int
	if err := db.read.queryRow(ctx, "SELECT COUNT(*) FROM "+table+" WHERE "+where, args...).Scan(&total); err != nil {
		return nil, 0, db.internal("count "+table, err)
	}
	list := []T{}
	if total == 0 || p.Offset() >= total {
		return list, total, nil
	}
	rs, err := db.read.query(ctx, "SELECT "+columns+" FROM "+table+" WHERE "+where+" ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?",
		append(args, p.Size, p.Offset())...)
	if err != nil {
		return nil, 0, db.internal("list "+table, err)
	}
	defer rs.Close()
	for rs.Next() {
		v, err := scan(rs)
		if err != nil {
			return nil, 0, db.internal("scan "+table, err)
		}
		list = append(list, v)
	}
	return list, total, db.internal("list "+table, rs.Err())
}

// countedPage returns one page of the account's rows of table (tracking_requests, shipments or
// containers) that match where, newest first, and their total, in one statement. Where only the
// account is asked for (where is "account_id = ?"), the total is the account's count in
// list_counts, which triggers keep in the transaction of every insert and delete (on PostgreSQL
// the sum of a few rows, one per writer at once: migration 0020), and the page's snapshot reads
// it with the rows. A filtered list counts its matches up to the page's
// CountLimit and, past it, answers that it found more. Only a page past the end (no rows to
// carry the total; an empty first page has none) costs a second statement.
func countedPage[T any](ctx context.Context, db *DB, accountID, table, columns, where string, args []any, p boxwatch.Page,
	scan func(row) (T, error)) ([]T, boxwatch.Total, error) {
	count, countArgs, filtered := listCount(accountID, table, where, args, p)
	rs, err := db.read.query(ctx, "SELECT "+columns+", ("+count+") FROM "+table+" WHERE "+where+
		" ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?", append(append(slices.Clip(countArgs), args...), p.Size, p.Offset())...)
	if err != nil {
		return nil, boxwatch.Total{}, db.internal("list "+table, err)
	}
	defer rs.Close()
	list := make([]T, 0, p.Size)
	var n *int64 // nil: the account has never had a row of table
	for rs.Next() {
		v, err := scan(withTotal{rs, &n})
		if err != nil {
			return nil, boxwatch.Total{}, db.internal("scan "+table, err)
		}
		list = append(list, v)
	}
	if err := db.internal("list "+table, rs.Err()); err != nil {
		return nil, boxwatch.Total{}, err
	}
	if len(list) == 0 && p.Offset() > 0 {
		err := db.internal("count "+table, db.read.queryRow(ctx, count, countArgs...).Scan(&n))
		if err != nil && !errors.Is(err, errNoRows) {
			return nil, boxwatch.Total{}, err
		}
	}
	return list, listTotal(n, filtered, p), nil
}

// listCount is the statement, and its arguments, that counts the rows of countedPage's listing,
// and whether the listing is filtered.
func listCount(accountID, table, where string, args []any, p boxwatch.Page) (string, []any, bool) {
	if where == "account_id = ?" {
		return "SELECT CAST(sum(n) AS bigint) FROM list_counts WHERE account_id = ? AND kind = ?", []any{accountID, table}, false
	}
	return "SELECT COUNT(*) FROM (SELECT 1 FROM " + table + " WHERE " + where + " LIMIT ?) matches", append(slices.Clip(args), p.CountLimit()+1), true
}

// listTotal is the total of a listing whose count answered n (nil: the account has never had a
// row of its table).
func listTotal(n *int64, filtered bool, p boxwatch.Page) boxwatch.Total {
	total := boxwatch.Total{N: int(ptrOr(n))}
	total.AtLeast = filtered && total.N > p.CountLimit()
	return total
}

// ptrOr is *p, or 0 for nil.
func ptrOr(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// withTotal scans a row of countedPage's statement: the listing's columns, then the total.
type withTotal struct {
	row
	total **int64
}

func (w withTotal) Scan(dest ...any) error { return w.row.Scan(append(dest, w.total)...) }

// DueShipments returns the ids of tracked shipments whose refresh is due at now, oldest due first.
func (db *DB) DueShipments(ctx context.Context, now time.Time, limit int) ([]string, error) {
	rs, err := db.read.query(ctx, `SELECT id FROM shipments WHERE next_refresh_at IS NOT NULL AND next_refresh_at <= ? AND stopped_at IS NULL
		ORDER BY next_refresh_at LIMIT ?`,
		db.ts(now), limit)
	if err != nil {
		return nil, db.internal("due shipments", err)
	}
	defer rs.Close()
	var ids []string
	for rs.Next() {
		var id string
		if err := rs.Scan(nullString{&id}); err != nil {
			return nil, db.internal("due shipments", err)
		}
		ids = append(ids, id)
	}
	return ids, db.internal("due shipments", rs.Err())
}

// DueTerminalChecks returns the ids of containers whose terminal check is due at now, the most
// overdue first, those of shipments stopped by the user or cancelled by the line left out.
func (db *DB) DueTerminalChecks(ctx context.Context, now time.Time, limit int) ([]string, error) {
	rs, err := db.read.query(ctx, `SELECT c.id FROM containers c JOIN shipments s ON s.id = c.shipment_id
		WHERE c.terminal_next_check_at IS NOT NULL AND c.terminal_next_check_at <= ?
			AND (s.stopped_at IS NULL OR s.stopped_reason NOT IN (?, ?))
		ORDER BY c.terminal_next_check_at LIMIT ?`, db.ts(now), boxwatch.StopCancelledByUser, boxwatch.StopBookingCancelled, limit)
	if err != nil {
		return nil, db.internal("due terminal checks", err)
	}
	ids, err := collect(rs, func(r row) (string, error) {
		var id string
		return id, r.Scan(nullString{&id})
	})
	return ids, db.internal("due terminal checks", err)
}

// LockContainer returns a container by id, whatever its account, locked until the transaction
// ends, or ErrNotFound.
func (tx *txn) LockContainer(ctx context.Context, id string) (boxwatch.Container, error) {
	if !boxwatch.IsUUID(id) {
		return boxwatch.Container{}, boxwatch.ErrNotFound
	}
	c, err := scanContainer(tx.c.queryRow(ctx, "SELECT "+containerColumns+" FROM containers WHERE id = ?"+tx.forUpdate(), strings.ToLower(id)))
	return c, tx.db.lookupErr("container", err)
}

// ContainerAndShipment reads a container and its shipment by the container's id, whatever the
// account, without locking them: what a terminal check needs before it asks the terminal, on a
// reader (a paced or pointless check takes no writer). The outcome is written under lock.
func (db *DB) ContainerAndShipment(ctx context.Context, id string) (boxwatch.Container, boxwatch.Shipment, error) {
	if !boxwatch.IsUUID(id) {
		return boxwatch.Container{}, boxwatch.Shipment{}, boxwatch.ErrNotFound
	}
	c, err := scanContainer(db.read.queryRow(ctx, "SELECT "+containerColumns+" FROM containers WHERE id = ?", strings.ToLower(id)))
	if err := db.lookupErr("container", err); err != nil {
		return boxwatch.Container{}, boxwatch.Shipment{}, err
	}
	s, err := scanShipment(db.read.queryRow(ctx, "SELECT "+shipmentColumns+" FROM shipments WHERE id = ?", c.ShipmentID))
	if err := db.lookupErr("shipment of container", err); err != nil {
		return boxwatch.Container{}, boxwatch.Shipment{}, err
	}
	return c, s, nil
}

const containerColumns = `id, account_id, shipment_id, number, seal_number, iso_code, current_status, empty_out_at, full_in_at,
	loaded_at, departed_at, pod_arrived_at, pod_discharged_at, pod_full_out_at, empty_terminated_at, available_for_pickup,
	created_at, updated_at, pickup_lfd, holds, fees, location_at_terminal, terminal_checked_at, ref_numbers,
	shipment_last_tracking_request_at, pod_last_tracking_request_at, pickup_lfd_terminal, pickup_lfd_line, pickup_appointment_at,
	pod_terminal_id, terminal_full_out_at, terminal_empty_in_at, terminal_next_check_at, terminal_failed_reason, inland`

func scanContainer(r row) (boxwatch.Container, error) {
	var c boxwatch.Container
	err := r.Scan(nullString{&c.ID}, nullString{&c.AccountID}, nullString{&c.ShipmentID}, &c.Number, &c.SealNumber, &c.ISOCode,
		&c.CurrentStatus, nullTimeCol{&c.EmptyOutAt}, nullTimeCol{&c.FullInAt}, nullTimeCol{&c.LoadedAt}, nullTimeCol{&c.DepartedAt},
		nullTimeCol{&c.PODArrivedAt}, nullTimeCol{&c.PODDischargedAt}, nullTimeCol{&c.PODFullOutAt}, nullTimeCol{&c.EmptyTerminatedAt},
		&c.AvailableForPickup, timeCol{&c.CreatedAt}, timeCol{&c.UpdatedAt}, nullTimeCol{&c.PickupLFD}, jsonCol{&c.Holds},
		jsonCol{&c.Fees}, &c.LocationAtTerminal, nullTimeCol{&c.TerminalCheckedAt}, listCol{&c.RefNumbers},
		nullTimeCol{&c.ShipmentLastTrackingRequestAt}, nullTimeCol{&c.PODLastTrackingRequestAt}, nullTimeCol{&c.PickupLFDTerminal},
		nullTimeCol{&c.PickupLFDLine}, nullTimeCol{&c.PickupAppointmentAt}, &c.PODTerminalID, nullTimeCol{&c.TerminalFullOutAt},
		nullTimeCol{&c.TerminalEmptyInAt}, nullTimeCol{&c.TerminalNextCheckAt}, &c.TerminalFailedReason, jsonCol{&c.Inland})
	if len(c.RefNumbers) == 0 {
		c.RefNumbers = nil
	}
	if len(c.Holds) == 0 {
		c.Holds = nil
	}
	if len(c.Fees) == 0 {
		c.Fees = nil
	}
	boxwatch.DescribeEquipment(&c)
	return c, err
}

// SaveContainer inserts a container or updates the one with its id. An update keeps the stored
// ref_numbers, which belong to the account (SetContainerRefNumbers), not to the carrier's answer,
// and the lookup times, which RecordLookup keeps.
func (tx *txn) SaveContainer(ctx context.Context, c boxwatch.Container) error {
	db := tx.db
	holds, err := jsonArg(nonNilSlice(c.Holds))
	if err != nil {
		return err
	}
	fees, err := jsonArg(nonNilSlice(c.Fees))
	if err != nil {
		return err
	}
	inland, err := jsonArg(c.Inland)
	if err != nil {
		return err
	}
	tx.evict(containerKey(strings.ToLower(c.ID)), shipmentContainersKey(strings.ToLower(c.ShipmentID)))
	_, err = tx.c.exec(ctx, `INSERT INTO containers (`+containerColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
			?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET seal_number = excluded.seal_number, iso_code = excluded.iso_code,
		current_status = excluded.current_status, empty_out_at = excluded.empty_out_at, full_in_at = excluded.full_in_at,
		loaded_at = excluded.loaded_at, departed_at = excluded.departed_at, pod_arrived_at = excluded.pod_arrived_at,
		pod_discharged_at = excluded.pod_discharged_at, pod_full_out_at = excluded.pod_full_out_at,
		empty_terminated_at = excluded.empty_terminated_at, available_for_pickup = excluded.available_for_pickup,
		updated_at = excluded.updated_at, pickup_lfd = excluded.pickup_lfd, holds = excluded.holds, fees = excluded.fees,
		location_at_terminal = excluded.location_at_terminal, terminal_checked_at = excluded.terminal_checked_at,
		pickup_lfd_terminal = excluded.pickup_lfd_terminal, pickup_lfd_line = excluded.pickup_lfd_line,
		pickup_appointment_at = excluded.pickup_appointment_at, pod_terminal_id = excluded.pod_terminal_id,
		terminal_full_out_at = excluded.terminal_full_out_at, terminal_empty_in_at = excluded.terminal_empty_in_at,
		terminal_next_check_at = excluded.terminal_next_check_at, terminal_failed_reason = excluded.terminal_failed_reason,
		inland = excluded.inland`,
		c.ID, c.AccountID, c.ShipmentID, c.Number, c.SealNumber, c.ISOCode, c.CurrentStatus, db.nullTime(c.EmptyOutAt),
		db.nullTime(c.FullInAt), db.nullTime(c.LoadedAt), db.nullTime(c.DepartedAt), db.nullTime(c.PODArrivedAt),
		db.nullTime(c.PODDischargedAt), db.nullTime(c.PODFullOutAt), db.nullTime(c.EmptyTerminatedAt), c.AvailableForPickup,
		db.ts(c.CreatedAt), db.ts(c.UpdatedAt), db.nullTime(c.PickupLFD), holds, fees, c.LocationAtTerminal, db.nullTime(c.TerminalCheckedAt),
		listArg(c.RefNumbers), db.nullTime(c.ShipmentLastTrackingRequestAt), db.nullTime(c.PODLastTrackingRequestAt),
		db.nullTime(c.PickupLFDTerminal), db.nullTime(c.PickupLFDLine), db.nullTime(c.PickupAppointmentAt), c.PODTerminalID,
		db.nullTime(c.TerminalFullOutAt), db.nullTime(c.TerminalEmptyInAt), db.nullTime(c.TerminalNextCheckAt), c.TerminalFailedReason, inland)
	return db.internal("save container", err)
}

// RecordLookup sets the lookup times of a shipment's containers: the shipment's on every one, and
// with pod the port of discharge's on those without a full-out time.
func (tx *txn) RecordLookup(ctx context.Context, shipmentID string, at time.Time, pod bool) error {
	db := tx.db
	rs, err := tx.c.query(ctx, `UPDATE containers SET shipment_last_tracking_request_at = ?,
		pod_last_tracking_request_at = CASE WHEN ? AND pod_full_out_at IS NULL THEN ? ELSE pod_last_tracking_request_at END
		WHERE shipment_id = ? RETURNING id`, db.ts(at), pod, db.ts(at), shipmentID)
	if err != nil {
		return db.internal("record lookup", err)
	}
	ids, err := collect(rs, func(r row) (string, error) {
		var id string
		return id, r.Scan(nullString{&id})
	})
	if err != nil {
		return db.internal("record lookup", err)
	}
	keys := []string{shipmentContainersKey(strings.ToLower(shipmentID))}
	for _, id := range ids {
		keys = append(keys, containerKey(strings.ToLower(id)))
	}
	tx.evict(keys...)
	return nil
}

// nonNilSlice stores an empty list as [], not null.
func nonNilSlice[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// ShipmentContainers returns a shipment's containers in number order (within a transaction).
func (tx *txn) ShipmentContainers(ctx context.Context, shipmentID string) ([]boxwatch.Container, error) {
	return tx.db.containersWhere(ctx, tx.c, "shipment_id = ?", shipmentID)
}

// ShipmentContainers returns the containers of one of the account's shipments, in number order.
func (db *DB) ShipmentContainers(ctx context.Context, accountID, shipmentID string) ([]boxwatch.Container, error) {
	if !boxwatch.IsUUID(shipmentID) {
		return []boxwatch.Container{}, nil
	}
	id := strings.ToLower(shipmentID)
	return cached(db.cache, shipmentContainersKey(id), accountID, func() ([]boxwatch.Container, error) {
		return db.containersWhere(ctx, db.read, "account_id = ? AND shipment_id = ?", accountID, id)
	})
}

func (db *DB) containersWhere(ctx context.Context, c conn, where string, args ...any) ([]boxwatch.Container, error) {
	rs, err := c.query(ctx, "SELECT "+containerColumns+" FROM containers WHERE "+where+" ORDER BY number", args...)
	if err != nil {
		return nil, db.internal("containers", err)
	}
	defer rs.Close()
	list := []boxwatch.Container{}
	for rs.Next() {
		ct, err := scanContainer(rs)
		if err != nil {
			return nil, db.internal("scan container", err)
		}
		list = append(list, ct)
	}
	return list, db.internal("containers", rs.Err())
}

// Container returns one of the account's containers, or ErrNotFound.
func (db *DB) Container(ctx context.Context, accountID, id string) (boxwatch.Container, error) {
	if !boxwatch.IsUUID(id) {
		return boxwatch.Container{}, boxwatch.ErrNotFound
	}
	id = strings.ToLower(id)
	return cached(db.cache, containerKey(id), accountID, func() (boxwatch.Container, error) {
		c, err := scanContainer(db.read.queryRow(ctx, "SELECT "+containerColumns+" FROM containers WHERE account_id = ? AND id = ?", accountID, id))
		return c, db.lookupErr("container", err)
	})
}

// SetContainerRefNumbers replaces the reference numbers of one of the account's containers. It
// returns the container updated, or ErrNotFound.
func (db *DB) SetContainerRefNumbers(ctx context.Context, accountID, id string, refs []string, now time.Time) (boxwatch.Container, error) {
	if !boxwatch.IsUUID(id) {
		return boxwatch.Container{}, boxwatch.ErrNotFound
	}
	id = strings.ToLower(id)
	c, err := scanContainer(db.write.queryRow(ctx, "UPDATE containers SET ref_numbers = ?, updated_at = ? WHERE account_id = ? AND id = ? RETURNING "+
		containerColumns, listArg(refs), db.ts(now), accountID, id))
	db.cache.evict(containerKey(id), shipmentContainersKey(c.ShipmentID))
	return c, db.lookupErr("update container ref numbers", err)
}

// Containers returns one page of the account's containers, newest first, and how many match.
func (db *DB) Containers(ctx context.Context, accountID string, f boxwatch.ContainerFilter, p boxwatch.Page) ([]boxwatch.Container, boxwatch.Total, error) {
	where, args := containerWhere(accountID, f)
	return countedPage(ctx, db, accountID, "containers", containerColumns, where, args, p, scanContainer)
}

// containerWhere is the condition, and its arguments, of the account's containers f matches.
func containerWhere(accountID string, f boxwatch.ContainerFilter) (string, []any) {
	where, args := "account_id = ?", []any{accountID}
	if f.Number != "" {
		where, args = where+" AND number = ?", append(args, boxwatch.NormalizeContainerNumber(f.Number))
	}
	return where, args
}

const transportEventColumns = `id, account_id, shipment_id, container_id, event, timestamp, locode, voyage_number, vessel_imo,
	data_source, created_at, value`

func scanTransportEvent(r row) (boxwatch.TransportEvent, error) {
	var e boxwatch.TransportEvent
	err := r.Scan(nullString{&e.ID}, nullString{&e.AccountID}, nullString{&e.ShipmentID}, nullString{&e.ContainerID}, &e.Event,
		timeCol{&e.Timestamp}, &e.LOCODE, &e.VoyageNumber, &e.VesselIMO, &e.DataSource, timeCol{&e.CreatedAt}, &e.Value)
	return e, err
}

// InsertTransportEvent stores a milestone unless the container already has it at that place, and
// reports whether it was new.
func (tx *txn) InsertTransportEvent(ctx context.Context, e boxwatch.TransportEvent) (bool, error) {
	tx.evict(containerEventsKey(strings.ToLower(e.ContainerID)))
	n, err := tx.c.exec(ctx, "INSERT INTO transport_events ("+transportEventColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (container_id, event, locode) DO NOTHING`,
		e.ID, e.AccountID, e.ShipmentID, e.ContainerID, e.Event, tx.db.ts(e.Timestamp), e.LOCODE, e.VoyageNumber, e.VesselIMO,
		e.DataSource, tx.db.ts(e.CreatedAt), e.Value)
	return n > 0, tx.db.internal("insert transport event", err)
}

// SetTransportEventValue replaces the time and value of a container's event at a place (a terminal
// event that changes, as the last free day does) and returns it, or ErrNotFound.
func (tx *txn) SetTransportEventValue(ctx context.Context, containerID, event, locode string, timestamp time.Time, value string) (boxwatch.TransportEvent, error) {
	tx.evict(containerEventsKey(strings.ToLower(containerID)))
	e, err := scanTransportEvent(tx.c.queryRow(ctx, "UPDATE transport_events SET timestamp = ?, value = ? WHERE container_id = ? AND event = ? AND locode = ? RETURNING "+
		transportEventColumns, tx.db.ts(timestamp), value, containerID, event, locode))
	return e, tx.db.lookupErr("set transport event value", err)
}

// TransportEventByKey returns the stored milestone of a container at a place.
func (tx *txn) TransportEventByKey(ctx context.Context, containerID, event, locode string) (boxwatch.TransportEvent, error) {
	e, err := scanTransportEvent(tx.c.queryRow(ctx, "SELECT "+transportEventColumns+
		" FROM transport_events WHERE container_id = ? AND event = ? AND locode = ?", containerID, event, locode))
	return e, tx.db.lookupErr("transport event", err)
}

// TransportEvent returns one of the account's transport events, or ErrNotFound.
func (db *DB) TransportEvent(ctx context.Context, accountID, id string) (boxwatch.TransportEvent, error) {
	if !boxwatch.IsUUID(id) {
		return boxwatch.TransportEvent{}, boxwatch.ErrNotFound
	}
	e, err := scanTransportEvent(db.read.queryRow(ctx, "SELECT "+transportEventColumns+" FROM transport_events WHERE account_id = ? AND id = ?",
		accountID, strings.ToLower(id)))
	return e, db.lookupErr("transport event", err)
}

// TransportEvents returns a page of a container's milestones, oldest first, and how many there
// are. An unknown container, or another account's, is ErrNotFound.
func (db *DB) TransportEvents(ctx context.Context, accountID, containerID string, p boxwatch.Page) ([]boxwatch.TransportEvent, int, error) {
	if _, err := db.Container(ctx, accountID, containerID); err != nil {
		return nil, 0, err
	}
	id := strings.ToLower(containerID)
	if db.cache.isLive() {
		// A container has tens of milestones: the cache holds them all, and pages are cut here.
		byContainer, err := db.TransportEventsOfContainers(ctx, accountID, []string{id})
		if err != nil {
			return nil, 0, err
		}
		all := byContainer[id]
		from, to := min(p.Offset(), len(all)), min(p.Offset()+p.Size, len(all))
		return append([]boxwatch.TransportEvent{}, all[from:to]...), len(all), nil
	}
	// One statement: a container has tens of milestones, which the window counts as it pages them.
	rs, err := db.read.query(ctx, "SELECT "+transportEventColumns+", COUNT(*) OVER ()"+
		" FROM transport_events WHERE account_id = ? AND container_id = ? ORDER BY timestamp, id LIMIT ? OFFSET ?", accountID, id, p.Size, p.Offset())
	if err != nil {
		return nil, 0, db.internal("transport events", err)
	}
	defer rs.Close()
	list := []boxwatch.TransportEvent{}
	var total *int64
	for rs.Next() {
		e, err := scanTransportEvent(withTotal{rs, &total})
		if err != nil {
			return nil, 0, db.internal("scan transport event", err)
		}
		list = append(list, e)
	}
	if err := db.internal("transport events", rs.Err()); err != nil {
		return nil, 0, err
	}
	if total != nil || p.Offset() == 0 {
		return list, int(ptrOr(total)), nil
	}
	// A page past the end carries no count.
	var n int
	err = db.read.queryRow(ctx, "SELECT COUNT(*) FROM transport_events WHERE account_id = ? AND container_id = ?", accountID, id).Scan(&n)
	return list, n, db.internal("count transport events", err)
}

// AppendEvent adds an event to the log unless the account already has one with its key, and
// reports whether it was new.
func (tx *txn) AppendEvent(ctx context.Context, e boxwatch.Event) (bool, error) {
	data := string(e.Data)
	if data == "" {
		data = "{}"
	}
	n, err := tx.c.exec(ctx, `INSERT INTO events (id, account_id, name, object_type, object_id, tracking_request_id, shipment_id,
		container_id, data, key, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (account_id, key) DO NOTHING`,
		e.ID, e.AccountID, e.Name, e.ObjectType, e.ObjectID, nullIfEmpty(e.TrackingRequestID), nullIfEmpty(e.ShipmentID),
		nullIfEmpty(e.ContainerID), data, e.Key, tx.db.ts(e.CreatedAt))
	return n > 0, tx.db.internal("append event", err)
}

// Events returns the account's events, oldest first, after the given number of them.
func (db *DB) Events(ctx context.Context, accountID string, offset, limit int) ([]boxwatch.Event, error) {
	rs, err := db.read.query(ctx, `SELECT id, account_id, name, object_type, object_id, tracking_request_id, shipment_id, container_id,
		data, key, created_at FROM events WHERE account_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?`, accountID, limit, offset)
	if err != nil {
		return nil, db.internal("events", err)
	}
	defer rs.Close()
	var list []boxwatch.Event
	for rs.Next() {
		var e boxwatch.Event
		var data string
		if err := rs.Scan(nullString{&e.ID}, nullString{&e.AccountID}, &e.Name, &e.ObjectType, &e.ObjectID, nullString{&e.TrackingRequestID},
			nullString{&e.ShipmentID}, nullString{&e.ContainerID}, nullString{&data}, &e.Key, timeCol{&e.CreatedAt}); err != nil {
			return nil, db.internal("scan event", err)
		}
		e.Data = json.RawMessage(data)
		list = append(list, e)
	}
	return list, db.internal("events", rs.Err())
}

// SaveVessel stores a vessel or updates what is known of it; empty fields keep their stored value.
func (tx *txn) SaveVessel(ctx context.Context, v boxwatch.Vessel, now time.Time) error {
	var id string
	err := tx.c.queryRow(ctx, `INSERT INTO vessels (id, imo, mmsi, name, call_sign, flag, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (imo) DO UPDATE SET
		mmsi = CASE WHEN excluded.mmsi <> '' THEN excluded.mmsi ELSE vessels.mmsi END,
		name = CASE WHEN excluded.name <> '' THEN excluded.name ELSE vessels.name END,
		call_sign = CASE WHEN excluded.call_sign <> '' THEN excluded.call_sign ELSE vessels.call_sign END,
		flag = CASE WHEN excluded.flag <> '' THEN excluded.flag ELSE vessels.flag END,
		updated_at = excluded.updated_at RETURNING id`,
		v.ID, v.IMO, v.MMSI, v.Name, v.CallSign, v.Flag, tx.db.ts(now)).Scan(nullString{&id})
	tx.evict(vesselKey(id))
	return tx.db.internal("save vessel", err)
}

// Vessel returns a vessel by its id or IMO number, or ErrNotFound.
func (db *DB) Vessel(ctx context.Context, idOrIMO string) (boxwatch.Vessel, error) {
	// A vessel is cached by its row's id, which the store derives from the IMO number
	// (boxwatch.VesselID): a lookup by IMO number finds it there, and stores only a row whose id
	// is the one derived, since the trigger names the row by its id.
	col, id := "imo", boxwatch.VesselID(idOrIMO)
	if boxwatch.IsUUID(idOrIMO) {
		col, idOrIMO = "id", strings.ToLower(idOrIMO)
		id = idOrIMO
	}
	if hit, ok := db.cache.get(vesselKey(id), ""); ok && (col == "id" || hit.(boxwatch.Vessel).IMO == idOrIMO) {
		v := hit.(boxwatch.Vessel)
		return v, db.vesselAIS(ctx, &v)
	}
	token := db.cache.begin(vesselKey(id))
	var v boxwatch.Vessel
	err := db.read.queryRow(ctx, "SELECT id, imo, mmsi, name, call_sign, flag FROM vessels WHERE "+col+" = ?", idOrIMO).
		Scan(nullString{&v.ID}, &v.IMO, &v.MMSI, &v.Name, &v.CallSign, &v.Flag)
	if err != nil {
		return v, db.lookupErr("vessel", err)
	}
	if v.ID == id {
		db.cache.put(token, vesselKey(id), "", v)
	}
	return v, db.vesselAIS(ctx, &v)
}

// FirstSeen returns when key was first seen, recording now if it never was. Replicas sharing the
// database agree on the answer. Keys are at most 200 bytes.
func (db *DB) FirstSeen(ctx context.Context, key string, now time.Time) (time.Time, error) {
	var t time.Time
	err := db.inTx(ctx, func(c conn) error {
		if _, err := c.exec(ctx, "INSERT INTO first_seen (key, at) VALUES (?, ?) ON CONFLICT (key) DO NOTHING", key, db.ts(now)); err != nil {
			return err
		}
		return c.queryRow(ctx, "SELECT at FROM first_seen WHERE key = ?", key).Scan(timeCol{&t})
	})
	return t, db.internal("first seen", err)
}

// Increment adds one to the counter key (absent counts as 0) and returns its new value, atomically
// across replicas.
func (db *DB) Increment(ctx context.Context, key string) (int, error) {
	var n int
	err := db.inTx(ctx, func(c conn) error {
		return c.queryRow(ctx, `INSERT INTO counters (key, value) VALUES (?, 1)
			ON CONFLICT (key) DO UPDATE SET value = counters.value + 1 RETURNING value`, key).Scan(&n)
	})
	return n, db.internal("increment", err)
}
