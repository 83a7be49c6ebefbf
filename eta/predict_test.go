package eta_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/eta"
	"github.com/boxwatch/boxwatch/geo"
)

var t0 = time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)

func TestWaitsRemaining(t *testing.T) {
	t.Parallel()
	var w eta.Waits
	// At PORT, waits of 1 to 9 hours ending over the last days, one of 20 days ending long ago,
	// and one ending after the moment asked about.
	for h := 1; h <= 9; h++ {
		end := t0.Add(-time.Duration(h) * 24 * time.Hour)
		w.Add("PORT", end.Add(-time.Duration(h)*time.Hour), end)
	}
	w.Add("PORT", t0.Add(-80*24*time.Hour), t0.Add(-60*24*time.Hour))
	w.Add("PORT", t0.Add(-time.Hour), t0.Add(time.Hour))
	w.Add("PORT", t0, t0.Add(-time.Hour)) // ends before it starts: ignored
	// Elsewhere, two-day waits.
	for i := range 6 {
		end := t0.Add(-time.Duration(i+1) * time.Hour)
		w.Add(fmt.Sprint("OTHER", i%2), end.Add(-48*time.Hour), end)
	}
	tests := []struct {
		name   string
		place  string
		waited time.Duration
		want   time.Duration
		wantN  int
	}{
		{"OK", "PORT", 0, 5 * time.Hour, 9},
		{"AlreadyWaited", "PORT", 3 * time.Hour, 4 * time.Hour, 6},     // 1 to 6 h left: the upper median
		{"FewLeftAtThePort", "PORT", 7 * time.Hour, 41 * time.Hour, 8}, // 2 at PORT: every place's
		{"UnknownPlace", "NOWHERE", 0, 8 * time.Hour, 15},              // every place's, PORT's included
		{"WaitedLongerThanAll", "PORT", 72 * time.Hour, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n := w.Remaining(tt.place, t0, tt.waited)
			if got != tt.want || n != tt.wantN {
				t.Errorf("Remaining = %v from %d, want %v from %d", got, n, tt.want, tt.wantN)
			}
		})
	}
	for _, tt := range []struct {
		q    float64
		want time.Duration
	}{{0, time.Hour}, {0.25, 3 * time.Hour}, {0.5, 5 * time.Hour}, {0.9, 9 * time.Hour}, {1, 9 * time.Hour}} {
		if got, n := w.Quantile("PORT", t0, 0, tt.q); got != tt.want || n != 9 {
			t.Errorf("Quantile %v = %v from %d, want %v from 9", tt.q, got, n, tt.want)
		}
	}
}

func TestWaitsBounded(t *testing.T) {
	t.Parallel()
	var w eta.Waits
	for i := range 2000 {
		end := t0.Add(-time.Duration(i) * time.Minute)
		w.Add("PORT", end.Add(-time.Duration(i)*time.Minute), end)
	}
	// Only the most recent 512 are kept: waits of 0 to 511 minutes, of which 511 last at all,
	// the median 256.
	if got, n := w.Remaining("PORT", t0.Add(time.Second), 0); n != 511 || got != 256*time.Minute {
		t.Errorf("Remaining = %v from %d, want 4h16m from 511", got, n)
	}
}

// voyage is a vessel sailing due east along the equator at knots for two days up to t0, portNM
// ahead of its port.
func voyage(knots, portNM float64) eta.Voyage {
	tr := track(2*24*12+1, 5*time.Minute, knots)
	shift := t0.Sub(tr[len(tr)-1].Timestamp)
	for i := range tr {
		tr[i].Timestamp = tr[i].Timestamp.Add(shift)
	}
	last := tr[len(tr)-1]
	return eta.Voyage{At: t0, Track: tr, Port: "PORT", PortPoint: geo.Point{Lon: last.Longitude + portNM/60},
		RemainingNM: portNM}
}

// stop makes the vessel stop for the last d of its track, where it was then.
func stop(v eta.Voyage, d time.Duration) eta.Voyage {
	zero := 0.0
	first := len(v.Track) - 1
	for first > 0 && !v.Track[first-1].Timestamp.Before(v.At.Add(-d)) {
		first--
	}
	for i := first; i < len(v.Track); i++ {
		v.Track[i].Latitude, v.Track[i].Longitude = v.Track[first].Latitude, v.Track[first].Longitude
		v.Track[i].SpeedKnots = &zero
	}
	return v
}

