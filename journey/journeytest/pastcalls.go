package journeytest

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// Rotterdam's anchorage, 8 nm west of the port, and a point in the Suez Canal's queue.
var (
	RotterdamAnchorage = [2]float64{51.955, 4.05 - 8/(60*math.Cos(51.955*math.Pi/180))}
	SuezQueue          = [2]float64{30.5, 32.35}
)

// PastCall is a vessel that arrived at Rotterdam at ATA from Singapore: it queued SuezWait at Suez
// on the way and waited PortWait at the anchorage before berthing.
type PastCall struct {
	IMO, MMSI          string
	ATA                time.Time
	SuezWait, PortWait time.Duration
}

// Positions are the call's AIS positions, every 30 minutes over its last 12 days.
func (c PastCall) Positions() []boxwatch.VesselPosition {
	var out []boxwatch.VesselPosition
	add := func(at time.Time, p [2]float64, knots float64) {
		out = append(out, boxwatch.VesselPosition{MMSI: c.MMSI, Latitude: p[0], Longitude: p[1], SpeedKnots: &knots, Timestamp: at})
	}
	step := 30 * time.Minute
	t := c.ATA.Add(-12 * 24 * time.Hour)
	for i := 0; i < 12; i++ { // up the Red Sea
		add(t, [2]float64{27 + float64(i)*0.2, 33.5}, 15)
		t = t.Add(step)
	}
	for end := t.Add(c.SuezWait); t.Before(end); t = t.Add(step) {
		add(t, SuezQueue, 0)
	}
	for i := 0; t.Before(c.ATA.Add(-c.PortWait)); i++ { // across the Mediterranean and up to the North Sea
		add(t, [2]float64{36 + float64(i%200)*0.05, 20 - float64(i%200)*0.1}, 16)
		t = t.Add(step)
	}
	for ; t.Before(c.ATA); t = t.Add(step) {
		add(t, RotterdamAnchorage, 0)
	}
	return out
}

// MustSeedPastCalls stores the calls: each vessel, its positions, and shipments of two accounts
// (acme-history, initech-history; numbers HIST000000000 on) whose routes record its arrival, the
// first call twice, as two lines' customers book on the same vessel. The shipments were last
// updated an hour after the arrival, and stopped a day after it.
func MustSeedPastCalls(t testing.TB, db *store.DB, calls []PastCall) {
	t.Helper()
	acme := storetest.MustCreateAccount(t, db, "acme-history").ID
	other := storetest.MustCreateAccount(t, db, "initech-history").ID
	for i, c := range calls {
		route := []boxwatch.RouteStop{
			Stop(1, "SGSIN", boxwatch.RolePOL, time.Time{}, time.Time{}, c.ATA.Add(-20*24*time.Hour), c.ATA.Add(-20*24*time.Hour), "", c.IMO),
			Stop(2, "NLRTM", boxwatch.RolePOD, c.ATA.Add(-2*24*time.Hour), c.ATA, time.Time{}, time.Time{}, c.IMO, ""),
		}
		v := Vessel{IMO: c.IMO, MMSI: c.MMSI, NoPosition: true}
		accounts := []string{acme}
		if i == 0 {
			accounts = append(accounts, other)
		}
		for _, a := range accounts {
			number := fmt.Sprintf("HIST%09d", i)
			MustSeed(t, db, a, number, route, c.ATA.Add(24*time.Hour), v)
			// Last updated by the lookup that recorded the arrival.
			err := db.InTx(context.Background(), func(tx boxwatch.Tx) error {
				s, err := tx.LockShipment(context.Background(), boxwatch.NameUUID("s/"+a+number))
				if err != nil {
					return err
				}
				s.UpdatedAt = c.ATA.Add(time.Hour)
				return tx.UpdateShipment(context.Background(), s)
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.SavePositions(context.Background(), c.Positions()); err != nil {
			t.Fatal(err)
		}
	}
}
