package store

import (
	"context"
	"strconv"
	"strings"

	"github.com/boxwatch/boxwatch"
)

// activeLeg is a leg of a tracked shipment whose vessel has not arrived: a row of active_legs.
type activeLeg struct {
	leg       int
	imo, name string
}

// activeLegsOf returns the legs of s that AIS ingest follows: each stop's outbound vessel up to
// the next stop, while that stop has no ATA, and none once tracking stopped.
func activeLegsOf(s boxwatch.Shipment) []activeLeg {
	if !s.StoppedAt.IsZero() {
		return nil
	}
	var names map[string]string
	var legs []activeLeg
	for k := 0; k+1 < len(s.Route); k++ {
		imo := s.Route[k].OutboundVesselIMO
		if imo == "" || !s.Route[k+1].ATA.IsZero() {
			continue
		}
		if names == nil {
			names = boxwatch.VesselNamesOf(s.Snapshot)
		}
		legs = append(legs, activeLeg{leg: k, imo: imo, name: names[imo]})
	}
	return legs
}

// saveActiveLegs brings the shipment's rows of active_legs up to its route, in the transaction
// that writes the shipment. Rows that do not change are not written again: a refresh that
// changes nothing of the legs leaves no dead rows behind. A shipment just inserted (created) has
// no rows yet: nothing to delete, and nothing written when none of its legs is active.
func (tx *txn) saveActiveLegs(ctx context.Context, s boxwatch.Shipment, created bool) error {
	legs := activeLegsOf(s)
	if created && len(legs) == 0 {
		return nil
	}
	keep := make([]string, len(legs))
	for i, l := range legs {
		keep[i] = strconv.Itoa(l.leg)
	}
	del := "DELETE FROM active_legs WHERE shipment_id = ?"
	if len(keep) > 0 {
		// Leg numbers are integers written out: the statement's text varies with the legs kept,
		// of which a route has a handful.
		del += " AND leg NOT IN (" + strings.Join(keep, ", ") + ")"
	}
	if !created {
		if _, err := tx.c.exec(ctx, del, s.ID); err != nil {
			return tx.db.internal("delete active legs", err)
		}
	}
	if len(legs) == 0 {
		return nil
	}
	args := make([]any, 0, 4*len(legs))
	for _, l := range legs {
		args = append(args, s.ID, l.leg, l.imo, l.name)
	}
	_, err := tx.c.exec(ctx, `INSERT INTO active_legs (shipment_id, leg, vessel_imo, vessel_name) VALUES `+values(len(legs), 4)+`
		ON CONFLICT (shipment_id, leg) DO UPDATE SET vessel_imo = excluded.vessel_imo, vessel_name = excluded.vessel_name
		WHERE active_legs.vessel_imo <> excluded.vessel_imo OR active_legs.vessel_name <> excluded.vessel_name`, args...)
	return tx.db.internal("save active legs", err)
}

// ActiveLegVessels returns the vessels of legs not arrived yet of tracked shipments, by MMSI,
// with their IMO numbers. It reads the distinct vessels of active_legs from its index, one
// probe a vessel (a loose index scan), so its cost follows the fleet carrying tracked
// shipments, not their number.
func (db *DB) ActiveLegVessels(ctx context.Context) (map[string]string, error) {
	// A vessel's MMSI comes from the carrier (vessels) or from static reports (vessel_identities).
	list, err := batch(ctx, db, "active leg vessels", `WITH RECURSIVE active (imo) AS (
			SELECT min(vessel_imo) FROM active_legs
			UNION ALL
			SELECT (SELECT min(vessel_imo) FROM active_legs WHERE vessel_imo > active.imo) FROM active WHERE active.imo IS NOT NULL
		)
		SELECT mmsi, imo FROM vessels WHERE mmsi <> '' AND imo IN (SELECT imo FROM active WHERE imo IS NOT NULL)
		UNION SELECT mmsi, imo FROM vessel_identities WHERE imo IN (SELECT imo FROM active WHERE imo IS NOT NULL)`, nil,
		func(r row) (boxwatch.VesselIdentity, error) {
			var id boxwatch.VesselIdentity
			return id, r.Scan(&id.MMSI, &id.IMO)
		})
	out := map[string]string{}
	for _, id := range list {
		out[id.MMSI] = id.IMO
	}
	return out, err
}
