package journey

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/cache"
	"github.com/boxwatch/boxwatch/eta"
	"github.com/boxwatch/boxwatch/geo"
)

// track is a stretch of a vessel's stored positions, simplified for drawing, with the recent
// positions eta.Predict looks at (a leg at sea only).
type track struct {
	points      []geo.Point
	line        []byte // points as LineString coordinates, encoded once; nil when not yet
	first, last time.Time
	// recent are the last positions, from eta.TrackFrom on, oldest first. Shared with the cache:
	// read only (rawTrack never writes over the positions a track was handed).
	recent []boxwatch.VesselPosition
}

// with extends the track by one position (the vessel's latest, newer than the stored track).
func (t track) with(p boxwatch.VesselPosition) track {
	t.points = append(t.points[:len(t.points):len(t.points)], positionPoint(p))
	t.recent = append(t.recent[:len(t.recent):len(t.recent)], p)
	if len(t.line) > 0 {
		line := make([]byte, 0, len(t.line)+32)
		line = append(append(line, t.line[:len(t.line)-1]...), ',')
		t.line = append(appendPosition(line, pos(positionPoint(p))), ']')
	}
	if t.first.IsZero() {
		t.first = p.Timestamp
	}
	t.last = p.Timestamp
	return t
}

// maxTrackPositions bounds what one leg's track reads: over a month at one position every five
// minutes, far more than any leg keeps.
const maxTrackPositions = 100_000

// track returns the stored positions of the vessel with IMO number imo with from <= time < to,
// simplified. mmsi is its MMSI when the caller knows it; else it is looked up when the track is
// read. A vessel with no MMSI known has no track.
func (e *Engine) track(ctx context.Context, imo, mmsi string, from, to time.Time, open bool) (track, error) {
	resolve := func() (string, error) {
		if mmsi != "" {
			return mmsi, nil
		}
		v, err := e.vessels.Vessel(ctx, imo)
		if boxwatch.IsKind(err, boxwatch.KindNotFound) {
			return "", nil
		}
		return v.MMSI, err
	}
	return e.tracks.get(ctx, e.positions, imo, resolve, from, to, open, e.now())
}

// rawTrack is the positions of a track as read, and their simplification.
type rawTrack struct {
	points []geo.Point
	recent []boxwatch.VesselPosition // the positions eta.Predict looks at (eta.TrackFrom)
	first  time.Time
	last   time.Time
}

func (r *rawTrack) add(ps []boxwatch.VesselPosition) {
	for _, p := range ps {
		if !validPosition(p) {
			continue
		}
		if r.first.IsZero() {
			r.first = p.Timestamp
		}
		r.last = p.Timestamp
		r.points = append(r.points, positionPoint(p))
		r.recent = append(r.recent, p)
	}
	// Copied rather than resliced or moved down: the positions let go are not kept alive (and
	// uncounted) at the front of the array, and the tracks drawn before, which share the array,
	// keep theirs. Appends write only past their ends.
	if cut := eta.TrackFrom(r.recent); cut > 0 {
		r.recent = slices.Clone(r.recent[cut:])
	}
}

func (r *rawTrack) track() track {
	t := track{points: simplify(r.points), first: r.first, last: r.last}
	if len(t.points) > 0 {
		g, _ := lineGeometry(t.points, false)
		t.line = g.Coordinates.(json.RawMessage)
	}
	t.recent = r.recent[:len(r.recent):len(r.recent)]
	return t
}

// trackCache keeps the tracks of the legs maps were drawn for: a track only grows, so a map
// reads the positions stored since the last one it saw, and simplifies again only when there are
// new ones. A track is read whole again after trackRebuild, for positions stored late (a
// receiver's backlog) with times inside what was read.
type trackCache struct {
	// mu makes finding or adding an entry one step, so that maps asking at once for a leg not
	// cached share one entry and read the leg once.
	mu  sync.Mutex
	lru *cache.LRU[trackKey, *trackEntry]
}

type trackKey struct {
	imo      string
	from, to time.Time // to is zero for a leg still sailed
}

type trackEntry struct {
	mu      sync.Mutex
	mmsi    string // "" while the vessel's MMSI is not known: no track
	raw     *rawTrack
	drawn   track
	loaded  time.Time // when read whole
	checked time.Time // when last asked for new positions
	// weight is what the entry holds in bytes (see size), set under mu after every change; the
	// cache reads it, without mu, when the entry is added again to be weighed anew.
	weight atomic.Int64
}

