package sim_test

import (
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/geo"
)

// A replay says what the carrier API says: the same estimate of the arrival at the port of
// discharge at the first lookup, the same actual arrival later; and its track ends at the port.
func TestReplayMatchesTheCarrier(t *testing.T) {
	t.Parallel()
	for i := range 6 {
		n := newTestNetwork(t)
		number := numberWithDigit(i, 3)
		first := newView(t, n.mustEvents(t, "MAEU", number))
		r, ok := n.Replay("MAEU", number, start)
		if !ok {
			t.Fatalf("%s: no replay", number)
		}
		eta, _, ok := r.CarrierETA(start)
		if want := first.estimate(t, "ARRI", first.pod()); !ok || !eta.Equal(want) {
			t.Errorf("%s: carrier ETA %v, %v; the API says %v", number, eta, ok, want)
		}
		if !r.Departed().Before(r.Arrived()) {
			t.Errorf("%s: departs %v, arrives %v", number, r.Departed(), r.Arrived())
		}
		n.clock.Advance(r.Arrived().Sub(start) + 3*24*time.Hour)
		later := newView(t, n.mustEvents(t, "MAEU", number))
		var ata time.Time
		for _, e := range later.events {
			if e.EventClassifierCode == boxwatch.ClassifierActual && e.TransportEventTypeCode == "ARRI" &&
				*e.TransportCall.TransportCallSequenceNumber == later.pod() {
				ata = mustTime(t, e.EventDateTime)
			}
		}
		if !ata.Equal(r.Arrived().Truncate(time.Minute)) {
			t.Errorf("%s: arrives %v, the API says %v", number, r.Arrived(), ata)
		}
		if _, _, ok := r.CarrierETA(r.Arrived().Add(time.Hour)); ok {
			t.Errorf("%s: an ETA after the arrival was recorded", number)
		}
		track := r.Track(r.Arrived().Add(-2*time.Hour), r.Arrived(), 5*time.Minute)
		if len(track) < 20 {
			t.Fatalf("%s: %d positions in the last two hours", number, len(track))
		}
		last := track[len(track)-1]
		if d := geo.DistanceNM(geo.Point{Lat: last.Latitude, Lon: last.Longitude}, r.Port()); d > 10 {
			t.Errorf("%s: the track ends %.1f nm from %s", number, d, r.LOCODE())
		}
		for k := 1; k < len(track); k++ {
			if !track[k].Timestamp.Equal(track[k-1].Timestamp.Add(5 * time.Minute)) {
				t.Fatalf("%s: positions at %v then %v", number, track[k-1].Timestamp, track[k].Timestamp)
			}
		}
	}
	n := newTestNetwork(t)
	if _, ok := n.Replay("MAEU", "EVAL0000", start); ok {
		t.Errorf("an unknown number has a replay")
	}
	if _, ok := n.Replay("NOPE", "EVAL12345", start); ok {
		t.Errorf("an unknown SCAC has a replay")
	}
}
