package store

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch"
)

var _ boxwatch.PositionStore = (*DB)(nil)

// rowChunks are the sizes multi-row statements are cut into: a batch of any length costs a few
// statements, and each size is one cached statement, not one per length.
var rowChunks = []int{256, 64, 16, 4, 1}

// eachChunk calls fn with consecutive parts of n rows, each of a size from rowChunks.
func eachChunk(n int, fn func(from, to int) error) error {
	for from := 0; from < n; {
		size := rowChunks[len(rowChunks)-1]
		for _, c := range rowChunks {
			if n-from >= c {
				size = c
				break
			}
		}
		if err := fn(from, from+size); err != nil {
			return err
		}
		from += size
	}
	return nil
}

// values is the VALUES list of rows of cols placeholders each.
func values(rows, cols int) string {
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", cols), ", ") + ")"
	return strings.TrimSuffix(strings.Repeat(one+", ", rows), ", ")
}

// SaveVesselIdentities records what static reports say of vessels.
func (db *DB) SaveVesselIdentities(ctx context.Context, ids []boxwatch.VesselIdentity, now time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	// One row per MMSI per statement: ON CONFLICT may not touch a row twice.
	latest := map[string]boxwatch.VesselIdentity{}
	var order []string
	for _, id := range ids {
		prev, seen := latest[id.MMSI]
		if !seen {
			order = append(order, id.MMSI)
		}
		latest[id.MMSI] = mergeIdentity(prev, id)
	}
	slices.Sort(order) // every writer locks the rows in one order: replicas never deadlock
	// The read cache's keys of the rows written: each IMO number's MMSI, the one given and, on
	// PostgreSQL, the one the row had (read in RETURNING, which sees the table as it was before
	// the statement; SQLite's hook names old rows itself), and the vessels that learn an MMSI.
	returning := ""
	if db.dialect == Postgres && db.cache != nil {
		returning = " RETURNING (SELECT o.imo FROM vessel_identities o WHERE o.mmsi = vessel_identities.mmsi)"
	}
	return db.InTx(ctx, func(btx boxwatch.Tx) error {
		tx := btx.(*txn)
		c := tx.c
		return eachChunk(len(order), func(from, to int) error {
			args := make([]any, 0, 5*(to-from))
			var imos []any
			for _, mmsi := range order[from:to] {
				id := latest[mmsi]
				args = append(args, id.MMSI, id.IMO, id.Name, id.CallSign, db.ts(now))
				tx.evict(imoMMSIKey(id.IMO))
				if id.IMO != "" {
					imos = append(imos, id.IMO)
				}
			}
			q := `INSERT INTO vessel_identities (mmsi, imo, name, call_sign, updated_at) VALUES ` + values(to-from, 5) + `
				ON CONFLICT (mmsi) DO UPDATE SET
				imo = CASE WHEN excluded.imo <> '' THEN excluded.imo ELSE vessel_identities.imo END,
				name = CASE WHEN excluded.name <> '' THEN excluded.name ELSE vessel_identities.name END,
				call_sign = CASE WHEN excluded.call_sign <> '' THEN excluded.call_sign ELSE vessel_identities.call_sign END,
				updated_at = excluded.updated_at`
			if returning == "" {
				if _, err := c.exec(ctx, q, args...); err != nil {
					return err
				}
			} else {
				before, err := scanStrings(c.query(ctx, q+returning, args...))
				if err != nil {
					return err
				}
				for _, imo := range before {
					tx.evict(imoMMSIKey(imo))
				}
			}
			if len(imos) == 0 {
				return nil
			}
			// Vessels the carriers named by IMO number learn their MMSI. They are locked in IMO order,
			// the order lookups write them in (tracking's saveShared), not the table's: an update in
			// the table's order deadlocked with a lookup holding one of them.
			learned, err := scanStrings(c.query(ctx, `UPDATE vessels SET mmsi = (SELECT i.mmsi FROM vessel_identities i WHERE i.imo = vessels.imo
				ORDER BY i.updated_at DESC, i.mmsi LIMIT 1) WHERE imo IN (SELECT imo FROM vessels WHERE mmsi = '' AND imo `+in(len(imos))+
				` ORDER BY imo`+db.lockRows()+`) RETURNING id`, pad(imos)...))
			for _, id := range learned {
				tx.evict(vesselKey(id))
			}
			return err
		})
	})
}