const (
	trackRebuild = 10 * time.Minute
	// trackPoll is how often a sailed track asks for new positions: positions are stored every
	// few minutes of a vessel's voyage, and the map's own cache lifetime is longer.
	trackPoll = 5 * time.Second
)

// Sizes of what the caches hold, for their weights.
const (
	pointSize    = int64(unsafe.Sizeof(geo.Point{}))
	positionSize = int64(unsafe.Sizeof(boxwatch.VesselPosition{}))
	// positionHeap is what a stored position points to at most: its MMSI's nine bytes (a
	// 16-byte allocation) and its speed, course and heading (8 bytes each).
	positionHeap = 16 + 3*8
)

// newTrackCache weighs an entry as its key (held twice: by the LRU's map and by its list) and the
// imo it names, plus what the entry holds: see size.
func newTrackCache(maxBytes int64) *trackCache {
	return &trackCache{lru: cache.New("tracks", maxBytes, func(k trackKey, e *trackEntry) int64 {
		return 2*int64(unsafe.Sizeof(k)) + int64(len(k.imo)) + e.weight.Load()
	})}
}

// size is what the entry holds in bytes: itself, the drawn track's points and encoded line, and for
// a leg at sea the raw points and recent positions kept to extend it. Arrays count by capacity,
// which is what they occupy. The caller holds e.mu.
func (e *trackEntry) size() int64 {
	n := int64(unsafe.Sizeof(*e)) + int64(len(e.mmsi)) + int64(cap(e.drawn.points))*pointSize + int64(cap(e.drawn.line))
	if r := e.raw; r != nil {
		n += int64(unsafe.Sizeof(*r)) + int64(cap(r.points))*pointSize + int64(cap(r.recent))*(positionSize+positionHeap)
	}
	return n
}

// entry finds the entry of key or adds an empty one. An entry the bound cannot keep is still
// returned, for this one map.
func (c *trackCache) entry(key trackKey) *trackEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.lru.Get(key); ok {
		return e
	}
	e := &trackEntry{}
	e.weight.Store(e.size())
	c.lru.Add(key, e)
	return e
}

func (c *trackCache) get(ctx context.Context, ps boxwatch.PositionStore, imo string, resolve func() (string, error), from, to time.Time, open bool, now time.Time) (track, error) {
	key := trackKey{imo: imo, from: from}
	if !open {
		key.to = to
	}
	e := c.entry(key)
	drawn, changed, err := e.update(ctx, ps, resolve, from, to, open, now)
	if changed {
		c.lru.Add(key, e) // weighed anew
	}
	return drawn, err
}

// update reads the entry's track whole when it has none or it is due for a rebuild, else, for a
// leg at sea, the positions stored since the last it read, and returns the track drawn and
// whether the entry changed.
func (e *trackEntry) update(ctx context.Context, ps boxwatch.PositionStore, resolve func() (string, error), from, to time.Time, open bool, now time.Time) (track, bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case e.raw == nil || now.Sub(e.loaded) >= trackRebuild || now.Before(e.loaded):
		mmsi, err := resolve()
		if err != nil {
			return track{}, false, err
		}
		var got []boxwatch.VesselPosition
		if mmsi != "" {
			if got, err = ps.VesselPositions(ctx, mmsi, from, to, maxTrackPositions); err != nil {
				return track{}, false, err
			}
		}
		e.mmsi, e.raw = mmsi, &rawTrack{}
		e.raw.add(got)
		e.drawn, e.loaded, e.checked = e.raw.track(), now, now
		if !open {
			// A leg sailed gets no new positions: only its drawing is kept, not the 10,000 or so
			// positions it was drawn from.
			e.raw.points, e.raw.recent, e.drawn.recent = nil, nil, nil
		}
	case open && e.mmsi != "" && now.Sub(e.checked) >= trackPoll:
		since := from
		if !e.raw.last.IsZero() {
			since = e.raw.last.Add(time.Nanosecond)
		}
		got, err := ps.VesselPositions(ctx, e.mmsi, since, to, maxTrackPositions)
		if err != nil {
			return track{}, false, err
		}
		e.checked = now
		if len(got) == 0 {
			return e.drawn, false, nil
		}
		e.raw.add(got)
		e.drawn = e.raw.track()
	default:
		return e.drawn, false, nil
	}
	e.weight.Store(e.size())
	return e.drawn, true, nil
}
