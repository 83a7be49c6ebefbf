package journey

import (
	"encoding/json"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/boxwatch/boxwatch/cache"
	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/searoute"
)

// The engine's caches are cache.LRUs bounded by bytes (the track cache is in track.go). An entry
// weighs what it keeps in memory: its key twice (the LRU's map and its list both hold one), its
// value, and the arrays and strings they point to, arrays by capacity; cache.Overhead adds the
// LRU's own bookkeeping.

// routeCache keeps recent sea paths: those between ports are asked for by every map of every
// container on the lane, and the vessel's position changes only with a new report.
type routeCache struct {
	lru *cache.LRU[[2]geo.Point, routeEntry]
}

type routeEntry struct {
	path searoute.Path
	ok   bool
	err  error           // why there is no path, when !ok
	line json.RawMessage // the path's LineString coordinates, encoded once
}

// geometry draws the path, from the encoding kept unless split.
func (re routeEntry) geometry(split bool) (Geometry, int) {
	if split {
		return lineGeometry(re.path.Points, true)
	}
	return Geometry{Type: "LineString", Coordinates: re.line}, len(re.path.Points)
}

// newRouteCache weighs a path as its points (16 bytes each), the passages it goes through (their
// names are constants: only the slice counts) and its encoded line.
func newRouteCache(maxBytes int64) *routeCache {
	return &routeCache{lru: cache.New("sea_routes", maxBytes, func(k [2]geo.Point, v routeEntry) int64 {
		return 2*int64(unsafe.Sizeof(k)) + int64(unsafe.Sizeof(v)) + int64(cap(v.path.Points))*pointSize +
			int64(cap(v.path.Passages))*int64(unsafe.Sizeof(searoute.Passage(""))) + int64(cap(v.line))
	})}
}

// get returns the path from from to to, computing it on a miss. A path that cannot be found is
// kept too: the router would fail the same way again.
func (c *routeCache) get(from, to geo.Point, compute func() routeEntry) routeEntry {
	key := [2]geo.Point{from, to}
	if re, ok := c.lru.Get(key); ok {
		return re
	}
	re := compute()
	c.lru.Add(key, re)
	return re
}

// mapCache keeps maps drawn until they expire (see ContainerMap). An expired map is a miss: its
// lookup, which the LRU counted as a hit, is reported as one (see stats).
type mapCache struct {
	lru     *cache.LRU[mapKey, cachedMap]
	expired atomic.Uint64
}

type mapKey struct {
	accountID, containerID string
	split                  bool
}

type cachedMap struct {
	Map
	expires time.Time
}

// newMapCache weighs a map as its body, its tag and the ids of its key.
func newMapCache(maxBytes int64) *mapCache {
	return &mapCache{lru: cache.New("maps", maxBytes, func(k mapKey, v cachedMap) int64 {
		return 2*int64(unsafe.Sizeof(k)) + int64(len(k.accountID)+len(k.containerID)) +
			int64(unsafe.Sizeof(v)) + int64(cap(v.Body)+len(v.ETag))
	})}
}

func (c *mapCache) get(key mapKey, now time.Time) (Map, bool) {
	m, ok := c.lru.Get(key)
	if !ok {
		return Map{}, false
	}
	if !now.Before(m.expires) {
		c.expired.Add(1)
		c.lru.Remove(key)
		return Map{}, false
	}
	return m.Map, true
}

func (c *mapCache) add(key mapKey, m Map, expires time.Time) {
	c.lru.Add(key, cachedMap{Map: m, expires: expires})
}

// stats is the LRU's report with expired maps counted as misses.
func (c *mapCache) stats() cache.Stats {
	expired := c.expired.Load() // first: every expiry counted here is a hit already in Stats
	s := c.lru.Stats()
	s.Hits -= expired
	s.Misses += expired
	return s
}