// scanStrings collects rows of one text column, NULL as "".
func scanStrings(rs rows, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	return collect(rs, func(r row) (string, error) {
		var s string
		return s, r.Scan(nullString{&s})
	})
}

// lockRows locks the rows a subquery selects, on PostgreSQL, in the order it selects them;
// SQLite's one writer needs no row locks.
func (db *DB) lockRows() string {
	if db.dialect == Postgres {
		return " FOR UPDATE"
	}
	return ""
}

func mergeIdentity(prev, next boxwatch.VesselIdentity) boxwatch.VesselIdentity {
	if next.IMO == "" {
		next.IMO = prev.IMO
	}
	if next.Name == "" {
		next.Name = prev.Name
	}
	if next.CallSign == "" {
		next.CallSign = prev.CallSign
	}
	return next
}

// SavePositions stores positions, each (MMSI, time) once.
func (db *DB) SavePositions(ctx context.Context, ps []boxwatch.VesselPosition) (int, error) {
	// Replicas ingesting one feed insert the same keys at once: in one order, they wait on each
	// other instead of deadlocking.
	ps = slices.SortedFunc(slices.Values(ps), func(a, b boxwatch.VesselPosition) int {
		return cmp.Or(cmp.Compare(a.MMSI, b.MMSI), a.Timestamp.Compare(b.Timestamp))
	})
	var added int64
	err := db.inTx(ctx, func(c conn) error {
		return eachChunk(len(ps), func(from, to int) error {
			n, err := c.exec(ctx, `INSERT INTO vessel_positions (mmsi, at, latitude, longitude, speed, course, heading) VALUES `+
				values(to-from, 7)+` ON CONFLICT (mmsi, at) DO NOTHING`, db.positionArgs(ps[from:to])...)
			added += n
			return err
		})
	})
	if err != nil {
		return 0, db.internal("save positions", err)
	}
	return int(added), nil
}

// SaveLastPositions records each vessel's latest position.
func (db *DB) SaveLastPositions(ctx context.Context, ps []boxwatch.VesselPosition) error {
	latest := map[string]boxwatch.VesselPosition{}
	var order []string
	for _, p := range ps {
		prev, seen := latest[p.MMSI]
		if !seen {
			order = append(order, p.MMSI)
		}
		if !seen || p.Timestamp.After(prev.Timestamp) {
			latest[p.MMSI] = p
		}
	}
	slices.Sort(order) // every writer locks the rows in one order: replicas never deadlock
	list := make([]boxwatch.VesselPosition, len(order))
	for i, mmsi := range order {
		list[i] = latest[mmsi]
	}
	err := db.InTx(ctx, func(btx boxwatch.Tx) error {
		tx := btx.(*txn)
		for _, mmsi := range order {
			tx.evict(lastPositionKey(mmsi))
		}
		c := tx.c
		return eachChunk(len(list), func(from, to int) error {
			_, err := c.exec(ctx, `INSERT INTO vessel_last_positions (mmsi, at, latitude, longitude, speed, course, heading) VALUES `+
				values(to-from, 7)+` ON CONFLICT (mmsi) DO UPDATE SET at = excluded.at, latitude = excluded.latitude,
				longitude = excluded.longitude, speed = excluded.speed, course = excluded.course, heading = excluded.heading
				WHERE excluded.at > vessel_last_positions.at`, db.positionArgs(list[from:to])...)
			return err
		})
	})
	return db.internal("save last positions", err)
}

func (db *DB) positionArgs(ps []boxwatch.VesselPosition) []any {
	args := make([]any, 0, 7*len(ps))
	for _, p := range ps {
		args = append(args, p.MMSI, db.ts(p.Timestamp), p.Latitude, p.Longitude, p.SpeedKnots, p.CourseDegrees, p.HeadingDegrees)
	}
	return args
}

const positionColumns = "mmsi, at, latitude, longitude, speed, course, heading"

func scanPosition(r row) (boxwatch.VesselPosition, error) {
	var p boxwatch.VesselPosition
	err := r.Scan(&p.MMSI, timeCol{&p.Timestamp}, &p.Latitude, &p.Longitude, &p.SpeedKnots, &p.CourseDegrees, &p.HeadingDegrees)
	return p, err
}

