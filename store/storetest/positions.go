package storetest

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
)

func ptr(f float64) *float64 { return &f }

// position is a report of mmsi at base+d, moving north-east from 10°N 20°E one minute of arc a
// minute.
func position(mmsi string, d time.Duration) boxwatch.VesselPosition {
	step := d.Minutes() / 60
	return boxwatch.VesselPosition{MMSI: mmsi, Latitude: 10 + step, Longitude: 20 + step, SpeedKnots: ptr(12.5),
		CourseDegrees: ptr(45), HeadingDegrees: ptr(44), Timestamp: at(d)}
}

func mustSaveVessel(t testing.TB, db *store.DB, v boxwatch.Vessel) {
	t.Helper()
	mustInTx(t, db, func(tx boxwatch.Tx) error { return tx.SaveVessel(ctx, v, base) })
}

func testVesselIdentities(t *testing.T, db *store.DB) {
	known := boxwatch.Vessel{ID: boxwatch.VesselID("9321483"), IMO: "9321483", Name: "EMMA MAERSK"}
	mustSaveVessel(t, db, known)
	err := db.SaveVesselIdentities(ctx, []boxwatch.VesselIdentity{
		{MMSI: "220417000", IMO: "9321483", Name: "EMMA MAERSK", CallSign: "OYGR2"},
		{MMSI: "220417000", Name: "EMMA MAERSK"}, // a type 24 part A: no IMO, which must not erase it
		{MMSI: "477000100", IMO: "9000001"},
	}, base)
	if err != nil {
		t.Fatal(err)
	}
	got, err := db.Vessel(ctx, "9321483")
	if err != nil || got.MMSI != "220417000" || got.Position != nil {
		t.Fatalf("vessel after its static report: %+v, %v", got, err)
	}

	// A vessel saved after the report finds its MMSI among the identities.
	later := boxwatch.Vessel{ID: boxwatch.VesselID("9000001"), IMO: "9000001", Name: "LATECOMER"}
	mustSaveVessel(t, db, later)
	if got, err := db.Vessel(ctx, later.ID); err != nil || got.MMSI != "477000100" {
		t.Fatalf("vessel saved after its static report: %+v, %v", got, err)
	}
	// A carrier's own MMSI is kept over a static report's.
	own := boxwatch.Vessel{ID: boxwatch.VesselID("9000002"), IMO: "9000002", MMSI: "636000001"}
	mustSaveVessel(t, db, own)
	if err := db.SaveVesselIdentities(ctx, []boxwatch.VesselIdentity{{MMSI: "636000999", IMO: "9000002"}}, at(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if got, err := db.Vessel(ctx, own.IMO); err != nil || got.MMSI != "636000001" {
		t.Fatalf("carrier's MMSI: %+v, %v", got, err)
	}
	if err := db.SaveVesselIdentities(ctx, nil, base); err != nil {
		t.Fatalf("no identities: %v", err)
	}
}

func testSavePositions(t *testing.T, db *store.DB) {
	ps := []boxwatch.VesselPosition{position("220417000", 0), position("220417000", time.Minute), position("477000100", 0)}
	ps[2].SpeedKnots, ps[2].CourseDegrees, ps[2].HeadingDegrees = nil, nil, nil // not available: absent, not zero
	n, err := db.SavePositions(ctx, ps)
	if err != nil || n != 3 {
		t.Fatalf("saved %d, %v; want 3", n, err)
	}
	// The same reports again (another receiver, another replica) add nothing.
	if n, err := db.SavePositions(ctx, append(ps[:1:1], position("220417000", 2*time.Minute))); err != nil || n != 1 {
		t.Fatalf("saved %d again, %v; want only the new one", n, err)
	}
	got, err := db.VesselPositions(ctx, "220417000", base, at(time.Hour), 100)
	if err != nil {
		t.Fatal(err)
	}
	want := []boxwatch.VesselPosition{ps[0], ps[1], position("220417000", 2*time.Minute)}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("positions:\n got %+v\nwant %+v", got, want)
	}
	if got, err := db.VesselPositions(ctx, "477000100", base, at(time.Hour), 100); err != nil || len(got) != 1 || !reflect.DeepEqual(got[0], ps[2]) {
		t.Fatalf("position without speed, course or heading: %+v, %v", got, err)
	}
	// The window is [from, to), and the limit keeps the oldest.
	if got, _ := db.VesselPositions(ctx, "220417000", at(time.Minute), at(2*time.Minute), 100); len(got) != 1 || !got[0].Timestamp.Equal(at(time.Minute)) {
		t.Fatalf("window: %+v", got)
	}
	if got, _ := db.VesselPositions(ctx, "220417000", base, at(time.Hour), 2); len(got) != 2 || !got[1].Timestamp.Equal(at(time.Minute)) {
		t.Fatalf("limit: %+v", got)
	}
	if got, _ := db.VesselPositions(ctx, "999999999", base, at(time.Hour), 10); len(got) != 0 {
		t.Fatalf("unknown vessel: %+v", got)
	}
	if n, err := db.SavePositions(ctx, nil); err != nil || n != 0 {
		t.Fatalf("no positions: %d, %v", n, err)
	}
}

// testSavePositionsLarge stores batches of many lengths, which the store cuts into statements.
func testSavePositionsLarge(t *testing.T, db *store.DB) {
	total := 0
	for _, n := range []int{1, 5, 257, 1000} {
		ps := make([]boxwatch.VesselPosition, n)
		for i := range ps {
			ps[i] = position(fmt.Sprintf("%09d", 100000000+n), time.Duration(i)*time.Second)
		}
		added, err := db.SavePositions(ctx, ps)
		if err != nil || added != n {
			t.Fatalf("batch of %d: added %d, %v", n, added, err)
		}
		total += n
		got, err := db.VesselPositions(ctx, ps[0].MMSI, base, at(time.Hour), 5000)
		if err != nil || len(got) != n {
			t.Fatalf("batch of %d: read back %d, %v", n, len(got), err)
		}
	}
	if deleted, err := db.DeletePositionsBefore(ctx, at(time.Hour), total+1); err != nil || deleted != int64(total) {
		t.Fatalf("deleted %d of %d, %v", deleted, total, err)
	}
}

func testLastPositions(t *testing.T, db *store.DB) {
	mustSaveVessel(t, db, boxwatch.Vessel{ID: boxwatch.VesselID("9321483"), IMO: "9321483", MMSI: "220417000"})
	if err := db.SaveLastPositions(ctx, []boxwatch.VesselPosition{position("220417000", 2*time.Minute), position("220417000", time.Minute)}); err != nil {
		t.Fatal(err)
	}
	got, err := db.Vessel(ctx, "9321483")
	if want := position("220417000", 2*time.Minute); err != nil || got.Position == nil || !reflect.DeepEqual(*got.Position, want) {
		t.Fatalf("last position of one batch: %+v, %v; want %+v", got.Position, err, want)
	}
	// An older report arriving late does not move the vessel back.
	if err := db.SaveLastPositions(ctx, []boxwatch.VesselPosition{position("220417000", 0)}); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.Vessel(ctx, "9321483"); !got.Position.Timestamp.Equal(at(2 * time.Minute)) {
		t.Fatalf("a late report moved the vessel back to %v", got.Position.Timestamp)
	}
	if err := db.SaveLastPositions(ctx, []boxwatch.VesselPosition{position("220417000", 3*time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.Vessel(ctx, "9321483"); !got.Position.Timestamp.Equal(at(3 * time.Minute)) {
		t.Fatalf("a newer report did not move the vessel: %v", got.Position.Timestamp)
	}
	// Last positions are not the stored track.
	if ps, _ := db.VesselPositions(ctx, "220417000", base, at(time.Hour), 10); len(ps) != 0 {
		t.Fatalf("last positions leaked into the track: %+v", ps)
	}
}

func testDeletePositionsBefore(t *testing.T, db *store.DB) {
	var ps []boxwatch.VesselPosition
	for i := range 10 {
		ps = append(ps, position("220417000", time.Duration(i)*time.Hour))
	}
	if _, err := db.SavePositions(ctx, ps); err != nil {
		t.Fatal(err)
	}
	// In batches of three: three, then the fourth, then none.
	for _, want := range []int64{3, 1, 0} {
		n, err := db.DeletePositionsBefore(ctx, at(4*time.Hour), 3)
		if err != nil || n != want {
			t.Fatalf("deleted %d, %v; want %d", n, err, want)
		}
	}
	got, _ := db.VesselPositions(ctx, "220417000", base, at(24*time.Hour), 100)
	if len(got) != 6 || !got[0].Timestamp.Equal(at(4*time.Hour)) {
		t.Fatalf("after retention: %d positions from %v", len(got), got)
	}
}

func testActiveLegVessels(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	mustSaveVessel(t, db, boxwatch.Vessel{ID: boxwatch.VesselID("9321483"), IMO: "9321483", MMSI: "220417000"})
	mustSaveVessel(t, db, boxwatch.Vessel{ID: boxwatch.VesselID("9000001"), IMO: "9000001"})
	if err := db.SaveVesselIdentities(ctx, []boxwatch.VesselIdentity{{MMSI: "477000100", IMO: "9000001"}, {MMSI: "477000200", IMO: "9000003"},
		{MMSI: "477000400", IMO: "9000004"}, {MMSI: "477000500", IMO: "9000005"}, {MMSI: "477000600", IMO: "9000006"}}, base); err != nil {
		t.Fatal(err)
	}
	// Sailing on leg 1 (9321483), leg 2 booked on 9000001; a second shipment arrived on 9000002;
	// a third, stopped, on 9000003; a fourth arrived at its transshipment port (a time given in
	// the port's zone) on 9000004 and sails on 9000005, the vessel its last stop names outbound
	// (9000006) carrying it on no leg.
	sailing := mustCreateShipment(t, db, a.ID, "BL1", base)
	sailing.Route = []boxwatch.RouteStop{
		{Sequence: 1, LOCODE: "CNSHA", Role: boxwatch.RolePOL, ATD: at(time.Hour), OutboundVesselIMO: "9321483"},
		{Sequence: 2, LOCODE: "SGSIN", Role: boxwatch.RoleTS, InboundVesselIMO: "9321483", OutboundVesselIMO: "9000001"},
		{Sequence: 3, LOCODE: "NLRTM", Role: boxwatch.RolePOD, InboundVesselIMO: "9000001"},
	}
	arrived := mustCreateShipment(t, db, a.ID, "BL2", base)
	arrived.Route = []boxwatch.RouteStop{
		{Sequence: 1, LOCODE: "CNSHA", Role: boxwatch.RolePOL, ATD: at(time.Hour), OutboundVesselIMO: "9000002"},
		{Sequence: 2, LOCODE: "USLAX", Role: boxwatch.RolePOD, ATA: at(300 * time.Hour), InboundVesselIMO: "9000002"},
	}
	stopped := mustCreateShipment(t, db, a.ID, "BL3", base)
	stopped.Route = []boxwatch.RouteStop{
		{Sequence: 1, LOCODE: "CNSHA", Role: boxwatch.RolePOL, OutboundVesselIMO: "9000003"},
		{Sequence: 2, LOCODE: "USLAX", Role: boxwatch.RolePOD, InboundVesselIMO: "9000003"},
	}
	stopped.StoppedAt, stopped.StoppedReason = at(time.Hour), boxwatch.StopCancelledByUser
	mustCreateShipment(t, db, a.ID, "BL5", base) // not looked up yet: no route
	transshipped := mustCreateShipment(t, db, a.ID, "BL4", base)
	transshipped.Route = []boxwatch.RouteStop{
		{Sequence: 1, LOCODE: "CNSHA", Role: boxwatch.RolePOL, ATD: at(time.Hour), OutboundVesselIMO: "9000004"},
		{Sequence: 2, LOCODE: "SGSIN", Role: boxwatch.RoleTS, ATA: at(100 * time.Hour).In(time.FixedZone("SGT", 8*3600)),
			InboundVesselIMO: "9000004", OutboundVesselIMO: "9000005"},
		{Sequence: 3, LOCODE: "NLRTM", Role: boxwatch.RolePOD, InboundVesselIMO: "9000005", OutboundVesselIMO: "9000006"},
	}
	mustInTx(t, db, func(tx boxwatch.Tx) error {
		for _, s := range []boxwatch.Shipment{sailing, arrived, stopped, transshipped} {
			if err := tx.UpdateShipment(ctx, s); err != nil {
				return err
			}
		}
		return nil
	})
	got, err := db.ActiveLegVessels(ctx)
	want := map[string]string{"220417000": "9321483", "477000100": "9000001", "477000500": "9000005"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("active leg vessels %v, %v; want %v", got, err, want)
	}
}

// testSavePositionsConcurrent has replicas ingesting the same feed: each position is stored once.
func testSavePositionsConcurrent(t *testing.T, db *store.DB) {
	ps := make([]boxwatch.VesselPosition, 300)
	for i := range ps {
		ps[i] = position("220417000", time.Duration(i)*time.Second)
	}
	var wg sync.WaitGroup
	added := make([]int, 4)
	for w := range added {
		wg.Go(func() {
			for from := 0; from < len(ps); from += 50 {
				n, err := db.SavePositions(ctx, ps[from:from+50])
				if err != nil {
					t.Error(err)
					return
				}
				added[w] += n
			}
		})
	}
	wg.Wait()
	if sum := added[0] + added[1] + added[2] + added[3]; sum != len(ps) {
		t.Fatalf("replicas added %v positions in all, want %d", added, len(ps))
	}
}

// testPositionWritersConcurrent has replicas writing the same vessels' positions, last positions
// and identities in opposite orders at once: PostgreSQL would detect a deadlock if each locked the
// rows in the order it heard them, and the ingest would lose the batch.
func testPositionWritersConcurrent(t *testing.T, db *store.DB) {
	const vessels = 64
	batch := func(reverse bool, round int) ([]boxwatch.VesselPosition, []boxwatch.VesselIdentity) {
		var ps []boxwatch.VesselPosition
		var ids []boxwatch.VesselIdentity
		for i := range vessels {
			if reverse {
				i = vessels - 1 - i
			}
			mmsi := fmt.Sprintf("2204%05d", i)
			ps = append(ps, position(mmsi, time.Duration(round)*time.Second))
			ids = append(ids, boxwatch.VesselIdentity{MMSI: mmsi, Name: fmt.Sprintf("VESSEL %d", round)})
		}
		return ps, ids
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for round := range 20 {
				ps, ids := batch(w%2 == 1, round)
				if _, err := db.SavePositions(ctx, ps); err != nil {
					t.Errorf("save positions: %v", err)
					return
				}
				if err := db.SaveLastPositions(ctx, ps); err != nil {
					t.Errorf("save last positions: %v", err)
					return
				}
				if err := db.SaveVesselIdentities(ctx, ids, time.Now()); err != nil {
					t.Errorf("save identities: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// testVesselArrivals reads the arrivals of every account's routes: each call once (the departure
// from whichever route knows it), within the window, the latest first, up to the limit.
func testVesselArrivals(t *testing.T, db *store.DB) {
	acme, initech := MustCreateAccount(t, db, "acme"), MustCreateAccount(t, db, "initech")
	route := func(s boxwatch.Shipment, stops ...boxwatch.RouteStop) boxwatch.Shipment {
		s.Route, s.UpdatedAt = stops, at(500*time.Hour)
		return s
	}
	// Two accounts' shipments on the call of 9321483 at SGSIN (one route knows the departure),
	// which then sails on to NLRTM; 9000002 at USLAX long ago; a leg with no vessel named; a
	// stop not reached; a shipment not updated since the window opened.
	shipments := []boxwatch.Shipment{
		route(mustCreateShipment(t, db, acme.ID, "BL1", base),
			boxwatch.RouteStop{Sequence: 1, LOCODE: "CNSHA", Role: boxwatch.RolePOL, ATD: at(time.Hour), OutboundVesselIMO: "9321483"},
			boxwatch.RouteStop{Sequence: 2, LOCODE: "SGSIN", Role: boxwatch.RoleTS, ATA: at(150 * time.Hour), ATD: at(160 * time.Hour), InboundVesselIMO: "9321483", OutboundVesselIMO: "9321483"},
			boxwatch.RouteStop{Sequence: 3, LOCODE: "NLRTM", Role: boxwatch.RolePOD, ATA: at(450 * time.Hour), InboundVesselIMO: "9321483"}),
		route(mustCreateShipment(t, db, initech.ID, "BL2", base),
			boxwatch.RouteStop{Sequence: 1, LOCODE: "CNSHA", Role: boxwatch.RolePOL, OutboundVesselIMO: "9321483"},
			boxwatch.RouteStop{Sequence: 2, LOCODE: "SGSIN", Role: boxwatch.RolePOD, ATA: at(150 * time.Hour), InboundVesselIMO: "9321483"}),
		route(mustCreateShipment(t, db, acme.ID, "BL3", base),
			boxwatch.RouteStop{Sequence: 1, LOCODE: "CNSHA", Role: boxwatch.RolePOL, ATD: at(-900 * time.Hour), OutboundVesselIMO: "9000002"},
			boxwatch.RouteStop{Sequence: 2, LOCODE: "USLAX", Role: boxwatch.RolePOD, ATA: at(-600 * time.Hour), InboundVesselIMO: "9000002"}),
		route(mustCreateShipment(t, db, acme.ID, "BL4", base),
			boxwatch.RouteStop{Sequence: 1, LOCODE: "CNSHA", Role: boxwatch.RolePOL, ATD: at(time.Hour)},
			boxwatch.RouteStop{Sequence: 2, LOCODE: "USLAX", Role: boxwatch.RolePOD, ATA: at(300 * time.Hour)}),
		route(mustCreateShipment(t, db, initech.ID, "BL5", base),
			boxwatch.RouteStop{Sequence: 1, LOCODE: "CNSHA", Role: boxwatch.RolePOL, ATD: at(time.Hour), OutboundVesselIMO: "9000004"},
			boxwatch.RouteStop{Sequence: 2, LOCODE: "USLAX", Role: boxwatch.RolePOD, InboundVesselIMO: "9000004"}),
	}
	old := route(mustCreateShipment(t, db, acme.ID, "BL6", base),
		boxwatch.RouteStop{Sequence: 1, LOCODE: "CNSHA", Role: boxwatch.RolePOL, ATD: at(time.Hour), OutboundVesselIMO: "9000005"},
		boxwatch.RouteStop{Sequence: 2, LOCODE: "USLAX", Role: boxwatch.RolePOD, ATA: at(200 * time.Hour), InboundVesselIMO: "9000005"})
	old.UpdatedAt = at(-700 * time.Hour)
	mustInTx(t, db, func(tx boxwatch.Tx) error {
		for _, s := range append(shipments, old) {
			if err := tx.UpdateShipment(ctx, s); err != nil {
				return err
			}
		}
		return nil
	})
	sgsin := boxwatch.VesselArrival{VesselIMO: "9321483", LOCODE: "SGSIN", Departed: at(time.Hour), Arrived: at(150 * time.Hour)}
	nlrtm := boxwatch.VesselArrival{VesselIMO: "9321483", LOCODE: "NLRTM", Departed: at(160 * time.Hour), Arrived: at(450 * time.Hour)}
	lax := boxwatch.VesselArrival{VesselIMO: "9000002", LOCODE: "USLAX", Departed: at(-900 * time.Hour), Arrived: at(-600 * time.Hour)}
	// The last shipment's arrival counts only in a window opening before it was last updated.
	late := boxwatch.VesselArrival{VesselIMO: "9000005", LOCODE: "USLAX", Departed: at(time.Hour), Arrived: at(200 * time.Hour)}
	for _, tc := range []struct {
		since, until time.Time
		limit        int
		want         []boxwatch.VesselArrival
	}{
		{at(-1000 * time.Hour), at(1000 * time.Hour), 10, []boxwatch.VesselArrival{nlrtm, late, sgsin, lax}},
		{at(0), at(1000 * time.Hour), 10, []boxwatch.VesselArrival{nlrtm, sgsin}},
		{at(0), at(450 * time.Hour), 10, []boxwatch.VesselArrival{sgsin}},
		{at(-1000 * time.Hour), at(1000 * time.Hour), 2, []boxwatch.VesselArrival{nlrtm, late}},
		{at(-1000 * time.Hour), at(1000 * time.Hour), 0, []boxwatch.VesselArrival{}},
		{at(600 * time.Hour), at(1000 * time.Hour), 10, []boxwatch.VesselArrival{}},
	} {
		got, err := db.VesselArrivals(ctx, tc.since, tc.until, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			got[i].Departed, got[i].Arrived = got[i].Departed.UTC(), got[i].Arrived.UTC()
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("arrivals in [%v, %v) limit %d:\n got %+v\nwant %+v", tc.since, tc.until, tc.limit, got, tc.want)
		}
	}
}

// voyage is a route from CNSHA to NLRTM through SGSIN on the vessels given, the first leg
// arrived when arrivedFirst, the second when arrivedSecond.
func voyage(first, second string, arrivedFirst, arrivedSecond bool) []boxwatch.RouteStop {
	r := []boxwatch.RouteStop{
		{Sequence: 1, LOCODE: "CNSHA", Role: boxwatch.RolePOL, ATD: at(time.Hour), OutboundVesselIMO: first},
		{Sequence: 2, LOCODE: "SGSIN", Role: boxwatch.RoleTS, InboundVesselIMO: first, OutboundVesselIMO: second},
		{Sequence: 3, LOCODE: "NLRTM", Role: boxwatch.RolePOD, InboundVesselIMO: second},
	}
	if arrivedFirst {
		r[1].ATA = at(100 * time.Hour)
	}
	if arrivedSecond {
		r[2].ATA = at(300 * time.Hour)
	}
	return r
}

func mustUpdateShipments(t testing.TB, db *store.DB, ss ...boxwatch.Shipment) {
	t.Helper()
	mustInTx(t, db, func(tx boxwatch.Tx) error {
		for _, s := range ss {
			if err := tx.UpdateShipment(ctx, s); err != nil {
				return err
			}
		}
		return nil
	})
}

func wantActiveLegVessels(t testing.TB, db *store.DB, when string, want map[string]string) {
	t.Helper()
	got, err := db.ActiveLegVessels(ctx)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: active leg vessels %v, %v; want %v", when, got, err, want)
	}
}

// testActiveLegVesselsArrivals: a vessel leaves the answer when the leg it carries arrives, and
// comes back if the carrier takes the arrival back.
func testActiveLegVesselsArrivals(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	mustSaveVessel(t, db, boxwatch.Vessel{ID: boxwatch.VesselID("9000001"), IMO: "9000001", MMSI: "477000100"})
	mustSaveVessel(t, db, boxwatch.Vessel{ID: boxwatch.VesselID("9000002"), IMO: "9000002", MMSI: "477000200"})
	s := mustCreateShipment(t, db, a.ID, "BL1", base)
	wantActiveLegVessels(t, db, "before the first lookup", map[string]string{})
	s.Route = voyage("9000001", "9000002", false, false)
	mustUpdateShipments(t, db, s)
	wantActiveLegVessels(t, db, "sailing", map[string]string{"477000100": "9000001", "477000200": "9000002"})
	s.Route = voyage("9000001", "9000002", true, false)
	mustUpdateShipments(t, db, s)
	wantActiveLegVessels(t, db, "at the transshipment port", map[string]string{"477000200": "9000002"})
	s.Route = voyage("9000001", "9000002", true, true)
	mustUpdateShipments(t, db, s)
	wantActiveLegVessels(t, db, "arrived", map[string]string{})
	s.Route = voyage("9000001", "9000002", true, false)
	mustUpdateShipments(t, db, s)
	wantActiveLegVessels(t, db, "the arrival taken back", map[string]string{"477000200": "9000002"})
	// A new second vessel replaces the one the leg had.
	s.Route = voyage("9000001", "9000001", true, false)
	mustUpdateShipments(t, db, s)
	wantActiveLegVessels(t, db, "the second leg on another vessel", map[string]string{"477000100": "9000001"})
}

// testActiveLegVesselsStoppedOrDeleted: the vessels of a shipment whose tracking stopped, or
// which is deleted (with its request), leave the answer; resumed, they come back.
func testActiveLegVesselsStoppedOrDeleted(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	mustSaveVessel(t, db, boxwatch.Vessel{ID: boxwatch.VesselID("9000001"), IMO: "9000001", MMSI: "477000100"})
	mustSaveVessel(t, db, boxwatch.Vessel{ID: boxwatch.VesselID("9000002"), IMO: "9000002", MMSI: "477000200"})
	stopped := mustCreateShipment(t, db, a.ID, "BL1", base)
	stopped.Route = voyage("9000001", "9000001", false, false)
	deleted := mustCreateShipment(t, db, a.ID, "BL2", base)
	deleted.Route = voyage("9000002", "9000002", false, false)
	mustUpdateShipments(t, db, stopped, deleted)
	wantActiveLegVessels(t, db, "both tracked", map[string]string{"477000100": "9000001", "477000200": "9000002"})
	stopped.StoppedAt, stopped.StoppedReason = at(time.Hour), boxwatch.StopCancelledByUser
	mustUpdateShipments(t, db, stopped)
	wantActiveLegVessels(t, db, "one stopped", map[string]string{"477000200": "9000002"})
	rawExec(t, db, "DELETE FROM tracking_requests WHERE id = ?", deleted.TrackingRequestID)
	wantActiveLegVessels(t, db, "the other deleted", map[string]string{})
	stopped.StoppedAt, stopped.StoppedReason = time.Time{}, ""
	mustUpdateShipments(t, db, stopped)
	wantActiveLegVessels(t, db, "resumed", map[string]string{"477000100": "9000001"})

	// A shipment created stopped (its journey over at the first answer) has none.
	tr := newTR(a.ID, "BL3", "MSCU", base)
	tr.Status = boxwatch.StatusCreated
	over := newShipment(tr, base)
	over.Route = voyage("9000002", "9000002", false, false)
	over.StoppedAt, over.StoppedReason = base, boxwatch.StopCancelledByUser
	tr.ShipmentID = over.ID
	mustInTx(t, db, func(tx boxwatch.Tx) error {
		if err := tx.CreateTrackingRequest(ctx, tr); err != nil {
			return err
		}
		return tx.InsertShipment(ctx, over)
	})
	wantActiveLegVessels(t, db, "a shipment created stopped", map[string]string{"477000100": "9000001"})
}

// testActiveLegVesselsSharedVessel: a vessel carrying many shipments stays in the answer, once,
// until the last of its legs arrives or stops.
func testActiveLegVesselsSharedVessel(t *testing.T, db *store.DB) {
	a := MustCreateAccount(t, db, "acme")
	mustSaveVessel(t, db, boxwatch.Vessel{ID: boxwatch.VesselID("9000001"), IMO: "9000001"})
	if err := db.SaveVesselIdentities(ctx, []boxwatch.VesselIdentity{{MMSI: "477000100", IMO: "9000001"}}, base); err != nil {
		t.Fatal(err)
	}
	const n = 20
	ships := make([]boxwatch.Shipment, n)
	for i := range ships {
		ships[i] = mustCreateShipment(t, db, a.ID, fmt.Sprintf("BL%02d", i), base)
		ships[i].Route = voyage("9000001", "9000009", false, false)
	}
	mustUpdateShipments(t, db, ships...)
	want := map[string]string{"477000100": "9000001"}
	wantActiveLegVessels(t, db, "every shipment on board", want)
	for i := range n - 1 {
		if i%2 == 0 {
			ships[i].Route = voyage("9000001", "9000009", true, false)
		} else {
			ships[i].StoppedAt, ships[i].StoppedReason = at(time.Hour), boxwatch.StopCancelledByUser
		}
		mustUpdateShipments(t, db, ships[i])
		wantActiveLegVessels(t, db, fmt.Sprintf("%d of %d arrived or stopped", i+1, n), want)
	}
	ships[n-1].Route = voyage("9000001", "9000009", true, false)
	mustUpdateShipments(t, db, ships[n-1])
	wantActiveLegVessels(t, db, "the last arrived", map[string]string{})
}

// testIdentitiesBesideLookups has AIS ingest teaching vessels their MMSIs while lookups write the
// same vessels, in IMO order as the tracking engine does: each identity batch updates the vessels
// it names, which PostgreSQL would lock in the table's order (here the reverse, the vessels stored
// last first) and deadlock with a lookup holding the first of them.
func testIdentitiesBesideLookups(t *testing.T, db *store.DB) {
	const vessels, rounds = 40, 10
	imo := func(round, i int) string { return fmt.Sprintf("9%02d%04d", round, i) }
	for round := range rounds {
		// Stored last first: the table holds them in descending IMO order.
		mustInTx(t, db, func(tx boxwatch.Tx) error {
			for i := vessels - 1; i >= 0; i-- {
				if err := tx.SaveVessel(ctx, boxwatch.Vessel{ID: boxwatch.VesselID(imo(round, i)), IMO: imo(round, i)}, base); err != nil {
					return err
				}
			}
			return nil
		})
		var ids []boxwatch.VesselIdentity
		for i := range vessels {
			ids = append(ids, boxwatch.VesselIdentity{MMSI: fmt.Sprintf("47%02d%05d", round, i), IMO: imo(round, i)})
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make([]error, 4)
		for w := range errs {
			wg.Go(func() {
				<-start
				if w%2 == 0 {
					errs[w] = db.SaveVesselIdentities(ctx, ids, base)
					return
				}
				errs[w] = db.InTx(ctx, func(tx boxwatch.Tx) error {
					for i := range vessels {
						if err := tx.SaveVessel(ctx, boxwatch.Vessel{ID: boxwatch.VesselID(imo(round, i)), IMO: imo(round, i),
							Name: fmt.Sprintf("VESSEL %d", i)}, base); err != nil {
							return err
						}
					}
					return nil
				})
			})
		}
		close(start)
		wg.Wait()
		for w, err := range errs {
			if err != nil {
				t.Fatalf("round %d, writer %d: %v", round, w, err)
			}
		}
		if v, err := db.Vessel(ctx, imo(round, vessels-1)); err != nil || v.MMSI == "" || v.Name == "" {
			t.Fatalf("round %d: last vessel %+v, %v", round, v, err)
		}
	}
}
