// Package journey is the container-map and prediction engine: it draws a container's journey as
// GeoJSON from the shipment's route, the vessels' stored AIS positions and the sea router, predicts
// arrivals (eta.Predict: the speed a vessel made good cruising, the canals on its way and the waits
// learned at them and at the port, learn.go), and lays out the path a vessel would sail to a port.
// It keeps what it draws in caches bounded by bytes (package cache) and reports them for the admin
// metrics. It reads the store only through the domain's narrow interfaces, loads no data set of its
// own (the sea network and the ports are given to it) and knows nothing of HTTP: the API's handlers
// parse requests, call it and write its answers.
package journey

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"log/slog"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/cache"
	"github.com/boxwatch/boxwatch/eta"
	"github.com/boxwatch/boxwatch/searoute"
)

// Config is what the engine needs; Shipments, Containers, Vessels, Ports and Sea are required.
type Config struct {
	Shipments  boxwatch.ShipmentStore
	Containers boxwatch.ContainerStore
	Vessels    boxwatch.VesselStore
	// Positions reads the vessels' stored AIS positions; nil has no stored tracks: every path
	// sailed is estimated by the sea router and no arrival is predicted.
	Positions boxwatch.PositionStore
	// Ports places the stops of routes; a port without coordinates is not drawn.
	Ports boxwatch.PortLookup
	// Sea routes the estimated paths and the distances still to sail.
	Sea *searoute.Network
	// Waterways are the barge routes inland: a barge leg is drawn through the ports of the
	// waterway between its ends; nil (or a leg on none) draws it straight.
	Waterways *boxwatch.Waterways
	Clock     boxwatch.Clock // nil: the system clock
	Logger    *slog.Logger   // nil: discard
	// The caches' byte bounds; zero (or less) keeps nothing, as when measuring without them. The
	// Default… constants are what serve uses unless told otherwise.
	MapCacheBytes, RouteCacheBytes, TrackCacheBytes int64
	// LearnedCacheBytes bounds the vessel calls whose waits were learned (see learn.go); zero
	// (or less) remembers none, and a call recorded by several shipments counts once each time.
	LearnedCacheBytes int64
	// Waits are the waits at ports and canals predictions add, learned by LearnArrivals and
	// WarmWaits; nil: the engine's own, empty until they learn.
	Waits *eta.Waits
}

// Default cache bounds, from what entries weigh on the test journeys: a map 6–12 KB (a body of 4–7
// KB in a buffer sized for the worst case), a sea path about 2 KB, the track of a leg sailed some
// 10 KB (only its simplified drawing is kept), that of a leg at sea 200–350 KB for a month of
// positions at ingest's five-minute interval (its raw points are kept to extend it, and the
// positions of its last two days under way, some 60 KB, for the prediction). A live
// map is reused for seconds only, so its working set is the maps asked for in those seconds; a
// track is the costliest to rebuild (thousands of rows read and simplified), so it gets the most
// room: some 250 legs at sea and the legs they sailed before. The service's caches together
// (these and the store's) stay near 140 MiB, so that a replica stays under 512 MiB resident with
// Go's collector letting the heap grow to twice what is live.
const (
	DefaultMapCacheBytes   = 32 << 20
	DefaultRouteCacheBytes = 16 << 20
	DefaultTrackCacheBytes = 64 << 20
)

// Engine draws maps, predicts arrivals and lays out future paths. It is safe for concurrent use.
type Engine struct {
	shipments  boxwatch.ShipmentStore
	containers boxwatch.ContainerStore
	vessels    boxwatch.VesselStore
	positions  boxwatch.PositionStore
	ports      boxwatch.PortLookup
	sea        *searoute.Network
	waterways  *boxwatch.Waterways
	now        boxwatch.Clock
	log        *slog.Logger
	maps       *mapCache
	routes     *routeCache
	tracks     *trackCache
	waits      *eta.Waits
	learned    *learnedCache
	// arrivals are those QueueArrivals handed over, for RunLearning to learn.
	arrivals chan []boxwatch.VesselArrival
}

// New returns an engine, or an error naming a required field left out.
func New(cfg Config) (*Engine, error) {
	if cfg.Shipments == nil || cfg.Containers == nil || cfg.Vessels == nil || cfg.Ports == nil || cfg.Sea == nil {
		return nil, errors.New("journey: Shipments, Containers, Vessels, Ports and Sea are required")
	}
	if cfg.Clock == nil {
		cfg.Clock = boxwatch.SystemClock
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Waits == nil {
		cfg.Waits = &eta.Waits{}
	}
	return &Engine{
		shipments: cfg.Shipments, containers: cfg.Containers, vessels: cfg.Vessels, positions: cfg.Positions,
		ports: cfg.Ports, sea: cfg.Sea, waterways: cfg.Waterways, now: cfg.Clock, log: cfg.Logger,
		maps: newMapCache(cfg.MapCacheBytes), routes: newRouteCache(cfg.RouteCacheBytes), tracks: newTrackCache(cfg.TrackCacheBytes),
		waits: cfg.Waits, learned: newLearnedCache(cfg.LearnedCacheBytes), arrivals: make(chan []boxwatch.VesselArrival, arrivalQueue),
	}, nil
}

// CacheStats are the reports of the engine's caches (maps, routes, tracks, the calls learned) and
// of the waits it learned, bounded in bytes as they are, for admin.CacheCollector.
func (e *Engine) CacheStats() []func() cache.Stats {
	return []func() cache.Stats{e.maps.stats, e.routes.lru.Stats, e.tracks.lru.Stats, e.learned.lru.Stats, e.waitsStats}
}

// Map is a container's map, drawn.
type Map struct {
	// Body is the map as a GeoJSON FeatureCollection (RFC 7946) of the shapes in geojson.go. It
	// is shared with the cache: callers must not modify it.
	Body []byte
	// ETag is a strong entity tag of Body, quoted.
	ETag string
	// Ended reports that the journey is over (the port of discharge reached and the shipment no
	// longer tracked): the map never changes again.
	Ended bool
}

// How long the engine reuses a map it drew: a live one for a few seconds, since a map is asked for
// far more often than its journey changes; an ended one for longer, as it never changes.
const (
	mapReuseLive  = 10 * time.Second
	mapReuseEnded = time.Hour
)

// ContainerMap draws the map of one of the account's containers, its lines cut at the
// antimeridian when split, or reuses one drawn in the last seconds. Another account's container
// is ErrNotFound.
func (e *Engine) ContainerMap(ctx context.Context, accountID, containerID string, split bool) (Map, error) {
	key := mapKey{accountID: accountID, containerID: containerID, split: split}
	now := e.now()
	if m, ok := e.maps.get(key, now); ok {
		return m, nil
	}
	c, err := e.containers.Container(ctx, accountID, containerID)
	if err != nil {
		return Map{}, err
	}
	s, err := e.shipments.Shipment(ctx, accountID, c.ShipmentID)
	if err != nil {
		return Map{}, err
	}
	fc, err := e.build(ctx, s, c, split)
	if err != nil {
		return Map{}, err
	}
	body := fc.encode()
	sum := sha256.Sum256(body)
	m := Map{Body: body, ETag: `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`, Ended: journeyEnded(s)}
	reuse := mapReuseLive
	if m.Ended {
		reuse = mapReuseEnded
	}
	e.maps.add(key, m, now.Add(reuse))
	return m, nil
}
