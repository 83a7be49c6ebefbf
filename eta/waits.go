package eta

import (
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/geo"
)

// LearnWindow is how far back the waits at a place are learned from: queues at a port or a
// canal come and go over weeks, so older waits say little about the next vessel's.
const LearnWindow = 21 * 24 * time.Hour

// maxWaits bounds the waits kept per place (the most recent), and MaxBytes what a Waits weighs in
// all (see Stats): beyond it, the oldest wait of the place with the most is let go, and a place
// left with none with it. 4 MiB is some 45,000 waits over a few thousand places.
const (
	maxWaits = 512
	MaxBytes = 4 << 20
)

// waitBytes is what one wait weighs; placeBytes what a place weighs beyond its key's bytes: its
// map slot (the key's header, the slice's header, the slot's share of the buckets).
const (
	waitBytes  = 24
	placeBytes = 64
)

// Waits learns how long vessels wait at places (a port's anchorage before berthing, a canal's
// queue) from waits already seen: from a vessel's AIS track (when it stopped off the port or at the
// canal) and the carrier's milestone (when it berthed). It is safe for concurrent use; the zero
// value is ready.
type Waits struct {
	mu     sync.Mutex
	places map[string][]wait // by place, in order of end
	total  int               // waits held, over every place
	keys   int               // bytes of the places' keys
}

// WaitsStats is what a Waits holds: its places, its waits, and the bytes they weigh.
type WaitsStats struct {
	Places, Waits int
	Bytes         int64
}

// Stats reports what w holds. Bytes, at most MaxBytes, counts 24 bytes a wait, and a place's key
// and 64 bytes.
func (w *Waits) Stats() WaitsStats {
	w.mu.Lock()
	defer w.mu.Unlock()
	return WaitsStats{Places: len(w.places), Waits: w.total, Bytes: w.bytes()}
}

func (w *Waits) bytes() int64 {
	return int64(w.total)*waitBytes + int64(len(w.places))*placeBytes + int64(w.keys)
}

type wait struct {
	end time.Time
	d   time.Duration
}

// Add records a wait at place from start to end; a wait ending before start is ignored.
func (w *Waits) Add(place string, start, end time.Time) {
	if end.Before(start) {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.places == nil {
		w.places = map[string][]wait{}
	}
	list, known := w.places[place]
	if !known {
		w.keys += len(place)
	}
	i := sort.Search(len(list), func(i int) bool { return list[i].end.After(end) })
	list = slices.Insert(list, i, wait{end, end.Sub(start)})
	w.total++
	if drop := len(list) - maxWaits; drop > 0 {
		list = slices.Delete(list, 0, drop)
		w.total -= drop
	}
	w.places[place] = list
	for w.bytes() > MaxBytes {
		most, n := "", 0
		for p, l := range w.places {
			if len(l) > n {
				most, n = p, len(l)
			}
		}
		w.total--
		if n == 1 {
			delete(w.places, most)
			w.keys -= len(most)
			continue
		}
		w.places[most] = slices.Delete(w.places[most], 0, 1)
	}
}

// Remaining is how much longer a vessel that has already waited `waited` at place is expected to
// wait, as of at: the median of what is left of the waits that ended in the LearnWindow before
// at and lasted longer than waited (the median, because it minimises the absolute error). With
// fewer than minWaits such waits at the place, the place's waits of three LearnWindows count,
// then every place's. n is how many waits that judges from; with none, Remaining is 0.
func (w *Waits) Remaining(place string, at time.Time, waited time.Duration) (time.Duration, int) {
	return w.Quantile(place, at, waited, 0.5)
}

// Quantile is Remaining at quantile q (0 to 1) of what is left of the waits instead of the
// median: the wait that a share q of the vessels judged from waited less than.
func (w *Waits) Quantile(place string, at time.Time, waited time.Duration, q float64) (time.Duration, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	left := w.left(w.places[place], at, LearnWindow, waited)
	if len(left) < minWaits {
		left = w.left(w.places[place], at, 3*LearnWindow, waited)
	}
	if len(left) < minWaits {
		left = left[:0]
		for _, list := range w.places {
			left = append(left, w.left(list, at, LearnWindow, waited)...)
		}
	}
	if len(left) == 0 {
		return 0, 0
	}
	slices.Sort(left)
	return left[min(len(left)-1, int(q*float64(len(left))))], len(left)
}

// minWaits is the fewest waits a place's expectation is judged from.
const minWaits = 5

// left is what is left after waited of the waits of list that ended within window before at and
// lasted longer.
func (w *Waits) left(list []wait, at time.Time, window, waited time.Duration) []time.Duration {
	lo := sort.Search(len(list), func(i int) bool { return !list[i].end.Before(at.Add(-window)) })
	hi := sort.Search(len(list), func(i int) bool { return !list[i].end.Before(at) })
	var out []time.Duration
	for _, x := range list[lo:hi] {
		if x.d > waited {
			out = append(out, x.d-waited)
		}
	}
	return out
}

// Learn records the waits a vessel's passage shows once it has berthed at port (at portPoint) at
// berthed, as the service sees them: track is the vessel's positions from its departure up to
// berthed, oldest first. Each stop at a place canalAt names (a canal, by the position; "" for
// none) is a wait there; the stop off the port that lasts until berthed, within AnchorageNM of
// it, is the wait at port, and a vessel that sailed straight in waited none.
func (w *Waits) Learn(track []boxwatch.VesselPosition, port string, portPoint geo.Point, berthed time.Time, canalAt func(geo.Point) string) {
	var stopFrom time.Time
	var stopAt string
	for i, p := range track {
		stopped := isStopped(track, i)
		if stopped && stopFrom.IsZero() {
			stopFrom, stopAt = p.Timestamp, canalAt(point(p))
		}
		if stopped || stopFrom.IsZero() {
			continue
		}
		if stopAt != "" {
			w.Add(stopAt, stopFrom, p.Timestamp)
		}
		stopFrom = time.Time{}
	}
	waitFrom := berthed
	if len(track) > 0 {
		last := track[len(track)-1]
		switch near := geo.DistanceNM(point(last), portPoint) <= AnchorageNM; {
		case near && !stopFrom.IsZero():
			waitFrom = stopFrom
		case near:
			waitFrom = last.Timestamp
		}
	}
	w.Add(port, waitFrom, berthed)
}
