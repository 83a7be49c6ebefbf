// Package journeytest seeds journeys for tests: shipments with a route over real ports, their
// vessels, and AIS tracks sailed along the sea router's paths, stored in a real database; and it
// builds the journey engine over that database as serve does.
package journeytest

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/journey"
	"github.com/boxwatch/boxwatch/searoute"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// Config is the engine's configuration over db as serve builds it: the shipped ports and sea
// network, the default cache bounds, and the time from clock (nil: the system clock).
func Config(db *store.DB, clock boxwatch.Clock) journey.Config {
	return journey.Config{Shipments: db, Containers: db, Vessels: db, Positions: db, Ports: data.Ports(), Sea: data.SeaNetwork(), Waterways: data.Waterways(),
		Clock: clock, MapCacheBytes: journey.DefaultMapCacheBytes, RouteCacheBytes: journey.DefaultRouteCacheBytes,
		TrackCacheBytes: journey.DefaultTrackCacheBytes, LearnedCacheBytes: journey.DefaultLearnedCacheBytes}
}

// New returns the engine of Config(db, clock).
func New(t testing.TB, db *store.DB, clock boxwatch.Clock) *journey.Engine {
	t.Helper()
	e, err := journey.New(Config(db, clock))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// Clock is a clock a test sets to each moment of a journey.
type Clock struct{ t atomic.Int64 }

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) { c.t.Store(t.UnixNano()) }

// Now returns the time set last.
func (c *Clock) Now() time.Time { return time.Unix(0, c.t.Load()).UTC() }

// T0 is day 0 of the test journeys.
var T0 = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

// Day is d days after T0.
func Day(d float64) time.Time { return T0.Add(time.Duration(d * 24 * float64(time.Hour))) }

// IMO makes a valid IMO number from six digits (the seventh is the check digit).
func IMO(six int) string {
	s := fmt.Sprintf("%06d", six)
	sum := 0
	for i := range 6 {
		sum += int(s[i]-'0') * (7 - i)
	}
	return s + fmt.Sprint(sum%10)
}

// Vessel is a vessel of a test journey and the AIS it broadcast: positions every Step (five
// minutes when zero) along the sea route from From to To (UN/LOCODEs), at Knots from Departed
// until UpTo (zero: none stored).
type Vessel struct {
	IMO, MMSI  string
	From, To   string
	Departed   time.Time
	Knots      float64
	UpTo       time.Time
	LastOnly   bool // only the latest position is known, no track
	NoPosition bool // the MMSI is known, no position
	Step       time.Duration
}

