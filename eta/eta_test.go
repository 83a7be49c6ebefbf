package eta_test

import (
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/eta"
	"github.com/boxwatch/boxwatch/geo"
)

// track is a vessel sailing due east along the equator at knots, one position every step.
func track(n int, step time.Duration, knots float64) []boxwatch.VesselPosition {
	t0 := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	degPerHour := knots / 60 // a minute of arc of the equator is about a nautical mile
	out := make([]boxwatch.VesselPosition, n)
	for i := range out {
		h := float64(i) * step.Hours()
		out[i] = boxwatch.VesselPosition{MMSI: "211000001", Longitude: 100 + h*degPerHour, Timestamp: t0.Add(time.Duration(i) * step)}
	}
	return out
}

func TestSpeed(t *testing.T) {
	t.Parallel()
	sog := 7.5
	tests := []struct {
		name   string
		track  []boxwatch.VesselPosition
		want   float64
		wantOK bool
	}{
		{"OK", track(100, 5*time.Minute, 18), 18, true},
		{"OnlyRecentWindow", append(track(200, 5*time.Minute, 10)[:50], shift(track(200, 5*time.Minute, 20)[50:])...), 20, true},
		{"ShortTrackUsesReportedSpeed", withSOG(track(3, 5*time.Minute, 18), sog), sog, true},
		{"ErrNoTrack", nil, 0, false},
		{"ErrShortTrackNoSpeed", track(2, time.Minute, 18), 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := eta.Speed(tt.track)
			if ok != tt.wantOK || (ok && abs(got-tt.want) > 0.1) {
				t.Fatalf("Speed = %.3f, %v; want %.3f, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// shift makes a track continue from where the first 50 positions of a 10-knot track ended.
func shift(ps []boxwatch.VesselPosition) []boxwatch.VesselPosition {
	out := make([]boxwatch.VesselPosition, len(ps))
	base := ps[0].Longitude - (100 + 50*5.0/60*10/60)
	for i, p := range ps {
		p.Longitude -= base
		out[i] = p
	}
	return out
}

func withSOG(ps []boxwatch.VesselPosition, knots float64) []boxwatch.VesselPosition {
	ps[len(ps)-1].SpeedKnots = &knots
	return ps
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestArrival(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	if got, ok := eta.Arrival(at, 360, 15); !ok || !got.Equal(at.Add(24*time.Hour)) {
		t.Errorf("360 nm at 15 kn = %v, %v; want a day later", got, ok)
	}
	for _, c := range []struct{ nm, kn float64 }{{100, 1.9}, {100, 0}, {-1, 12}} {
		if got, ok := eta.Arrival(at, c.nm, c.kn); ok {
			t.Errorf("Arrival(%v nm, %v kn) = %v, want none", c.nm, c.kn, got)
		}
	}
	// The track's own spacing sets the prediction: a 5-minute track checks against distance.
	tr := track(145, 5*time.Minute, 16)
	kn, _ := eta.Speed(tr)
	last := tr[len(tr)-1]
	end := geo.Point{Lon: last.Longitude + 2}
	got, _ := eta.Arrival(last.Timestamp, geo.DistanceNM(geo.Point{Lon: last.Longitude}, end), kn)
	if want := last.Timestamp.Add(time.Duration(120.0 / 16 * float64(time.Hour))); got.Sub(want).Abs() > 5*time.Minute {
		t.Errorf("arrival %v, want about %v", got, want)
	}
}
