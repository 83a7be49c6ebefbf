package journey

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/cache"
	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/searoute"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// checkBound fails the test unless the cache holds no more than its bound, and at least what its
// entries' payloads weigh (an entry never weighs less than the bytes it keeps alive).
func checkBound(t *testing.T, s cache.Stats, payload int64) {
	t.Helper()
	if s.Bytes > s.MaxBytes {
		t.Errorf("%s holds %d bytes, over its bound of %d", s.Name, s.Bytes, s.MaxBytes)
	}
	if min := int64(s.Entries) * payload; s.Bytes < min {
		t.Errorf("%s weighs %d bytes for %d entries of %d bytes each", s.Name, s.Bytes, s.Entries, payload)
	}
}

func TestMapCacheBoundHoldsWithLargeBodies(t *testing.T) {
	t.Parallel()
	const bound, body = 8 << 20, 3 << 20 // bodies of megabytes, as a long journey's map or a future path
	c := newMapCache(bound)
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for i := range 10 {
		c.add(mapKey{accountID: "acme", containerID: strconv.Itoa(i)}, Map{Body: bytes.Repeat([]byte{'x'}, body), ETag: `"t"`}, now.Add(time.Minute))
		checkBound(t, c.stats(), body)
	}
	if s := c.stats(); s.Entries != 2 || s.Evictions != 8 {
		t.Errorf("after ten maps of 3 MiB in 8 MiB: %+v, want the last two kept", s)
	}
	if _, ok := c.get(mapKey{accountID: "acme", containerID: "9"}, now); !ok {
		t.Error("the map added last is not kept")
	}
	huge := mapKey{accountID: "acme", containerID: "huge"}
	c.add(huge, Map{Body: make([]byte, bound)}, now.Add(time.Minute))
	if _, ok := c.get(huge, now); ok {
		t.Error("a map heavier than the whole bound was kept")
	}
	// An expired map is dropped and reported as a miss, not a hit.
	before := c.stats()
	if _, ok := c.get(mapKey{accountID: "acme", containerID: "9"}, now.Add(time.Minute)); ok {
		t.Error("an expired map was served")
	}
	if s := c.stats(); s.Hits != before.Hits || s.Misses != before.Misses+1 || s.Entries != before.Entries-1 {
		t.Errorf("after an expired lookup: %+v, before %+v", s, before)
	}
}

func TestRouteCacheBoundHoldsWithLongPaths(t *testing.T) {
	t.Parallel()
	const bound, points = 4 << 20, 50_000 // a path of 50,000 points: 800 KB, and its line as long again
	c := newRouteCache(bound)
	for i := range 10 {
		pts := make([]geo.Point, points)
		for j := range pts {
			pts[j] = geo.Point{Lat: float64(j%90) / 2, Lon: float64(i)}
		}
		from, to := pts[0], pts[len(pts)-1]
		re := c.get(from, to, func() routeEntry {
			g, _ := lineGeometry(pts, false)
			return routeEntry{path: searoute.Path{Points: pts}, ok: true, line: g.Coordinates.(json.RawMessage)}
		})
		checkBound(t, c.lru.Stats(), points*pointSize+int64(len(re.line)))
	}
	if s := c.lru.Stats(); s.Entries < 1 || s.Evictions == 0 {
		t.Errorf("after ten paths of about 1.8 MB in 4 MiB: %+v", s)
	}
}

func TestTrackCacheBoundHoldsWithLongTracks(t *testing.T) {
	t.Parallel()
	const vessels, positions = 3, 3_000 // two days at one a minute, per vessel
	db := storetest.SQLite.Open(t)
	ctx := context.Background()
	from := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	save := func(mmsi string, first, n int) {
		t.Helper()
		ps := make([]boxwatch.VesselPosition, n)
		for i := range ps {
			ps[i] = boxwatch.VesselPosition{MMSI: mmsi, Latitude: 10 + float64((first+i)%1000)/100, Longitude: 100 + float64(first+i)/1000,
				Timestamp: from.Add(time.Duration(first+i) * time.Minute)}
		}
		if _, err := db.SavePositions(ctx, ps); err != nil {
			t.Fatal(err)
		}
	}
	for v := range vessels {
		save(fmt.Sprintf("21100000%d", v), 0, positions)
	}
	now := from.Add(positions * time.Minute)
	read := func(c *trackCache, v int, at time.Time) {
		t.Helper()
		mmsi := fmt.Sprintf("21100000%d", v)
		if _, err := c.get(ctx, db, "IMO"+mmsi, func() (string, error) { return mmsi, nil }, from, at, true, at); err != nil {
			t.Fatal(err)
		}
	}

	// A leg at sea keeps its raw positions to extend them: it weighs them.
	one := newTrackCache(1 << 30)
	read(one, 0, now)
	alone := one.lru.Stats()
	if raw := int64(positions) * pointSize; alone.Bytes < raw {
		t.Fatalf("a track of %d raw positions weighs %d bytes, less than their %d", positions, alone.Bytes, raw)
	}
	// New positions make it heavier, weighed anew.
	save("211000000", positions, positions)
	later := now.Add(positions * time.Minute)
	read(one, 0, later)
	if grown := one.lru.Stats(); grown.Bytes <= alone.Bytes || grown.Entries != 1 {
		t.Errorf("after %d more positions the cache weighs %d bytes, before %d", positions, grown.Bytes, alone.Bytes)
	}

	c := newTrackCache(2*alone.Bytes + alone.Bytes/2) // room for two tracks, not three
	for v := range vessels {
		read(c, v, now)
		checkBound(t, c.lru.Stats(), positions*pointSize)
	}
	if s := c.lru.Stats(); s.Entries != 2 || s.Evictions != vessels-2 {
		t.Errorf("after %d tracks in room for two: %+v", vessels, s)
	}
}

// The calls learned stay within their bound, each weighing at least its key's strings, and a call
// is fresh once: again only when its ATA is another call's (sameCall apart) or it was forgotten.
func TestLearnedCacheBoundAndCalls(t *testing.T) {
	t.Parallel()
	c := newLearnedCache(64 << 10)
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for i := range 5000 {
		a := boxwatch.VesselArrival{VesselIMO: fmt.Sprintf("9%06d", i), LOCODE: "NLRTM", Arrived: t0}
		if !c.fresh(a) {
			t.Fatalf("call %d not fresh", i)
		}
	}
	checkBound(t, c.lru.Stats(), 7+5)
	if s := c.lru.Stats(); s.Entries < 100 || s.Evictions == 0 {
		t.Errorf("stats %+v: a 64 KiB bound keeps a few hundred calls", s)
	}
	a := boxwatch.VesselArrival{VesselIMO: "9004999", LOCODE: "NLRTM", Arrived: t0.Add(time.Hour)}
	if c.fresh(a) {
		t.Error("the same call an hour apart (another carrier's ATA) is fresh")
	}
	if a.Arrived = t0.Add(7 * 24 * time.Hour); !c.fresh(a) {
		t.Error("the vessel's next call a week later is not fresh")
	}
	if old := (boxwatch.VesselArrival{VesselIMO: "9000000", LOCODE: "NLRTM", Arrived: t0}); !c.fresh(old) {
		t.Error("a call forgotten under the bound is not fresh again")
	}
}