// VesselPositions returns a vessel's stored positions in [from, to), oldest first.
func (db *DB) VesselPositions(ctx context.Context, mmsi string, from, to time.Time, limit int) ([]boxwatch.VesselPosition, error) {
	rs, err := db.read.query(ctx, "SELECT "+positionColumns+` FROM vessel_positions WHERE mmsi = ? AND at >= ? AND at < ?
		ORDER BY at LIMIT ?`, mmsi, db.ts(from), db.ts(to), limit)
	if err != nil {
		return nil, db.internal("vessel positions", err)
	}
	list, err := collect(rs, scanPosition)
	return list, db.internal("vessel positions", err)
}

// vesselAIS fills a vessel's MMSI from static reports when the carrier gave none, and its last
// position.
func (db *DB) vesselAIS(ctx context.Context, v *boxwatch.Vessel) error {
	// Both are cached when there is none too: an IMO number no static report gave, a vessel not
	// heard yet.
	if v.MMSI == "" {
		mmsi, err := cached(db.cache, imoMMSIKey(v.IMO), "", func() (string, error) {
			var mmsi string
			err := db.read.queryRow(ctx, "SELECT mmsi FROM vessel_identities WHERE imo = ? ORDER BY updated_at DESC, mmsi LIMIT 1", v.IMO).
				Scan(&mmsi)
			if err := db.lookupErr("vessel identity", err); err != nil && !errors.Is(err, boxwatch.ErrNotFound) {
				return "", err
			}
			return mmsi, nil
		})
		if err != nil {
			return err
		}
		v.MMSI = mmsi
	}
	if v.MMSI == "" {
		return nil
	}
	p, err := cached(db.cache, lastPositionKey(v.MMSI), "", func() (*boxwatch.VesselPosition, error) {
		p, err := scanPosition(db.read.queryRow(ctx, "SELECT "+positionColumns+" FROM vessel_last_positions WHERE mmsi = ?", v.MMSI))
		switch err = db.lookupErr("last position", err); {
		case err == nil:
			return &p, nil
		case errors.Is(err, boxwatch.ErrNotFound):
			return nil, nil
		}
		return nil, err
	})
	v.Position = p
	return err
}

// VesselArrivals reads the routes of the shipments updated since since (a shipment is updated
// when the carrier's answer recording an ATA is applied, so one whose route gained an ATA after
// since was updated after it too) and returns their arrivals in [since, until), each call once,
// the latest first, at most limit. Rows are decoded one at a time: only the distinct calls are
// held.
func (db *DB) VesselArrivals(ctx context.Context, since, until time.Time, limit int) ([]boxwatch.VesselArrival, error) {
	if limit <= 0 {
		return []boxwatch.VesselArrival{}, nil
	}
	rs, err := db.read.query(ctx, "SELECT route FROM shipments WHERE updated_at >= ?", db.ts(since))
	if err != nil {
		return nil, db.internal("vessel arrivals", err)
	}
	defer rs.Close()
	type call struct {
		imo, locode string
		ata         int64
	}
	seen := map[call]int{} // index in out
	out := []boxwatch.VesselArrival{}
	for rs.Next() {
		var s boxwatch.Shipment
		if err := rs.Scan(jsonCol{&s.Route}); err != nil {
			return nil, db.internal("vessel arrivals", err)
		}
		for _, a := range s.Arrivals() {
			if a.Arrived.Before(since) || !a.Arrived.Before(until) {
				continue
			}
			k := call{a.VesselIMO, a.LOCODE, a.Arrived.UnixNano()}
			if i, ok := seen[k]; ok {
				if out[i].Departed.IsZero() {
					out[i].Departed = a.Departed // another shipment's route may know the departure
				}
				continue
			}
			seen[k] = len(out)
			out = append(out, a)
		}
	}
	if err := rs.Err(); err != nil {
		return nil, db.internal("vessel arrivals", err)
	}
	slices.SortFunc(out, func(a, b boxwatch.VesselArrival) int {
		if c := b.Arrived.Compare(a.Arrived); c != 0 {
			return c
		}
		return cmp.Or(strings.Compare(a.VesselIMO, b.VesselIMO), strings.Compare(a.LOCODE, b.LOCODE))
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}
