package journey

import (
	"context"
	"slices"
	"sync"
	"time"
	"unsafe"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/cache"
	"github.com/boxwatch/boxwatch/eta"
	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/searoute"
)

// The waits the engine's predictions add (eta.Waits) are learned from what the service sees, as
// eta/cmd/etaeval learns them: each vessel's arrival at a port that a shipment's route records
// (the carrier's ATA milestone) together with the vessel's stored AIS track up to it, which shows
// its stops at the canals on the way and its wait off the port. The tracking engine hands the
// arrivals it records to LearnArrivals; on start, WarmWaits learns the arrivals of the last
// WarmWindow from the database, and again every so often (RunLearning) for those another replica
// recorded. Each replica learns on its own: their waits agree once each has read the same
// arrivals.

// queueing are the passages where vessels queue: the places, beside ports, whose waits are
// learned and added to a prediction (as etaeval grades them).
var queueing = []searoute.Passage{searoute.Suez, searoute.Panama}

// canalAt is the queueing passage a point lies in, or "".
func canalAt(p geo.Point) string {
	if c := searoute.PassageAt(p, p); slices.Contains(queueing, c) {
		return string(c)
	}
	return ""
}

const (
	// WarmWindow is how far back the waits are learned from on start: the longest window
	// eta.Waits judges from (three eta.LearnWindows, when a place saw few vessels lately).
	WarmWindow = 3 * eta.LearnWindow
	// MaxWarmArrivals bounds the arrivals one WarmWaits reads, the latest first: each is one
	// track read, some 9,000 positions for a month's leg.
	MaxWarmArrivals = 5000
	// learnLookback is how far back before the arrival a track is read when the route does not
	// say when the leg began, and at most: long enough for a leg through a canal.
	learnLookback = 45 * 24 * time.Hour
	// sameCall is how close two ATAs of a vessel at a port are for one call: carriers sharing a
	// vessel report its arrival minutes apart.
	sameCall = 12 * time.Hour
	// DefaultLearnedCacheBytes bounds the calls already learned (about 200 bytes each): some
	// 5,000 calls, the arrivals of a few days of a large fleet.
	DefaultLearnedCacheBytes = 1 << 20
)

// learnedCache keeps the vessel calls already learned, by vessel and port, with the ATA: every
// shipment on a vessel records its arrival, and each call's waits count once. A call forgotten
// (the bound) and seen again is learned again.
type learnedCache struct {
	mu  sync.Mutex // makes fresh's look-up and record one step: shipments of a call refresh at once
	lru *cache.LRU[[2]string, time.Time]
}

func newLearnedCache(maxBytes int64) *learnedCache {
	return &learnedCache{lru: cache.New("learned_arrivals", maxBytes, func(k [2]string, v time.Time) int64 {
		return 2*int64(unsafe.Sizeof(k)) + 2*int64(len(k[0])+len(k[1])) + int64(unsafe.Sizeof(v))
	})}
}

// fresh reports whether a is a call not yet learned, and records it.
func (c *learnedCache) fresh(a boxwatch.VesselArrival) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := [2]string{a.VesselIMO, a.LOCODE}
	if last, ok := c.lru.Get(key); ok && last.Sub(a.Arrived).Abs() < sameCall {
		return false
	}
	c.lru.Add(key, a.Arrived)
	return true
}

// remove forgets a call, to learn it again.
func (c *learnedCache) remove(a boxwatch.VesselArrival) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Remove([2]string{a.VesselIMO, a.LOCODE})
}

// Waits are the waits the engine's predictions add; the engine's own unless Config gave one.
func (e *Engine) Waits() *eta.Waits { return e.waits }

// LearnArrivals learns the waits of arrivals the tracking engine just recorded (see learnOne),
// each call once. It reads the tracks on its own context, bounded by learnTimeout, and logs what
// fails: a wait not learned costs a prediction a little, never a request.
func (e *Engine) LearnArrivals(arrivals []boxwatch.VesselArrival) {
	e.learnArrivals(context.Background(), arrivals)
}

func (e *Engine) learnArrivals(ctx context.Context, arrivals []boxwatch.VesselArrival) {
	if len(arrivals) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, learnTimeout)
	defer cancel()
	for _, a := range arrivals {
		if _, err := e.learn(ctx, a); err != nil {
			e.log.Warn("learning a port's waits", "vessel", a.VesselIMO, "port", a.LOCODE, "error", err.Error())
			return
		}
	}
}

const learnTimeout = 30 * time.Second

