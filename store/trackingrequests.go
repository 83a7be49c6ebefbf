package store

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch"
)

const trackingRequestColumns = `id, account_id, request_type, request_number, scac, ref_numbers, shipment_tags,
	status, failed_reason, is_retrying, retry_count, shipment_id, created_at, updated_at, customer_id, initial_custom_fields`

func scanTrackingRequest(r row) (boxwatch.TrackingRequest, error) {
	var tr boxwatch.TrackingRequest
	var retry *int64
	err := r.Scan(nullString{&tr.ID}, nullString{&tr.AccountID}, &tr.RequestType, &tr.RequestNumber, &tr.SCAC,
		listCol{&tr.RefNumbers}, listCol{&tr.ShipmentTags}, &tr.Status, nullString{&tr.FailedReason},
		&tr.IsRetrying, &retry, nullString{&tr.ShipmentID}, timeCol{&tr.CreatedAt}, timeCol{&tr.UpdatedAt}, nullString{&tr.CustomerID},
		jsonCol{&tr.InitialCustomFields})
	if len(tr.InitialCustomFields) == 0 {
		tr.InitialCustomFields = nil
	}
	if retry != nil {
		n := int(*retry)
		tr.RetryCount = &n
	}
	return tr, err
}

// CreateTrackingRequest stores a new request; the live-number index turns a concurrent duplicate
// into DuplicateError.
func (db *DB) CreateTrackingRequest(ctx context.Context, tr boxwatch.TrackingRequest) error {
	return db.createTrackingRequest(ctx, db.write, tr)
}

// CreateTrackingRequest is DB.CreateTrackingRequest inside a transaction.
func (tx *txn) CreateTrackingRequest(ctx context.Context, tr boxwatch.TrackingRequest) error {
	return tx.db.createTrackingRequest(ctx, tx.c, tr)
}

func (db *DB) createTrackingRequest(ctx context.Context, c conn, tr boxwatch.TrackingRequest) error {
	staged, err := jsonArg(nonNilSlice(tr.InitialCustomFields))
	if err != nil {
		return err
	}
	_, err = c.exec(ctx, "INSERT INTO tracking_requests ("+trackingRequestColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		tr.ID, tr.AccountID, string(tr.RequestType), tr.RequestNumber, tr.SCAC, listArg(tr.RefNumbers),
		listArg(tr.ShipmentTags), string(tr.Status), nullIfEmpty(tr.FailedReason), tr.IsRetrying, tr.RetryCount,
		nullIfEmpty(tr.ShipmentID), db.ts(tr.CreatedAt), db.ts(tr.UpdatedAt), nullIfEmpty(tr.CustomerID), staged)
	if err := db.internal("create tracking request", err); err != nil {
		if errors.Is(err, errUniqueViolation) {
			return boxwatch.DuplicateError(tr.RequestNumber, tr.SCAC)
		}
		return err
	}
	return nil
}

// TrackingRequest returns one of the account's requests, or ErrNotFound.
func (db *DB) TrackingRequest(ctx context.Context, accountID, id string) (boxwatch.TrackingRequest, error) {
	if !boxwatch.IsUUID(id) {
		return boxwatch.TrackingRequest{}, boxwatch.ErrNotFound
	}
	id = strings.ToLower(id)
	return cached(db.cache, trackingRequestKey(id), accountID, func() (boxwatch.TrackingRequest, error) {
		tr, err := scanTrackingRequest(db.read.queryRow(ctx,
			"SELECT "+trackingRequestColumns+" FROM tracking_requests WHERE account_id = ? AND id = ?", accountID, id))
		return tr, db.lookupErr("tracking request", err)
	})
}

// TrackingRequests returns one page of the account's requests, newest first, and how many match.
func (db *DB) TrackingRequests(ctx context.Context, accountID string, f boxwatch.TrackingRequestFilter, p boxwatch.Page) ([]boxwatch.TrackingRequest, boxwatch.Total, error) {
	where, args := db.trackingRequestWhere(accountID, f)
	return countedPage(ctx, db, accountID, "tracking_requests", trackingRequestColumns, where, args, p, scanTrackingRequest)
}

func (db *DB) trackingRequestWhere(accountID string, f boxwatch.TrackingRequestFilter) (string, []any) {
	conds := []string{"account_id = ?"}
	args := []any{accountID}
	add := func(cond string, arg any) {
		conds = append(conds, cond)
		args = append(args, arg)
	}
	if f.Status != "" {
		add("status = ?", string(f.Status))
	}
	if f.SCAC != "" {
		add("scac = ?", f.SCAC)
	}
	if f.RequestNumber != "" {
		add("request_number = ?", f.RequestNumber)
	}
	if f.Query != "" {
		// Both dialects compare the JSON text of ref_numbers; the pattern escapes LIKE's wildcards.
		pattern := "%" + likeEscaper.Replace(f.Query) + "%"
		refs := "ref_numbers"
		if db.dialect == Postgres {
			refs = "ref_numbers::text"
		}
		conds = append(conds, "(upper(request_number) LIKE upper(?) ESCAPE '\\' OR upper("+refs+") LIKE upper(?) ESCAPE '\\')")
		args = append(args, pattern, pattern)
	}
	for _, c := range []struct {
		cond string
		t    time.Time
	}{
		{"created_at >= ?", f.CreatedAfter}, {"created_at <= ?", f.CreatedBefore},
		{"updated_at >= ?", f.UpdatedAfter}, {"updated_at <= ?", f.UpdatedBefore},
	} {
		if !c.t.IsZero() {
			add(c.cond, db.ts(c.t))
		}
	}
	return strings.Join(conds, " AND "), args
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// SetTrackingRequestRefNumbers replaces the reference numbers of one of the account's requests,
// and of its shipment if it has one, in one transaction.
func (db *DB) SetTrackingRequestRefNumbers(ctx context.Context, accountID, id string, refs []string, now time.Time) (boxwatch.TrackingRequest, error) {
	var tr boxwatch.TrackingRequest
	if !boxwatch.IsUUID(id) {
		return tr, boxwatch.ErrNotFound
	}
	err := db.inTx(ctx, func(c conn) error {
		var err error
		tr, err = scanTrackingRequest(c.queryRow(ctx,
			"UPDATE tracking_requests SET ref_numbers = ?, updated_at = ? WHERE account_id = ? AND id = ? RETURNING "+trackingRequestColumns,
			listArg(refs), db.ts(now), accountID, strings.ToLower(id)))
		if err := db.lookupErr("update tracking request", err); err != nil {
			return err
		}
		_, err = c.exec(ctx, "UPDATE shipments SET ref_numbers = ?, updated_at = ? WHERE account_id = ? AND tracking_request_id = ?",
			listArg(refs), db.ts(now), accountID, tr.ID)
		return db.internal("update shipment ref numbers", err)
	})
	if err == nil {
		db.cache.evict(trackingRequestKey(tr.ID), shipmentKey(tr.ShipmentID))
	}
	return tr, err
}
