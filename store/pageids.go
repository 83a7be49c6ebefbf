package store

import (
	"context"

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
	return countedPage(ctx, db, accountID, "tracking_requests", "id", where, args, p, scanID)
}

// ShipmentIDs returns the ids of the page of the account's shipments Shipments answers for f and
// p, in its order, and how many match.
func (db *DB) ShipmentIDs(ctx context.Context, accountID string, f boxwatch.ShipmentFilter, p boxwatch.Page) ([]string, boxwatch.Total, error) {
	where, args := db.shipmentWhere(accountID, f)
	return countedPage(ctx, db, accountID, "shipments", "id", where, args, p, scanID)
}

// ContainerIDs returns the ids of the page of the account's containers Containers answers for f
// and p, in its order, and how many match.
func (db *DB) ContainerIDs(ctx context.Context, accountID string, f boxwatch.ContainerFilter, p boxwatch.Page) ([]string, boxwatch.Total, error) {
	where, args := containerWhere(accountID, f)
	return countedPage(ctx, db, accountID, "containers", "id", where, args, p, scanID)
}

func scanID(r row) (string, error) {
	var id string
	return id, r.Scan(nullString{&id})
}