// Sail returns the positions of v along the sea path.
func Sail(t testing.TB, v Vessel) []boxwatch.VesselPosition {
	t.Helper()
	a, _ := data.Ports().ByLOCODE(v.From)
	b, _ := data.Ports().ByLOCODE(v.To)
	path, err := data.SeaNetwork().Route(geo.Point{Lat: a.Latitude, Lon: a.Longitude}, geo.Point{Lat: b.Latitude, Lon: b.Longitude}, searoute.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []boxwatch.VesselPosition
	pts := path.Points
	seg, done := 1, 0.0 // segment index, nm into it
	speed := v.Knots
	step := v.Step
	if step == 0 {
		step = 5 * time.Minute
	}
	for at := v.Departed; at.Before(v.UpTo) && seg < len(pts); at = at.Add(step) {
		p := geo.Intermediate(pts[seg-1], pts[seg], math.Min(1, done/math.Max(geo.DistanceNM(pts[seg-1], pts[seg]), 1e-9)))
		heading := math.Round(geo.Bearing(pts[seg-1], pts[seg]))
		out = append(out, boxwatch.VesselPosition{MMSI: v.MMSI, Latitude: p.Lat, Longitude: p.Lon, SpeedKnots: &speed,
			HeadingDegrees: &heading, Timestamp: at})
		done += v.Knots * step.Hours()
		for seg < len(pts) && done >= geo.DistanceNM(pts[seg-1], pts[seg]) {
			done -= geo.DistanceNM(pts[seg-1], pts[seg])
			seg++
		}
	}
	return out
}

// MustSeed stores a shipment with route and one container for the account, its vessels and their
// AIS, and returns the container's id. Ids are derived from the account and number: the
// shipment's is boxwatch.NameUUID("s/" + accountID + number).
func MustSeed(t testing.TB, db *store.DB, accountID, number string, route []boxwatch.RouteStop, stopped time.Time, vessels ...Vessel) string {
	t.Helper()
	ctx := context.Background()
	created := T0.Add(-72 * time.Hour)
	var containerID string
	err := db.InTx(ctx, func(tx boxwatch.Tx) error {
		tr := boxwatch.TrackingRequest{ID: boxwatch.NameUUID("tr/" + accountID + number), AccountID: accountID, RequestType: boxwatch.RequestBillOfLading,
			RequestNumber: number, SCAC: "MAEU", RefNumbers: []string{}, ShipmentTags: []string{},
			Status: boxwatch.StatusPending, CreatedAt: created, UpdatedAt: created}
		if err := tx.CreateTrackingRequest(ctx, tr); err != nil {
			return err
		}
		s := boxwatch.Shipment{ID: boxwatch.NameUUID("s/" + accountID + number), AccountID: accountID, TrackingRequestID: tr.ID, SCAC: "MAEU",
			BillOfLading: number, RefNumbers: []string{}, Tags: []string{}, CreatedAt: created, UpdatedAt: created.Add(time.Hour),
			Route: route, StoppedAt: stopped}
		if !stopped.IsZero() {
			s.StoppedReason = boxwatch.StopAllContainersTerminated
		}
		if err := tx.InsertShipment(ctx, s); err != nil {
			return err
		}
		tr.Status, tr.ShipmentID = boxwatch.StatusCreated, s.ID
		if err := tx.SaveTrackingRequestState(ctx, tr); err != nil {
			return err
		}
		c := boxwatch.Container{ID: boxwatch.NameUUID("c/" + accountID + number), AccountID: accountID, ShipmentID: s.ID,
			Number: "MSKU" + number[len(number)-7:], CurrentStatus: boxwatch.ContainerOnShip, CreatedAt: created, UpdatedAt: created}
		containerID = c.ID
		if err := tx.SaveContainer(ctx, c); err != nil {
			return err
		}
		for _, v := range vessels {
			if err := tx.SaveVessel(ctx, boxwatch.Vessel{ID: boxwatch.VesselID(v.IMO), IMO: v.IMO, Name: "VESSEL " + v.IMO}, created); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vessels {
		if v.MMSI == "" {
			continue
		}
		if err := db.SaveVesselIdentities(ctx, []boxwatch.VesselIdentity{{MMSI: v.MMSI, IMO: v.IMO}}, created); err != nil {
			t.Fatal(err)
		}
		if v.NoPosition {
			continue
		}
		MustSail(t, db, v, v.LastOnly)
	}
	return containerID
}

// MustSail stores the positions of v (only its latest when lastOnly) and its latest position.
func MustSail(t testing.TB, db *store.DB, v Vessel, lastOnly bool) {
	t.Helper()
	ps := Sail(t, v)
	if len(ps) == 0 {
		return
	}
	if !lastOnly {
		if _, err := db.SavePositions(context.Background(), ps); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.SaveLastPositions(context.Background(), ps[len(ps)-1:]); err != nil {
		t.Fatal(err)
	}
}

// Stop is a route stop; the voyages are derived from the vessels' IMO numbers.
func Stop(seq int, locode, role string, eta, ata, etd, atd time.Time, inIMO, outIMO string) boxwatch.RouteStop {
	return boxwatch.RouteStop{Sequence: seq, LOCODE: locode, Role: role, ETA: eta, ATA: ata, ETD: etd, ATD: atd,
		InboundVesselIMO: inIMO, OutboundVesselIMO: outIMO, InboundVoyage: voyageOf(inIMO), OutboundVoyage: voyageOf(outIMO)}
}

func voyageOf(imo string) string {
	if imo == "" {
		return ""
	}
	return "V" + imo[:3] + "W"
}

// AsiaEurope is the route Shanghai → Singapore (TS1) → Rotterdam on vessel a then vessel b, with
// the actual times given (zero: not yet).
func AsiaEurope(polATD, tsATA, tsATD, podATA time.Time) func(a, b string) []boxwatch.RouteStop {
	var z time.Time
	return func(a, b string) []boxwatch.RouteStop {
		return []boxwatch.RouteStop{
			Stop(1, "CNSHA", boxwatch.RolePOL, z, z, Day(1), polATD, "", a),
			Stop(2, "SGSIN", boxwatch.RoleTS, Day(6.5), tsATA, Day(9), tsATD, a, b),
			Stop(3, "NLRTM", boxwatch.RolePOD, Day(29), podATA, z, z, b, ""),
		}
	}
}

// AsiaEuropeVessels are AsiaEurope's vessels: a sails from day 1 at 18 knots with positions up to
// upToA, b from day 9 at 17.5 knots up to upToB.
func AsiaEuropeVessels(upToA, upToB time.Time) func(a, b string) []Vessel {
	return func(a, b string) []Vessel {
		vs := []Vessel{{IMO: a, MMSI: "2" + a[:7] + "1", From: "CNSHA", To: "SGSIN", Departed: Day(1), Knots: 18, UpTo: upToA}}
		return append(vs, Vessel{IMO: b, MMSI: "2" + b[:7] + "2", From: "SGSIN", To: "NLRTM", Departed: Day(9), Knots: 17.5, UpTo: upToB})
	}
}

// SeedThreeLegs stores ThreeLegs in db as the container BENCH00000001 of a new account "acme"
// with every feature, and returns them with a clock at the last position.
func SeedThreeLegs(t testing.TB, db *store.DB) (accountID, containerID string, clock *Clock) {
	t.Helper()
	route, vessels, n := ThreeLegs(t)
	if n != 20_000 {
		t.Fatalf("%d positions, want 20,000", n)
	}
	clock = &Clock{}
	clock.Set(vessels[2].UpTo)
	acct := storetest.MustCreateAccount(t, db, "acme", boxwatch.Features...)
	return acct.ID, MustSeed(t, db, acct.ID, "BENCH00000001", route, time.Time{}, vessels...), clock
}

// ThreeLegs is Shanghai → Singapore → Colombo → Rotterdam, at sea on the last leg, with AIS
// positions one a minute: the first two legs whole, the third as far as makes 20,000 in all, the
// number it returns. The benchmarks of the map draw it.
func ThreeLegs(t testing.TB) (route []boxwatch.RouteStop, vessels []Vessel, positions int) {
	a, c, d := IMO(950000), IMO(950001), IMO(950002)
	v1 := Vessel{IMO: a, MMSI: "4" + a[:7] + "1", From: "CNSHA", To: "SGSIN", Departed: Day(1), Knots: 18, UpTo: Day(30), Step: time.Minute}
	v2 := Vessel{IMO: c, MMSI: "4" + c[:7] + "2", From: "SGSIN", To: "LKCMB", Departed: Day(9), Knots: 18, UpTo: Day(30), Step: time.Minute}
	p1, p2 := Sail(t, v1), Sail(t, v2)
	ata1, ata2 := p1[len(p1)-1].Timestamp.Add(time.Hour), p2[len(p2)-1].Timestamp.Add(time.Hour)
	v3 := Vessel{IMO: d, MMSI: "4" + d[:7] + "3", From: "LKCMB", To: "NLRTM", Departed: Day(15), Knots: 18, Step: time.Minute}
	v3.UpTo = v3.Departed.Add(time.Duration(20_000-len(p1)-len(p2)) * time.Minute)
	var z time.Time
	route = []boxwatch.RouteStop{
		Stop(1, "CNSHA", boxwatch.RolePOL, z, z, Day(1), Day(1), "", a),
		Stop(2, "SGSIN", boxwatch.RoleTS, Day(6.5), ata1, Day(9), Day(9), a, c),
		Stop(3, "LKCMB", boxwatch.RoleTS, Day(13), ata2, Day(15), Day(15), c, d),
		Stop(4, "NLRTM", boxwatch.RolePOD, Day(30), z, z, z, d, ""),
	}
	return route, []Vessel{v1, v2, v3}, len(p1) + len(p2) + len(Sail(t, v3))
}

// MustSeedInland gives the shipment and container MustSeed stored for number an inland leg: the
// shipment's destination and the container's inland times.
func MustSeedInland(t testing.TB, db *store.DB, accountID, number string, dest boxwatch.Destination, inland boxwatch.ContainerInland) {
	t.Helper()
	ctx := context.Background()
	err := db.InTx(ctx, func(tx boxwatch.Tx) error {
		s, err := db.Shipment(ctx, accountID, boxwatch.NameUUID("s/"+accountID+number))
		if err != nil {
			return err
		}
		s.Destination = &dest
		if err := tx.UpdateShipment(ctx, s); err != nil {
			return err
		}
		c, err := db.Container(ctx, accountID, boxwatch.NameUUID("c/"+accountID+number))
		if err != nil {
			return err
		}
		inland.DestinationLOCODE = dest.LOCODE
		c.Inland = inland
		return tx.SaveContainer(ctx, c)
	})
	if err != nil {
		t.Fatal(err)
	}
}