// learn learns the waits of one arrival, unless already learned, and reports whether it did: the
// vessel's stored positions from the leg's departure (at most learnLookback before) up to the ATA
// give the stops at canals on the way and the wait off the port (eta.Waits.Learn). An arrival at
// a port without coordinates, of a vessel whose MMSI is unknown, or whose stored track does not
// reach within eta.AnchorageNM of the port, teaches nothing.
func (e *Engine) learn(ctx context.Context, a boxwatch.VesselArrival) (bool, error) {
	port, ok := e.portAt(a.LOCODE)
	if !ok || e.positions == nil || !e.learned.fresh(a) {
		return false, nil
	}
	v, err := e.vessels.Vessel(ctx, a.VesselIMO)
	if boxwatch.IsKind(err, boxwatch.KindNotFound) || err == nil && v.MMSI == "" {
		return false, nil
	}
	if err != nil {
		e.learned.remove(a)
		return false, err
	}
	from := a.Arrived.Add(-learnLookback)
	if a.Departed.After(from) && a.Departed.Before(a.Arrived) {
		from = a.Departed
	}
	track, err := e.positions.VesselPositions(ctx, v.MMSI, from, a.Arrived.Add(time.Second), maxTrackPositions)
	if err != nil {
		e.learned.remove(a)
		return false, err
	}
	track = slices.DeleteFunc(track, func(p boxwatch.VesselPosition) bool { return !validPosition(p) })
	if len(track) == 0 || geo.DistanceNM(positionPoint(track[len(track)-1]), portPoint(port)) > eta.AnchorageNM {
		// The track does not reach the port (no feed heard it, or not yet: a backlog): how long
		// it waited is unknown, not none. Forgotten, so that a later warm-up may learn it.
		e.learned.remove(a)
		return false, nil
	}
	e.waits.Learn(track, a.LOCODE, portPoint(port), a.Arrived, canalAt)
	return true, nil
}

// WarmWaits learns the waits of the arrivals recorded in the WarmWindow before now, the latest
// MaxWarmArrivals of them, skipping the calls already learned, and returns how many it learned.
// It stops at ctx's end (serve bounds it) with what it learned so far.
func (e *Engine) WarmWaits(ctx context.Context) (int, error) {
	if e.positions == nil {
		return 0, nil
	}
	now := e.now()
	arrivals, err := e.positions.VesselArrivals(ctx, now.Add(-WarmWindow), now.Add(time.Second), MaxWarmArrivals)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, a := range arrivals {
		ok, err := e.learn(ctx, a)
		if err != nil {
			return n, err
		}
		if ok {
			n++
		}
	}
	return n, nil
}

// RunLearning warms the waits (WarmWaits, each run bounded by warmTimeout), then again every
// interval until ctx ends, so that a replica learns the arrivals the others recorded too (and an
// API-only replica, which records none, learns at all).
func (e *Engine) RunLearning(ctx context.Context, interval time.Duration) {
	warm := func() {
		start := time.Now()
		wctx, cancel := context.WithTimeout(ctx, warmTimeout)
		n, err := e.WarmWaits(wctx)
		cancel()
		if err != nil && ctx.Err() == nil {
			e.log.Warn("learning the waits at ports", "learned", n, "error", err.Error())
		} else if ctx.Err() == nil {
			st := e.waits.Stats()
			e.log.Info("learned the waits at ports", "arrivals", n, "places", st.Places, "waits", st.Waits, "took", time.Since(start).Round(time.Millisecond).String())
		}
	}
	warm()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case a := <-e.arrivals:
			e.learnArrivals(ctx, a)
		case <-tick.C:
			warm()
		}
	}
}

// arrivalQueue is how many hand-overs QueueArrivals holds for RunLearning; beyond it they are
// dropped, and the next warm-up learns them from the database.
const arrivalQueue = 256

// QueueArrivals hands arrivals the tracking engine just recorded to RunLearning, without waiting:
// the lookup job that recorded them must not run on (a job that outlives its lease is taken up
// again elsewhere while it still runs). When the queue is full they are dropped: RunLearning's
// next warm-up reads them from the database.
func (e *Engine) QueueArrivals(arrivals []boxwatch.VesselArrival) {
	if len(arrivals) == 0 {
		return
	}
	select {
	case e.arrivals <- arrivals:
	default:
		e.log.Debug("learning queue full: arrivals left to the next warm-up", "arrivals", len(arrivals))
	}
}

// warmTimeout bounds one WarmWaits in RunLearning.
const warmTimeout = 5 * time.Minute

// waitsStats reports the waits as a cache for the admin metrics: what they weigh and their bound.
func (e *Engine) waitsStats() cache.Stats {
	st := e.waits.Stats()
	return cache.Stats{Name: "eta_waits", Entries: st.Waits, Bytes: st.Bytes, MaxBytes: eta.MaxBytes}
}
