package store

import (
	"context"
	"strings"

	"github.com/boxwatch/boxwatch"
)

// Pages as ids. The API answers a page of tracking requests, shipments or containers from the
// resources the read cache keeps rendered (api/listpages.go): the page's statement then reads
// only the ids, in the order and with the total the listing itself answers, and the rows of the
// resources not kept are read in one batch (TrackingRequestsByID, ShipmentsByID, ContainersByID).

// TrackingRequestIDs returns the ids of the page of the account's requests TrackingRequests
// answers for f and p, in its order, and how many match.
func (db *DB) TrackingRequestIDs(ctx context.Context, accountID string, f boxwatch.TrackingRequestFilter, p boxwatch.Page) ([]string, boxwatch.Total, error) {
	where, args := db.trackingRequestWhere(accountID, f)
	return pageIDs(ctx, db, accountID, "tracking_requests", where, args, p)
}

// ShipmentIDs returns the ids of the page of the account's shipments Shipments answers for f and
// p, in its order, and how many match.
func (db *DB) ShipmentIDs(ctx context.Context, accountID string, f boxwatch.ShipmentFilter, p boxwatch.Page) ([]string, boxwatch.Total, error) {
	where, args := db.shipmentWhere(accountID, f)
	return pageIDs(ctx, db, accountID, "shipments", where, args, p)
}

// ContainerIDs returns the ids of the page of the account's containers Containers answers for f
// and p, in its order, and how many match.
func (db *DB) ContainerIDs(ctx context.Context, accountID string, f boxwatch.ContainerFilter, p boxwatch.Page) ([]string, boxwatch.Total, error) {
	where, args := containerWhere(accountID, f)
	return pageIDs(ctx, db, accountID, "containers", where, args, p)
}

// pageIDs is countedPage's page as its ids, in one statement answering one row: the ids joined
// by commas (uuids hold none) in the page's order, and the total. One row rather than a row per
// id spares both databases the per-row work of the protocol and the scan, and a page past the
// end its second statement.
func pageIDs(ctx context.Context, db *DB, accountID, table, where string, args []any, p boxwatch.Page) ([]string, boxwatch.Total, error) {
	count, countArgs, filtered := listCount(accountID, table, where, args, p)
	var joined *string
	var n *int64
	err := db.read.queryRow(ctx, "SELECT (SELECT string_agg(CAST(id AS text), ',' ORDER BY created_at DESC, id DESC) FROM (SELECT id, created_at FROM "+
		table+" WHERE "+where+" ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?) page), ("+count+")",
		append(append(append([]any(nil), args...), p.Size, p.Offset()), countArgs...)...).Scan(&joined, &n)
	if err != nil {
		return nil, boxwatch.Total{}, db.internal("list "+table+" ids", err)
	}
	var ids []string
	if joined != nil && *joined != "" {
		ids = strings.Split(*joined, ",")
	}
	return ids, listTotal(n, filtered, p), nil
}