func TestPredict(t *testing.T) {
	t.Parallel()
	var w eta.Waits
	for i := range 6 {
		end := t0.Add(-time.Duration(i+1) * 24 * time.Hour)
		w.Add("PORT", end.Add(-time.Duration(10*(i+1))*time.Hour), end) // 10 to 60 h: median 40 h, quartile 20 h
		w.Add("suez", end.Add(-time.Duration(4*(i+1))*time.Hour), end)  // 4 to 24 h: median 16 h
	}
	anchored := stop(voyage(18, 5), 20*time.Hour)
	anchored.PortPoint = geo.Point{Lon: anchored.Track[len(anchored.Track)-1].Longitude + 5.0/60}
	withCarrier := func(v eta.Voyage, after time.Duration) eta.Voyage {
		v.CarrierETA = t0.Add(after)
		return v
	}
	throughSuez := voyage(18, 1800)
	throughSuez.Canals = []string{"suez"}
	inSuez := stop(voyage(16, 1600), 6*time.Hour)
	inSuez.InCanal, inSuez.Canals = "suez", []string{"suez"}
	tests := []struct {
		name   string
		v      eta.Voyage
		want   time.Duration // after t0
		wantOK bool
	}{
		{"UnderWay", voyage(18, 1800), 100*time.Hour + 20*time.Hour, true},
		{"ThroughACanal", throughSuez, 100*time.Hour + 16*time.Hour + 20*time.Hour, true},
		{"QueueingAtTheCanal", inSuez, 100*time.Hour + 10*time.Hour + 20*time.Hour, true}, // 2 to 18 h left after 6
		{"UnderWayCarrierFarOff", withCarrier(voyage(18, 1800), 200*time.Hour), 100*time.Hour + 20*time.Hour, true},
		{"UnderWayCarrierSoon", withCarrier(voyage(18, 450), 30*time.Hour), 25*time.Hour + 20*time.Hour, true},
		{"AtTheAnchorage", anchored, 20 * time.Hour, true}, // 4 waits longer than 20 h at the port: every place's, 4 to 40 h left
		{"AtTheAnchorageWithCarrier", withCarrier(anchored, 60*time.Hour), 40 * time.Hour, true},
		{"AtTheAnchorageCarrierLastWord", withCarrier(anchored, 30*time.Hour), 30 * time.Hour, true},
		{"AtTheAnchorageCarrierPast", withCarrier(anchored, -5*time.Hour), 20 * time.Hour, true},
		{"ErrNoTrack", eta.Voyage{At: t0, Port: "PORT"}, 0, false},
		{"ErrNeverUnderWay", stop(voyage(18, 900), 72*time.Hour), 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := eta.Predict(tt.v, &w)
			if ok != tt.wantOK || ok && got.Sub(t0.Add(tt.want)).Abs() > 30*time.Minute {
				t.Errorf("Predict = %v, %v; want %v, %v", got.Sub(t0), ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestCruiseSpeedLeavesOutStops(t *testing.T) {
	t.Parallel()
	v := stop(voyage(15, 100), 10*time.Hour)
	if kn, ok := eta.CruiseSpeed(v.Track); !ok || abs(kn-15) > 0.2 {
		t.Errorf("CruiseSpeed = %.2f, %v; want 15 knots", kn, ok)
	}
	if _, ok := eta.CruiseSpeed([]boxwatch.VesselPosition{v.Track[0]}); ok {
		t.Error("a speed from one position")
	}
}

func TestWaitsLearn(t *testing.T) {
	t.Parallel()
	// Sailing east along the equator at 18 knots, an hour between positions: 10 hours stopped at
	// the canal (longitude 101), 20 at the anchorage 5 nm off the port, then it berths.
	zero, knots := 0.0, 18.0
	var tr []boxwatch.VesselPosition
	at, lon := t0, 100.0
	add := func(hours int, moving bool) {
		for range hours {
			p := boxwatch.VesselPosition{Longitude: lon, Timestamp: at, SpeedKnots: &zero}
			if moving {
				p.SpeedKnots = &knots
				lon += knots / 60
			}
			tr = append(tr, p)
			at = at.Add(time.Hour)
		}
	}
	add(10, true)
	canal := lon
	add(10, false)
	add(30, true)
	port := geo.Point{Lon: lon + 5.0/60}
	add(20, false)
	canalAt := func(p geo.Point) string {
		if p.Lon == canal {
			return "suez"
		}
		return ""
	}
	var w eta.Waits
	w.Learn(tr, "PORT", port, at, canalAt)
	if got, n := w.Remaining("suez", at, 0); n != 1 || got != 10*time.Hour {
		t.Errorf("canal: %v from %d, want 10h from 1", got, n)
	}
	if got, n := w.Remaining("PORT", at.Add(time.Second), 0); n != 2 || got != 20*time.Hour {
		t.Errorf("port: %v from %d, want 20h (with the canal's, too few at the port) from 2", got, n)
	}
	// Sailing straight in: the port's wait is the time since its last position off the port.
	var straight eta.Waits
	straight.Learn(tr[:50], "PORT", geo.Point{Lon: tr[49].Longitude + 3.0/60}, tr[49].Timestamp.Add(20*time.Minute),
		func(geo.Point) string { return "" })
	if got, _ := straight.Remaining("PORT", at, 0); got != 20*time.Minute {
		t.Errorf("straight in: waited %v, want 20m", got)
	}
}

// TrackFrom keeps what Predict looks at: the prediction from the positions it keeps is the
// prediction from the whole track, for vessels under way, stopped at the end for up to the
// lookback, and with stops and gaps in reports earlier on, with and without reported speeds.
func TestTrackFrom(t *testing.T) {
	t.Parallel()
	var w eta.Waits
	for i := range 6 {
		end := t0.Add(-time.Duration(i+1) * 24 * time.Hour)
		w.Add("PORT", end.Add(-time.Duration(10*(i+1))*time.Hour), end)
	}
	long := func(days float64, knots float64) eta.Voyage {
		v := voyage(knots, 600)
		tr := track(int(days*24*12)+1, 5*time.Minute, knots)
		shift := t0.Sub(tr[len(tr)-1].Timestamp)
		for i := range tr {
			tr[i].Timestamp = tr[i].Timestamp.Add(shift)
		}
		v.Track = tr
		return v
	}
	midStop := func(v eta.Voyage, from, to int) eta.Voyage {
		zero := 0.0
		for i := from; i < to; i++ {
			v.Track[i].Latitude, v.Track[i].Longitude, v.Track[i].SpeedKnots = v.Track[from].Latitude, v.Track[from].Longitude, &zero
		}
		return v
	}
	gap := func(v eta.Voyage, from, to int) eta.Voyage {
		v.Track = append(v.Track[:from:from], v.Track[to:]...)
		return v
	}
	near := func(v eta.Voyage) eta.Voyage {
		v.PortPoint = geo.Point{Lon: v.Track[len(v.Track)-1].Longitude + 5.0/60}
		return v
	}
	cases := map[string]eta.Voyage{
		"UnderWay":           long(6, 18),
		"Short":              long(0.5, 18),
		"AtAnchorage":        near(stop(long(8, 16), 30*time.Hour)),
		"AtAnchorageForDays": near(stop(long(20, 16), 10*24*time.Hour)),
		"StoppedAtSea":       stop(long(8, 16), 20*time.Hour),
		"StopsEarlier":       midStop(midStop(long(8, 17), 1000, 1400), 1700, 1900),
		"GapInReports":       gap(long(8, 17), 1500, 1900),
	}
	for name, v := range cases {
		for _, sog := range []bool{true, false} {
			v := v
			v.Track = slices.Clone(v.Track)
			if !sog {
				for i := range v.Track {
					v.Track[i].SpeedKnots = nil
				}
			}
			t.Run(fmt.Sprint(name, "/sog=", sog), func(t *testing.T) {
				from := eta.TrackFrom(v.Track)
				kept := v
				kept.Track = v.Track[from:]
				want, wantOK := eta.Predict(v, &w)
				got, ok := eta.Predict(kept, &w)
				if got != want || ok != wantOK {
					t.Errorf("from %d of %d positions: Predict = %v, %v; from all %v, %v", from, len(v.Track), got, ok, want, wantOK)
				}
				span := v.Track[len(v.Track)-1].Timestamp.Sub(v.Track[from].Timestamp)
				if span > eta.MaxLookback {
					t.Errorf("keeps %v of track", span)
				}
				if name == "UnderWay" && (span < eta.CruiseWindow || span > eta.CruiseWindow+time.Hour) {
					t.Errorf("under way, keeps %v of track, want the cruise window", span)
				}
			})
		}
	}
	if got := eta.TrackFrom(nil); got != 0 {
		t.Errorf("TrackFrom(nil) = %d", got)
	}
}

// A Waits weighs at most MaxBytes however many places it learns, letting go of the oldest wait
// of the place with the most, and of a place when it has none left.
func TestWaitsBytesBounded(t *testing.T) {
	t.Parallel()
	var w eta.Waits
	perPlace := int64(24*400 + 64 + 6)
	places := int(eta.MaxBytes/perPlace) + 50
	for i := range 400 {
		for p := range places {
			end := t0.Add(time.Duration(i) * time.Minute)
			w.Add(fmt.Sprintf("P%05d", p), end.Add(-time.Hour), end)
		}
	}
	st := w.Stats()
	if st.Places != places || st.Bytes > eta.MaxBytes || st.Bytes < eta.MaxBytes-24 {
		t.Fatalf("stats %+v, want %d places in at most %d bytes, full", st, places, eta.MaxBytes)
	}
	if want := int64(st.Waits)*24 + int64(places)*(64+6); st.Bytes != want {
		t.Errorf("%d bytes, want %d", st.Bytes, want)
	}
	// Every place kept its most recent waits: the latest ended at minute 399.
	for _, p := range []string{"P00000", fmt.Sprintf("P%05d", places-1)} {
		if got, n := w.Remaining(p, t0.Add(400*time.Minute), 0); n == 0 || got != time.Hour || n >= 400 {
			t.Errorf("%s: Remaining = %v from %d", p, got, n)
		}
	}
	// Many more places than fit: the places with the fewest waits go too.
	var many eta.Waits
	long := strings.Repeat("Q", 1000) // long keys, so that fewer places fill it
	for p := range int(eta.MaxBytes/1000) + 1000 {
		many.Add(fmt.Sprint(long, p), t0, t0.Add(time.Hour))
	}
	if st := many.Stats(); st.Bytes > eta.MaxBytes || st.Places != st.Waits {
		t.Errorf("stats %+v", st)
	}
}
