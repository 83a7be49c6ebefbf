package sim_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/carrier/sim"
)

// TestGoneNumbers: a number ending in 4100 gets 410 Gone, whatever it is looked up by.
func TestGoneNumbers(t *testing.T) {
	n := newTestNetwork(t)
	for _, path := range []string{
		eventsPath("MAEU", "transportDocumentReference", "254314100"),
		eventsPath("MAEU", "carrierBookingReference", "254314100"),
		eventsPath("MSCU", "equipmentReference", containerEnding(t, "MSCU", "4100")),
	} {
		a := n.get(t, path)
		if a.status != http.StatusGone {
			t.Fatalf("%s: status %d, want 410", path, a.status)
		}
		mustErrorBody(t, a, http.StatusGone)
	}
}

// TestSilentNumbers: a number ending in 5030 is answered once, placed by the digit before the
// marker, and the carrier is unreachable for it from then on.
func TestSilentNumbers(t *testing.T) {
	n := newTestNetwork(t, func(o *sim.Options) { o.RetryAfter = 90 * time.Second })
	path := eventsPath("MAEU", "transportDocumentReference", "254345030")
	v := newView(t, n.get(t, path).events(t))
	atSeaFirstLeg(t, v, n.clock.Now())
	for range 3 {
		n.clock.Advance(6 * time.Hour)
		a := n.get(t, path)
		if a.status != http.StatusServiceUnavailable || a.header.Get("Retry-After") != "90" {
			t.Fatalf("a later lookup: status %d, Retry-After %q; want 503 with 90", a.status, a.header.Get("Retry-After"))
		}
	}
}

// TestCancelledBookings: a bill or booking ending in 7710 is cancelled before its first lookup,
// one ending in 7720 a few hours after it; no box is picked up for either.
func TestCancelledBookings(t *testing.T) {
	n := newTestNetwork(t)
	cancelled := n.mustEvents(t, "CMDU", "CMDUSHZ7710")
	v := newView(t, cancelled)
	if !v.shipment("RECE") || !v.shipment("CONF") || !v.shipment("CANC") || len(v.containers) != 0 {
		t.Fatalf("cancelled before the lookup: RECE %v, CONF %v, CANC %v, containers %v",
			v.shipment("RECE"), v.shipment("CONF"), v.shipment("CANC"), v.containers)
	}
	for _, e := range cancelled {
		if e.ShipmentEventTypeCode == "CANC" && (e.DocumentTypeCode != "BKG" || e.DocumentID != "CMDUSHZ7710" || !mustTime(t, e.EventDateTime).Before(n.clock.Now())) {
			t.Errorf("cancellation %+v, want the booking's, before now", e)
		}
	}

	path := eventsPath("CMDU", "carrierBookingReference", "CMDUSHZ7720")
	v = newView(t, n.get(t, path).events(t))
	if v.shipment("CANC") || !v.shipment("CONF") {
		t.Fatalf("cancels later: at the first lookup CANC %v, CONF %v", v.shipment("CANC"), v.shipment("CONF"))
	}
	n.clock.Advance(24 * time.Hour)
	v = newView(t, n.get(t, path).events(t))
	if !v.shipment("CANC") || len(v.containers) != 0 {
		t.Fatalf("a day later: CANC %v, containers %v", v.shipment("CANC"), v.containers)
	}
}

// TestJourneysThatNeverEnd: a number ending in 7730 was picked up 30 days before its first
// lookup and its empties never come back; one ending in 7740 arrived 60 days before and its
// boxes are never picked up.
func TestJourneysThatNeverEnd(t *testing.T) {
	n := newTestNetwork(t)
	now := n.clock.Now()
	for _, number := range []string{"254317730", containerEnding(t, "MSKU", "7730")} {
		v := newView(t, n.mustEvents(t, "MAEU", number))
		if !v.actual("GTOT", v.pod()) || !v.none("GTIN", v.last) {
			t.Errorf("%s: picked up %v, returned %v", number, v.actual("GTOT", v.pod()), !v.none("GTIN", v.last))
		}
		for _, e := range v.events {
			if e.EquipmentEventTypeCode == "GTOT" && e.TransportCall != nil && *e.TransportCall.TransportCallSequenceNumber == v.pod() &&
				now.Sub(mustTime(t, e.EventDateTime)) < 29*24*time.Hour {
				t.Errorf("%s: picked up at %s, less than 30 days before %s", number, e.EventDateTime, now)
			}
		}
	}
	for _, number := range []string{"254317740", containerEnding(t, "MSKU", "7740")} {
		v := newView(t, n.mustEvents(t, "MAEU", number))
		if !v.actual("ARRI", v.pod()) || !v.actual("DISC", v.pod()) || !v.none("GTOT", v.pod()) || !v.none("GTIN", v.last) {
			t.Errorf("%s: want discharged and never picked up", number)
		}
		for _, e := range v.events {
			if e.TransportEventTypeCode == "ARRI" && e.EventClassifierCode == "ACT" && *e.TransportCall.TransportCallSequenceNumber == v.pod() &&
				now.Sub(mustTime(t, e.EventDateTime)) < 60*24*time.Hour {
				t.Errorf("%s: arrived at %s, less than 60 days before %s", number, e.EventDateTime, now)
			}
		}
	}
	// A month on, nothing more has happened to them.
	n.clock.Advance(30 * 24 * time.Hour)
	if v := newView(t, n.mustEvents(t, "MAEU", "254317730")); !v.none("GTIN", v.last) {
		t.Error("7730: the empty came back after all")
	}
}
